/**
 * Live plots (uPlot) of what the worker measures each frame: MuJoCo's potential and kinetic
 * energy plus the flex elastic energy, edge lengths (min, mean, max and the edge selected in the
 * inspector), contact penetration and normal force, and, when the model has sensors, a window of
 * `sensordata` that starts at the sensor the student picks. Samples go into columns allocated
 * once; the charts redraw a few times a second; the whole record exports as CSV.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { MAX_SENSOR_SERIES, type Probe, type SensorInfo } from '../sim/protocol';
import { button, el } from './dom';
import { t, type StringKey } from './i18n';

/** CSV column names: MuJoCo's names where the quantity has one. */
export const COLUMNS = [
  'time',
  'energy_potential',
  'energy_kinetic',
  'energy_elastic',
  'flexedge_length_min',
  'flexedge_length_mean',
  'flexedge_length_max',
  'flexedge_length_selected',
  'penetration_max',
  'contact_normal_force',
  'ncon',
] as const;

/** Where the sensor columns start: `sensordata[0]` onwards, after COLUMNS. */
const SENSOR_COL = COLUMNS.length;

/** Colours of the sensor series, in order. */
const SENSOR_COLORS = ['#1f6fb2', '#d0342c', '#2a9d3a', '#e08a00', '#7b3fb2', '#0f9aa8', '#7a8793', '#e0218a'];

/** Samples kept; older halves are dropped when full. */
const CAPACITY = 20000;
/** Least time between two chart redraws (ms). */
const REDRAW_MS = 200;

interface ChartSpec {
  title: StringKey;
  series: Array<{ label: string; col: number; color: string; scale?: string }>;
}

/** The sensors' chart; its series are the model's (`Plots.setSensors`). */
const SENSOR_CHART: ChartSpec = { title: 'sensorPlot', series: [] };

const CHARTS: ChartSpec[] = [
  {
    title: 'energyPlot',
    series: [
      { label: 'potential', col: 1, color: '#1f6fb2' },
      { label: 'kinetic', col: 2, color: '#d0342c' },
      { label: 'elastic', col: 3, color: '#2a9d3a' },
    ],
  },
  {
    title: 'edgePlot',
    series: [
      { label: 'min', col: 4, color: '#7a8793' },
      { label: 'mean', col: 5, color: '#1f6fb2' },
      { label: 'max', col: 6, color: '#7a8793' },
      { label: 'selected', col: 7, color: '#e08a00' },
    ],
  },
  {
    title: 'contactPlot',
    series: [
      { label: 'penetration (m)', col: 8, color: '#e0218a', scale: 'm' },
      { label: 'normal force (N)', col: 9, color: '#2a9d3a', scale: 'N' },
    ],
  },
];

/**
 * The range of a y scale over the finite samples of its series, padded as uPlot pads its own.
 * uPlot starts its min and max at a series' first non-null sample, so a series that begins with
 * NaN (the selected edge's length before an edge is selected) would leave the whole chart
 * without a range, and blank.
 */
export function finiteRange(u: uPlot, key: string): uPlot.Range.MinMax {
  let min = Infinity;
  let max = -Infinity;
  u.series.forEach((s, i) => {
    if (i === 0 || s.scale !== key || s.show === false) return;
    const d = u.data[i];
    for (let k = 0; k < d.length; k++) {
      const v = d[k];
      if (v == null || !Number.isFinite(v)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  });
  if (min > max) return [0, 1];
  return uPlot.rangeNum(min, max, 0.1, true);
}

export class Plots {
  readonly root: HTMLDetailsElement;
  private cols: Float64Array[] = Array.from({ length: SENSOR_COL + MAX_SENSOR_SERIES }, () => new Float64Array(CAPACITY));
  /** The charts drawn: the fixed ones, and the sensors' when the model has sensors. */
  private specs: ChartSpec[] = CHARTS;
  /** The model's sensors (`Topology.sensors`), and the first `sensordata` index plotted. */
  private sensors: SensorInfo[] = [];
  private sensorFrom = 0;
  /** Labels of the plotted sensor values: the sensor's label, and the component of a vector. */
  private sensorLabels: string[] = [];
  private sensorPick: HTMLSelectElement;
  private windowListeners: Array<(from: number) => void> = [];
  /** Number of samples recorded. */
  count = 0;
  private lastTime = -1;
  private charts: uPlot[] = [];
  private hosts: HTMLElement[] = [];
  private lastDraw = 0;
  private pending = false;
  /** Times the charts were redrawn (for tests). */
  redraws = 0;

  constructor(host: HTMLElement) {
    this.root = el('details', { class: 'panel plots' });
    const summary = el('summary', {}, t('plots'));
    const exportBtn = button(t('exportCsv'));
    const clearBtn = button(t('clear'));
    const bar = el('div', { class: 'row' }, exportBtn, clearBtn);
    this.root.append(summary, bar);
    for (const c of [...CHARTS, SENSOR_CHART]) {
      const h = el('figure', { class: 'chart', role: 'group', 'aria-label': t(c.title) }, el('figcaption', {}, t(c.title)));
      this.hosts.push(h);
      this.root.append(h);
    }
    // more values than one chart shows: the student picks the sensor the window starts at
    const pickLabel = t('sensorFrom', { n: MAX_SENSOR_SERIES });
    this.sensorPick = el('select', { 'aria-label': pickLabel });
    const sensorHost = this.hosts[CHARTS.length];
    sensorHost.querySelector('figcaption')!.after(el('label', { class: 'sensor-pick' }, pickLabel + ' ', this.sensorPick));
    this.sensorPick.addEventListener('change', () => {
      const s = this.sensors[Number(this.sensorPick.value)];
      if (s) this.setWindow(s.adr);
    });
    sensorHost.hidden = true;
    host.append(this.root);
    exportBtn.addEventListener('click', () => this.download());
    clearBtn.addEventListener('click', () => this.clear());
    this.root.addEventListener('toggle', () => {
      if (this.root.open) this.redraw(true);
    });
    new ResizeObserver(() => this.resize()).observe(this.root);
  }

  private width(): number {
    return Math.max(240, Math.floor(this.root.clientWidth - 8));
  }

  private ensureCharts(): void {
    if (this.charts.length) return;
    const w = this.width();
    this.specs.forEach((c, i) => {
      const scales: uPlot.Scales = { x: { time: false } };
      for (const key of new Set(c.series.map((s) => s.scale ?? 'y'))) scales[key] = { range: (u) => finiteRange(u, key) };
      const axes: uPlot.Axis[] = [{ label: 't (s)' }, { scale: c.series[0].scale ?? 'y', size: 60 }];
      if (c.series.some((s) => s.scale === 'N')) axes.push({ scale: 'N', side: 1, grid: { show: false }, size: 50 });
      const opts: uPlot.Options = {
        width: w,
        height: 150,
        scales,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        series: [{ label: 't' }, ...c.series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, scale: s.scale ?? 'y', points: { show: false } }))],
        axes,
      };
      this.charts.push(new uPlot(opts, this.data(c), this.hosts[i]));
    });
  }

  private data(c: ChartSpec): uPlot.AlignedData {
    const n = this.count;
    return [this.cols[0].subarray(0, n), ...c.series.map((s) => this.cols[s.col].subarray(0, n))];
  }

  private resize(): void {
    if (!this.charts.length) return;
    const w = this.width();
    for (const c of this.charts) c.setSize({ width: w, height: 150 });
  }

  /** Records one frame's measurements (skipped when simulated time did not move). */
  push(time: number, p: Probe, ncon: number): void {
    if (time === this.lastTime) return;
    if (time < this.lastTime) this.clear(); // reset or reload: a new record
    this.lastTime = time;
    if (this.count === CAPACITY) {
      const half = CAPACITY / 2;
      for (const c of this.cols) c.copyWithin(0, half);
      this.count = half;
    }
    const i = this.count++;
    const v = this.cols;
    v[0][i] = time;
    v[1][i] = p.potential;
    v[2][i] = p.kinetic;
    v[3][i] = p.elastic;
    v[4][i] = p.edgeMin;
    v[5][i] = p.edgeMean;
    v[6][i] = p.edgeMax;
    v[7][i] = p.edgeSel;
    v[8][i] = p.penetration;
    v[9][i] = p.contactForce;
    v[10][i] = ncon;
    for (let k = 0; k < this.sensorLabels.length; k++) v[SENSOR_COL + k][i] = p.sensors[k];
    this.redraw(false);
  }

  private redraw(force: boolean): void {
    if (!this.root.open) return;
    const now = performance.now();
    if (!force && now - this.lastDraw < REDRAW_MS) {
      if (!this.pending) {
        this.pending = true;
        setTimeout(() => {
          this.pending = false;
          this.redraw(true);
        }, REDRAW_MS);
      }
      return;
    }
    this.lastDraw = now;
    this.ensureCharts();
    this.specs.forEach((c, i) => this.charts[i].setData(this.data(c)));
    this.redraws++;
  }

  /** Each chart's y range as drawn, [min, max] of its first scale (for tests). */
  yRanges(): Array<[number | null, number | null]> {
    return this.charts.map((u, i) => {
      const sc = u.scales[this.specs[i].series[0].scale ?? 'y'];
      return [sc.min ?? null, sc.max ?? null];
    });
  }

  clear(): void {
    this.count = 0;
    this.lastTime = -1;
    this.redraw(true);
  }

  /**
   * A new model's sensors: the sensor chart follows `sensordata` from its first sensor (no
   * sensors: the chart is hidden), with a picker when there are more values than one chart
   * shows. Clears the record.
   */
  setSensors(sensors: SensorInfo[]): void {
    this.sensors = sensors;
    const total = sensors.reduce((n, s) => n + s.dim, 0);
    this.sensorPick.replaceChildren(...sensors.map((s, i) => el('option', { value: String(i) }, `${s.label} (sensordata[${s.adr}])`)));
    this.sensorPick.parentElement!.hidden = total <= MAX_SENSOR_SERIES;
    this.hosts[CHARTS.length].hidden = !sensors.length;
    this.sensorFrom = 0;
    this.layoutSensors();
    this.clear();
  }

  /** Calls `f` with the first `sensordata` index whenever the student picks another sensor. */
  onSensorWindow(f: (from: number) => void): void {
    this.windowListeners.push(f);
  }

  /** Plots `sensordata` from index `from`; the earlier samples of the new window are empty. */
  private setWindow(from: number): void {
    if (from === this.sensorFrom) return;
    this.sensorFrom = from;
    for (let k = 0; k < MAX_SENSOR_SERIES; k++) this.cols[SENSOR_COL + k].fill(NaN, 0, this.count);
    this.layoutSensors();
    for (const f of this.windowListeners) f(from);
    this.redraw(true);
  }

  /** The sensor chart's series for the current window: one per value, labelled by sensor. */
  private layoutSensors(): void {
    const labels: string[] = [];
    for (const s of this.sensors) {
      for (let k = 0; k < s.dim; k++) {
        const i = s.adr + k;
        if (i >= this.sensorFrom && i < this.sensorFrom + MAX_SENSOR_SERIES) labels.push(s.dim > 1 ? `${s.label}[${k}]` : s.label);
      }
    }
    this.sensorLabels = labels;
    const chart: ChartSpec = {
      ...SENSOR_CHART,
      series: labels.map((label, k) => ({ label, col: SENSOR_COL + k, color: SENSOR_COLORS[k] })),
    };
    this.specs = chart.series.length ? [...CHARTS, chart] : CHARTS;
    // uPlot's series are fixed when it is made: make the charts anew on the next draw
    for (const c of this.charts) c.destroy();
    this.charts = [];
  }

  /** The record as CSV text, a header of MuJoCo names and one line per sample. */
  csv(): string {
    const n = SENSOR_COL + this.sensorLabels.length;
    const header = [...COLUMNS, ...this.sensorLabels.map((_, k) => `sensordata[${this.sensorFrom + k}]`)];
    const lines = [header.join(',')];
    for (let i = 0; i < this.count; i++) {
      lines.push(this.cols.slice(0, n).map((c) => (Number.isNaN(c[i]) ? '' : String(c[i]))).join(','));
    }
    return lines.join('\n') + '\n';
  }

  private download(): void {
    const blob = new Blob([this.csv()], { type: 'text/csv' });
    const a = el('a', { href: URL.createObjectURL(blob), download: 'flexlab-plots.csv' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }
}

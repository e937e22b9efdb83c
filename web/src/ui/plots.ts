/**
 * Live plots (uPlot) of what the worker measures each frame: MuJoCo's potential and kinetic
 * energy plus the flex elastic energy, edge lengths (min, mean, max and the edge selected in the
 * inspector), contact penetration and normal force, and, when the model has sensors, the first
 * values of `sensordata`. Samples go into columns allocated once; the charts redraw a few times
 * a second; the whole record exports as CSV.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { MAX_SENSOR_SERIES, type Probe } from '../sim/protocol';
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
  /** Labels of the plotted sensor values (`Topology.sensors`). */
  private sensorLabels: string[] = [];
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
    this.hosts[CHARTS.length].hidden = true;
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
   * A new model's sensors: the sensor chart follows these values of `sensordata` (none: the
   * chart is hidden). Clears the record.
   */
  setSensors(labels: string[]): void {
    this.sensorLabels = labels.slice(0, MAX_SENSOR_SERIES);
    const chart: ChartSpec = {
      ...SENSOR_CHART,
      series: this.sensorLabels.map((label, k) => ({ label, col: SENSOR_COL + k, color: SENSOR_COLORS[k] })),
    };
    this.specs = chart.series.length ? [...CHARTS, chart] : CHARTS;
    this.hosts[CHARTS.length].hidden = !chart.series.length;
    // uPlot's series are fixed when it is made: make the charts anew on the next draw
    for (const c of this.charts) c.destroy();
    this.charts = [];
    this.clear();
  }

  /** The record as CSV text, a header of MuJoCo names and one line per sample. */
  csv(): string {
    const n = SENSOR_COL + this.sensorLabels.length;
    const header = [...COLUMNS, ...this.sensorLabels.map((_, k) => `sensordata[${k}]`)];
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

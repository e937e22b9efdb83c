/**
 * The field inspector: every model and data array by its MuJoCo name (whatever the engine's
 * `field_names()` lists, plus `contact`), shown as rows × columns. Selecting a row of a
 * per-vertex, per-edge, per-geom or per-contact field highlights that object in the scene.
 * It is one generic view over named arrays, not a panel per field.
 */
import type { SimClient } from '../sim/client';
import type { Topology } from '../sim/protocol';
import { button, checkbox, el, uniqueId } from './dom';
import { t } from './i18n';

/** What one row of a field stands for, so the scene can show it. */
export type RowKind = 'vertex' | 'edge' | 'geom' | 'body' | 'flex' | 'contact' | 'efc' | null;

const VERTEX_FIELDS = new Set(['flex_vert', 'flex_vert0', 'flex_vertbodyid', 'flex_vertmetric', 'flex_vertedgeadr', 'flex_vertedgenum', 'flexvert_xpos', 'flexvert_length']);
const EDGE_FIELDS = new Set(['flex_edge', 'flex_edgeflap', 'flexedge_length', 'flexedge_length0', 'flexedge_velocity', 'flexedge_invweight0', 'flexedge_rigid']);
const BODY_DATA = new Set(['xpos', 'xquat', 'xmat', 'xipos', 'ximat', 'subtree_com', 'subtree_linvel', 'subtree_angmom', 'cinert', 'crb', 'cvel', 'cacc', 'cfrc_int', 'cfrc_ext', 'xfrc_applied']);

/** mjData arrays MuJoCo fills only for the sensors that read them. */
const ON_DEMAND = new Set(['subtree_linvel', 'subtree_angmom', 'cacc', 'cfrc_int', 'cfrc_ext']);

/** Column names MuJoCo's docs use for common row widths. */
const CONTACT_COLUMNS = ['dist', 'pos.x', 'pos.y', 'pos.z', 'normal.x', 'normal.y', 'normal.z', 'geom[0]', 'geom[1]', 'flex[0]', 'flex[1]', 'elem[0]', 'elem[1]', 'vert[0]', 'vert[1]', 'dim', 'exclude', 'efc_address', 'adhesion'];

/**
 * The engine's own model arrays, which MuJoCo's mjModel does not have: `flex_elastic3d` keeps
 * the spec-only `mjsFlex.elastic3d` (0 StVK, 1 Stable Neo-Hookean), `mesh_plugin` the SDF plugin
 * that made a mesh. The inspector lists them apart, so no one takes them for MuJoCo's.
 */
export const FLEXLAB_ONLY = new Set(['flex_elastic3d', 'mesh_plugin']);

/** Where an array stands in MuJoCo: `mjModel`, `mjData`, or `flexlab` (the engine's own). */
export function arrayGroup(name: string, model: boolean): 'mjModel' | 'mjData' | 'flexlab' {
  if (FLEXLAB_ONLY.has(name)) return 'flexlab';
  if (!model) return 'mjData';
  return 'mjModel';
}

/** The constraint Jacobian's arrays that hold one row per nonzero while it is sparse. */
const JACOBIAN_NONZEROS = new Set(['efc_J', 'efc_J_colind']);

/** Which kind of object the rows of `name` describe, given its row count and whether MuJoCo
 *  keeps the constraint Jacobian sparse (then `efc_J` has a row per nonzero, not per constraint). */
export function rowKind(name: string, rows: number, sizes: Record<string, number>, sparse = false): RowKind {
  if (name === 'contact') return 'contact';
  if (sparse && JACOBIAN_NONZEROS.has(name)) return null;
  if (name.startsWith('efc_')) return 'efc';
  if (VERTEX_FIELDS.has(name) && rows === sizes.nflexvert) return 'vertex';
  if (EDGE_FIELDS.has(name) && rows === sizes.nflexedge) return 'edge';
  if (name.startsWith('geom_') && rows === sizes.ngeom) return 'geom';
  if ((name.startsWith('body_') || BODY_DATA.has(name)) && rows === sizes.nbody) return 'body';
  if (name.startsWith('flex_') && rows === sizes.nflex) return 'flex';
  return null;
}

function columnNames(name: string, cols: number): string[] {
  if (name === 'contact') return CONTACT_COLUMNS;
  if (cols === 3) return ['x', 'y', 'z'];
  if (cols === 1) return ['value'];
  return Array.from({ length: cols }, (_, i) => String(i));
}

function fmt(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e9) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e5 ? x.toPrecision(6).replace(/\.?0+$/, '') : x.toExponential(4);
}

/** Rows shown at once. */
const PAGE_ROWS = 100;

export interface InspectorSelection {
  field: string;
  row: number;
  kind: RowKind;
  /** The row's values when it was selected. */
  values: number[];
}

export class Inspector {
  readonly root: HTMLDetailsElement;
  private select: HTMLSelectElement;
  private filter: HTMLInputElement;
  private firstRow: HTMLInputElement;
  private meta: HTMLElement;
  private table: HTMLTableElement;
  private readonly tableWrap: HTMLElement;
  private names: { model: string[]; data: string[] } = { model: [], data: [] };
  private sizes: Record<string, number> = {};
  /** Whether MuJoCo keeps this model's constraint Jacobian sparse (`mj_isSparse`). */
  private sparse = false;
  private topo: Topology | null = null;
  private live = true;
  private field = '';
  private selectedRow = -1;
  private timer: number | undefined;
  /** The read in flight, if any. */
  private inflight: Promise<void> | null = null;
  private listeners: Array<(s: InspectorSelection | null) => void> = [];
  /** Rows and columns of the field on show (for tests). */
  shape: { rows: number; cols: number } = { rows: 0, cols: 0 };

  constructor(host: HTMLElement, private readonly sim: SimClient) {
    const id = uniqueId('insp');
    this.root = el('details', { class: 'panel inspector' });
    const summary = el('summary', {}, t('inspector'));
    this.filter = el('input', { type: 'search', id: `${id}-filter`, autocomplete: 'off', placeholder: 'flex_' });
    this.select = el('select', { id: `${id}-field`, size: '6' });
    this.firstRow = el('input', { type: 'number', id: `${id}-row`, min: '0', step: '1', value: '0', class: 'row-input' });
    const refresh = button(t('refresh'));
    const liveBox = checkbox(t('live'), true, (on) => {
      this.live = on;
      this.schedule();
    });
    this.meta = el('p', { class: 'meta', role: 'status' });
    this.table = el('table', { class: 'fields' });
    this.tableWrap = el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('values') });
    this.tableWrap.append(this.table);
    this.root.append(
      summary,
      el('div', { class: 'row' },
        el('label', { for: `${id}-filter` }, t('fieldFilter')), this.filter,
        el('label', { for: `${id}-row` }, `${t('row')} ≥`), this.firstRow,
        refresh, liveBox),
      el('label', { for: `${id}-field`, class: 'block-label' }, t('field')),
      this.select,
      this.meta,
      this.tableWrap,
    );
    host.append(this.root);
    this.filter.addEventListener('input', () => this.fillNames());
    this.select.addEventListener('change', () => void this.show(this.select.value));
    this.firstRow.addEventListener('change', () => void this.read());
    refresh.addEventListener('click', () => void this.read());
    this.root.addEventListener('toggle', () => {
      if (this.root.open && this.field) void this.read();
      this.schedule();
    });
  }

  onSelect(f: (s: InspectorSelection | null) => void): void {
    this.listeners.push(f);
  }

  /** A new scene: its field names, sizes, topology and constraint Jacobian layout. */
  setScene(names: { model: string[]; data: string[] }, sizes: Record<string, number>, topo: Topology, sparse = false): void {
    this.names = names;
    this.sizes = sizes;
    this.sparse = sparse;
    this.topo = topo;
    this.selectedRow = -1;
    this.layout = '';
    this.emit();
    this.fillNames();
    if (this.field) void this.read();
  }

  private fillNames(): void {
    const q = this.filter.value.trim().toLowerCase();
    const keep = this.field;
    this.select.replaceChildren();
    const model = this.names.model;
    const groups: Array<[string, string[]]> = [
      ['mjModel', model.filter((n) => arrayGroup(n, true) === 'mjModel')],
      ['mjData', [...this.names.data, ...model.filter((n) => arrayGroup(n, true) === 'mjData'), 'contact']],
      [t('flexlabOnly'), model.filter((n) => arrayGroup(n, true) === 'flexlab')],
    ];
    for (const [label, list] of groups) {
      const g = el('optgroup', { label });
      for (const n of list) if (!q || n.toLowerCase().includes(q)) g.append(el('option', { value: n }, n));
      if (g.childElementCount) this.select.append(g);
    }
    if (keep) this.select.value = keep;
  }

  /** Shows field `name` (a MuJoCo model or data array, or `contact`), from row `first`;
   *  resolves when its values are on screen. */
  show(name: string, first = 0): Promise<void> {
    this.field = name;
    if (this.filter.value && !name.toLowerCase().includes(this.filter.value.trim().toLowerCase())) {
      this.filter.value = '';
      this.fillNames();
    }
    this.select.value = name;
    this.selectedRow = -1;
    this.firstRow.value = String(Math.max(0, first));
    this.emit();
    this.root.open = true;
    return this.read();
  }

  /** Scrolls the inspector into view, and its values too when it is taller than the room. */
  reveal(): void {
    this.root.scrollIntoView({ block: 'nearest' });
    this.tableWrap.scrollIntoView({ block: 'nearest' });
  }

  private schedule(): void {
    window.clearInterval(this.timer);
    if (this.live && this.root.open) this.timer = window.setInterval(() => void this.read(true), 300);
  }

  /** Reads the shown field's values and renders them. Asked while a read is in flight, it runs
   *  after that one (a field just chosen is read, not dropped); a live refresh joins it. */
  private read(liveOnly = false): Promise<void> {
    if (this.inflight) return liveOnly ? this.inflight : this.inflight.then(() => this.read());
    const name = this.field;
    if (!name) return Promise.resolve();
    if (liveOnly && this.names.model.includes(name)) return Promise.resolve(); // model fields never change
    this.inflight = this.fetch(name).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetch(name: string): Promise<void> {
    const r = await this.sim.field(name);
    if (name !== this.field) return;
    if (!r.values) {
      this.meta.textContent = r.error ?? '';
      this.table.replaceChildren();
      return;
    }
    this.render(name, r.values, Math.max(1, r.cols), r.kind);
  }

  private render(name: string, values: Float64Array, cols: number, where: string): void {
    const rows = Math.floor(values.length / cols);
    this.shape = { rows, cols };
    const kind = rowKind(name, rows, this.sizes, this.sparse);
    const first = Math.min(Math.max(0, Math.floor(Number(this.firstRow.value) || 0)), Math.max(0, rows - 1));
    const last = Math.min(rows, first + PAGE_ROWS);
    const group = arrayGroup(name, where === 'model');
    const src = group === 'flexlab' ? t('flexlabOnly') : group;
    const more = rows > PAGE_ROWS ? ` · ${t('moreRows', { n: PAGE_ROWS })}` : '';
    const note = name.startsWith('efc_J')
      ? ` · ${t(this.sparse ? 'jacobianSparse' : 'jacobianDense')}`
      : ON_DEMAND.has(name) && where !== 'model'
        ? ` · ${t('onDemand')}`
        : '';
    this.meta.textContent = `${src}${group === 'flexlab' ? ': ' : '.'}${name} · ${rows} ${t('rows')} × ${cols}${more}${rows === 0 ? ` ${t('noRows')}` : ''}${note}`;
    this.values = values;
    // a live refresh of the same rows only rewrites numbers, so focus and scroll stay put
    const layout = `${name}|${rows}|${cols}|${first}|${this.selectedRow}`;
    if (layout === this.layout) {
      const cells = this.table.tBodies[0]?.rows;
      for (let r = first; r < last && cells; r++) {
        const tr = cells[r - first];
        for (let c = 0; c < cols; c++) {
          const text = fmt(values[r * cols + c]);
          const td = tr.cells[c + 1];
          if (td.textContent !== text) td.textContent = text;
        }
      }
      return;
    }
    this.layout = layout;
    const cap = el('caption', {}, name);
    const head = el('tr', {}, el('th', { scope: 'col' }, '#'));
    for (const c of columnNames(name, cols)) head.append(el('th', { scope: 'col' }, c));
    const body = el('tbody');
    for (let r = first; r < last; r++) {
      const tr = el('tr', {});
      if (r === this.selectedRow) tr.className = 'selected';
      const cell = el('th', { scope: 'row' });
      if (kind) {
        const b = button(String(r), { class: 'row-select', 'aria-label': `${name}[${r}]: ${t('selectRow')}`, 'aria-pressed': String(r === this.selectedRow) });
        b.addEventListener('click', () => this.selectRow(r, kind));
        cell.append(b);
      } else {
        cell.textContent = String(r);
      }
      tr.append(cell);
      for (let c = 0; c < cols; c++) tr.append(el('td', {}, fmt(values[r * cols + c])));
      body.append(tr);
    }
    const focused = document.activeElement instanceof HTMLElement && this.table.contains(document.activeElement) ? document.activeElement.getAttribute('aria-label') : null;
    this.table.replaceChildren(cap, el('thead', {}, head), body);
    if (focused) this.table.querySelector<HTMLElement>(`[aria-label="${CSS.escape(focused)}"]`)?.focus();
  }

  private values: Float64Array = new Float64Array(0);
  /** What the table on show was built for (field, shape, first row, selection). */
  private layout = '';

  private selectRow(r: number, kind: RowKind): void {
    this.selectedRow = this.selectedRow === r ? -1 : r;
    const cols = this.shape.cols;
    const values = this.selectedRow >= 0 ? Array.from(this.values.subarray(r * cols, r * cols + cols)) : [];
    this.emit(kind, values);
    void this.read();
  }

  private emit(kind: RowKind = null, values: number[] = []): void {
    const sel = this.selectedRow >= 0 && this.field ? { field: this.field, row: this.selectedRow, kind, values } : null;
    for (const f of this.listeners) f(sel);
  }

  /** The topology this inspector was given (for mapping rows to scene objects). */
  get topology(): Topology | null {
    return this.topo;
  }

  get current(): string {
    return this.field;
  }
}

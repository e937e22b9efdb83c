/**
 * The parameter panel of a lesson scene: one control per `[[scene.param]]` (number, choice or
 * bool). A change asks the engine to prepare and recompile the scene; if the compiler rejects
 * the configuration, its message appears right under the panel, in MuJoCo's words.
 */
import type { SceneParam } from '../lesson/types';
import type { ParamValue } from '../sim/protocol';
import { el, uniqueId } from './dom';
import { pick, t } from './i18n';

/** Reads a URL value as the kind the parameter declares (null if it does not fit). */
export function parseParam(p: SceneParam, raw: string): ParamValue | null {
  if (p.kind === 'number') {
    const x = Number(raw);
    if (!Number.isFinite(x) || raw.trim() === '') return null;
    return x;
  }
  if (p.kind === 'bool') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : null;
  return p.choices && !p.choices.includes(raw) ? null : raw;
}

export class ParamPanel {
  readonly root: HTMLElement;
  private error: HTMLElement;
  private body: HTMLElement;
  private params: SceneParam[] = [];
  private values: Record<string, ParamValue> = {};
  private timer: number | undefined;

  constructor(host: HTMLElement, private readonly onChange: (values: Record<string, ParamValue>, changed: string) => void) {
    const id = uniqueId('params');
    this.root = el('section', { class: 'panel params', 'aria-labelledby': `${id}-h` });
    this.root.hidden = true;
    this.body = el('div', { class: 'param-list' });
    this.error = el('div', { class: 'message error param-error', role: 'alert' });
    this.error.hidden = true;
    this.root.append(el('h3', { id: `${id}-h` }, t('parameters')), el('p', { class: 'hint' }, t('paramHint')), this.body, this.error);
    host.append(this.root);
  }

  /** Builds the controls of a scene's parameters with their current values. */
  set(params: SceneParam[], values: Record<string, ParamValue>): void {
    this.params = params;
    this.values = { ...values };
    this.body.replaceChildren();
    this.root.hidden = params.length === 0;
    this.showError(null);
    for (const p of params) this.body.append(this.control(p));
  }

  private control(p: SceneParam): HTMLElement {
    const id = uniqueId(`param-${p.name}`);
    const label = pick(p.label) || p.name;
    const v = this.values[p.name] ?? p.default;
    const row = el('div', { class: 'param', 'data-param': p.name });
    if (p.kind === 'number') {
      const num = el('input', { type: 'number', id, step: p.step != null ? String(p.step) : 'any', 'data-name': p.name });
      if (p.min != null) num.min = String(p.min);
      if (p.max != null) num.max = String(p.max);
      num.value = v === undefined ? '' : String(v);
      const out = el('span', { class: 'param-range' }, p.min != null && p.max != null ? `[${p.min}, ${p.max}]` : '');
      num.addEventListener('change', () => {
        const x = Number(num.value);
        if (num.value.trim() === '' || !Number.isFinite(x)) return;
        this.commit(p.name, x, 0);
      });
      row.append(el('label', { for: id }, label), num, out);
    } else if (p.kind === 'choice') {
      const sel = el('select', { id, 'data-name': p.name });
      for (const c of p.choices ?? []) sel.append(el('option', { value: c }, c));
      if (v !== undefined) sel.value = String(v);
      sel.addEventListener('change', () => this.commit(p.name, sel.value, 0));
      row.append(el('label', { for: id }, label), sel);
    } else {
      const box = el('input', { type: 'checkbox', id, 'data-name': p.name });
      box.checked = v === true;
      box.addEventListener('change', () => this.commit(p.name, box.checked, 0));
      row.append(box, el('label', { for: id }, label));
    }
    return row;
  }

  private commit(name: string, value: ParamValue, delay: number): void {
    this.values[name] = value;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.onChange({ ...this.values }, name), delay);
  }

  /** Shows (or clears) the compiler's message for the last change. */
  showError(message: string | null): void {
    this.error.hidden = !message;
    this.error.textContent = message ? `${t('compileError')}:\n${message}` : '';
  }

  get current(): Record<string, ParamValue> {
    return { ...this.values };
  }

  get list(): SceneParam[] {
    return this.params;
  }
}

/** Tiny DOM helpers: elements with attributes and text, never HTML strings. */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/** A button with a type, an optional class and text (its accessible name). */
export function button(text: string, attrs: Record<string, string> = {}): HTMLButtonElement {
  return el('button', { type: 'button', ...attrs }, text);
}

/** A labelled checkbox; returns the label (which contains the input). */
export function checkbox(text: string, checked: boolean, onChange: (on: boolean) => void, attrs: Record<string, string> = {}): HTMLLabelElement {
  const input = el('input', { type: 'checkbox', ...attrs });
  input.checked = checked;
  input.addEventListener('change', () => onChange(input.checked));
  return el('label', { class: 'check' }, input, ` ${text}`);
}

let uid = 0;
/** A page-unique id for label/for and aria-* links. */
export function uniqueId(prefix: string): string {
  uid += 1;
  return `${prefix}-${uid}`;
}

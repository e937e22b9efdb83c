/**
 * The sandbox: the student pastes MJCF or drops / chooses an .xml file, and it is compiled on
 * the bench. Text is bounded in size before it reaches the engine; nothing is ever evaluated.
 */
import { button, el, uniqueId } from './dom';
import { t } from './i18n';

/** Largest model the sandbox accepts (bytes of UTF-8). */
export const MAX_MJCF_BYTES = 512 * 1024;

export class Sandbox {
  readonly root: HTMLDetailsElement;
  readonly textarea: HTMLTextAreaElement;
  private note: HTMLElement;

  constructor(host: HTMLElement, private readonly onLoad: (xml: string) => void) {
    const id = uniqueId('sandbox');
    this.root = el('details', { class: 'panel sandbox' });
    const summary = el('summary', {}, t('sandbox'));
    const hint = el('p', { class: 'hint', id: `${id}-hint` }, t('sandboxHint', { n: MAX_MJCF_BYTES / 1024 }));
    this.textarea = el('textarea', {
      id: `${id}-text`,
      rows: '8',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-describedby': `${id}-hint`,
      class: 'mjcf',
    });
    const label = el('label', { for: `${id}-text` }, t('sandboxLabel'));
    const file = el('input', { type: 'file', accept: '.xml,text/xml,application/xml', id: `${id}-file`, class: 'visually-hidden' });
    const fileLabel = el('label', { for: `${id}-file`, class: 'file-button' }, t('chooseFile'));
    const load = button(t('loadModel'), { class: 'primary' });
    this.note = el('p', { class: 'note', role: 'status' });
    const row = el('div', { class: 'row' }, load, file, fileLabel);
    this.root.append(summary, hint, label, this.textarea, row, this.note);
    host.append(this.root);

    load.addEventListener('click', () => this.submit(this.textarea.value));
    file.addEventListener('change', () => {
      const f = file.files?.[0];
      if (f) void this.readFile(f);
      file.value = '';
    });
    for (const target of [this.root as HTMLElement, this.textarea as HTMLElement]) {
      target.addEventListener('dragover', (ev: DragEvent) => {
        ev.preventDefault();
        this.root.classList.add('drop');
      });
      target.addEventListener('dragleave', () => this.root.classList.remove('drop'));
      target.addEventListener('drop', (ev: DragEvent) => {
        ev.preventDefault();
        ev.stopPropagation();
        this.root.classList.remove('drop');
        const f = ev.dataTransfer?.files?.[0];
        if (f) void this.readFile(f);
        else {
          const text = ev.dataTransfer?.getData('text/plain');
          if (text) this.submit(text);
        }
      });
    }
  }

  private async readFile(f: File): Promise<void> {
    if (f.size > MAX_MJCF_BYTES) {
      this.say(t('tooLarge', { size: Math.ceil(f.size / 1024), n: MAX_MJCF_BYTES / 1024 }));
      return;
    }
    const text = await f.text();
    this.submit(text);
  }

  /** Checks the size, shows the text, and hands it to the bench. */
  submit(text: string): boolean {
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_MJCF_BYTES) {
      this.say(t('tooLarge', { size: Math.ceil(bytes / 1024), n: MAX_MJCF_BYTES / 1024 }));
      return false;
    }
    this.say('');
    if (this.textarea.value !== text) this.textarea.value = text;
    this.onLoad(text);
    return true;
  }

  /** Shows a model's text without loading it. */
  setText(text: string): void {
    this.textarea.value = text;
  }

  open(): void {
    this.root.open = true;
  }

  private say(text: string): void {
    this.note.textContent = text;
  }
}

/**
 * The sandbox: the student pastes MJCF or drops / chooses an .xml file, with the files it
 * includes or reads if it has any (modelfiles.ts), and it is compiled on the bench. Text and
 * files are bounded in size before they reach the engine; nothing is ever evaluated.
 */
import type { ModelFiles } from '../engine/flexlab';
import { button, el, uniqueId } from './dom';
import { t } from './i18n';
import { MAX_EXTRA_BYTES, MAX_EXTRA_FILES, pickModel, type PickedFile } from './modelfiles';

/** Largest model the sandbox accepts (bytes of UTF-8). */
export const MAX_MJCF_BYTES = 512 * 1024;

/** Why files could not be taken, as the student reads it. */
const WHY = { noXml: 'filesNoXml', notText: 'filesNotText', tooMany: 'filesTooLarge', tooLarge: 'filesTooLarge' } as const;
const FILE_LIMITS = { files: MAX_EXTRA_FILES, mb: MAX_EXTRA_BYTES >> 20 };

function tooLarge(bytes: number): string {
  return t('tooLarge', { size: Math.ceil(bytes / 1024), n: MAX_MJCF_BYTES / 1024 });
}

export class Sandbox {
  readonly root: HTMLDetailsElement;
  readonly textarea: HTMLTextAreaElement;
  private note: HTMLElement;
  private filesLine: HTMLElement;
  private filesText: HTMLElement;
  /** The files beside the model, from the last selection of several files. */
  private files: ModelFiles = [];

  constructor(host: HTMLElement, private readonly onLoad: (xml: string, files: ModelFiles) => void) {
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
    const file = el('input', { type: 'file', multiple: '', id: `${id}-file`, class: 'visually-hidden' });
    const fileLabel = el('label', { for: `${id}-file`, class: 'file-button' }, t('chooseFile'));
    const load = button(t('loadModel'), { class: 'primary' });
    this.note = el('p', { class: 'note', role: 'status' });
    this.filesText = el('span');
    const forget = button(t('forgetFiles'));
    this.filesLine = el('p', { class: 'files' }, this.filesText, ' ', forget);
    this.filesLine.hidden = true;
    const row = el('div', { class: 'row' }, load, file, fileLabel);
    this.root.append(summary, hint, label, this.textarea, this.filesLine, row, this.note);
    host.append(this.root);

    load.addEventListener('click', () => this.submit(this.textarea.value));
    forget.addEventListener('click', () => this.setFiles([], []));
    file.addEventListener('change', () => {
      const list = Array.from(file.files ?? []);
      if (list.length) void this.readFiles(list);
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
        const list = Array.from(ev.dataTransfer?.files ?? []);
        if (list.length) void this.readFiles(list);
        else {
          const text = ev.dataTransfer?.getData('text/plain');
          if (text) this.submit(text);
        }
      });
    }
  }

  /**
   * One file is the model; several are a model with the files it includes or reads, which
   * stay beside it for later loads until other files are chosen or they are forgotten.
   */
  private async readFiles(list: File[]): Promise<void> {
    // bounded before reading: the model's own size is checked on its text (submit)
    const total = list.reduce((n, f) => n + f.size, 0);
    if (total > MAX_MJCF_BYTES + MAX_EXTRA_BYTES) {
      this.say(list.length === 1 ? tooLarge(total) : t('filesTooLarge', FILE_LIMITS));
      return;
    }
    const picked: PickedFile[] = await Promise.all(list.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    const p = pickModel(picked);
    if (!p.ok) {
      this.say(t(WHY[p.why], FILE_LIMITS));
      return;
    }
    this.setFiles(p.files, p.extra, p.main);
    this.submit(p.text);
  }

  private setFiles(files: ModelFiles, names: string[], main = ''): void {
    this.files = files;
    this.filesLine.hidden = names.length === 0;
    this.filesText.textContent = names.length ? t('besideModel', { main, files: names.join(', ') }) : '';
  }

  /** Checks the size, shows the text, and hands it to the bench. */
  submit(text: string): boolean {
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_MJCF_BYTES) {
      this.say(tooLarge(bytes));
      return false;
    }
    this.say('');
    if (this.textarea.value !== text) this.textarea.value = text;
    this.onLoad(text, this.files);
    return true;
  }

  /** Shows a model's text without loading it. */
  setText(text: string): void {
    this.textarea.value = text;
  }

  open(): void {
    this.root.open = true;
  }

  /** A line under the sandbox (what went wrong with the student's files, what to do). */
  say(text: string): void {
    this.note.textContent = text;
  }
}

/**
 * An exercise card, PhET's way: the student commits a prediction (a number or a choice), then
 * Check runs the exercise's measured check in the engine, which judges; a wrong answer offers
 * Try again and Show answer. Nothing here decides right or wrong: the verdict comes from the
 * engine's `Lesson.check`. Progress is kept in localStorage.
 */
import { button, el, uniqueId } from '../ui/dom';
import { pick, t } from '../ui/i18n';
import { CheckPending, type LessonClient } from './client';
import { loadProgress, saveProgress, type ExerciseProgress } from './progress';
import { setInlineMarkdown } from './sanitize';
import type { ExerciseInfo, Text, Verdict } from './types';

function fill(text: Text | undefined, measured: number | string | null | undefined): string {
  const m = typeof measured === 'number' ? formatNumber(measured) : measured ?? '';
  return pick(text).replace(/\{measured\}/g, m);
}

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return x.toExponential(3);
  return String(Number(x.toPrecision(4)));
}

/**
 * Whether an author's sentence already states `x` as `formatNumber` writes it; a typeset minus
 * (U+2212, as in "−2.277") counts as the minus sign.
 */
export function statesNumber(text: string, x: number): boolean {
  return text.replace(/\u2212/g, '-').includes(formatNumber(x));
}

export class ExerciseCard {
  readonly root: HTMLElement;
  private input: HTMLInputElement | null = null;
  private radios: HTMLInputElement[] = [];
  private checkBtn: HTMLButtonElement;
  private againBtn: HTMLButtonElement;
  private answerBtn: HTMLButtonElement;
  private committed: HTMLElement;
  private feedback: HTMLElement;
  private explain: HTMLElement;
  private progress: ExerciseProgress = { prediction: '', attempts: 0, status: 'open' };
  private verdict: Verdict | null = null;

  constructor(
    private readonly lesson: string,
    private readonly ex: ExerciseInfo,
    private readonly client: LessonClient,
    onOpenScene: (scene: string) => void,
    /** Its number in the lesson's reading order (1-based), or null outside the lesson's order. */
    number: number | null,
    /** Called after every change of the stored progress (checked, tried again, answer shown). */
    private readonly onProgress: () => void,
  ) {
    const id = uniqueId(`ex-${ex.id}`);
    this.root = el('section', { class: 'exercise', 'aria-labelledby': `${id}-h`, 'data-exercise': ex.id });
    // students count exercises; the author's id stays on the element (data-exercise)
    const head = el('h3', { id: `${id}-h` }, number === null ? `${t('exercise')} · ${ex.id}` : t('exerciseN', { n: number }));
    const prompt = el('div', { class: 'prompt', id: `${id}-prompt` });
    setInlineMarkdown(prompt, pick(ex.prompt));
    const answer = el('div', { class: 'answer' });
    if (ex.kind === 'number') {
      this.input = el('input', { type: 'number', step: 'any', id: `${id}-in`, 'aria-describedby': `${id}-prompt`, inputmode: 'decimal' });
      answer.append(el('label', { for: `${id}-in` }, t('prediction')), this.input);
      if (ex.unit) answer.append(el('span', { class: 'unit' }, ex.unit));
    } else {
      const fs = el('fieldset', { 'aria-describedby': `${id}-prompt` }, el('legend', {}, t('prediction')));
      for (const c of ex.choices ?? []) {
        const r = el('input', { type: 'radio', name: `${id}-choice`, value: c.id, id: `${id}-${c.id}` });
        this.radios.push(r);
        fs.append(el('div', { class: 'choice' }, r, el('label', { for: `${id}-${c.id}` }, pick(c))));
      }
      answer.append(fs);
    }
    this.checkBtn = button(t('check'), { class: 'primary', 'aria-keyshortcuts': 'Alt+C' });
    this.againBtn = button(t('tryAgain'));
    this.answerBtn = button(t('showAnswer'));
    const scene = button(t('openScene'), { class: 'link-button' });
    scene.addEventListener('click', () => onOpenScene(ex.scene));
    this.committed = el('p', { class: 'committed' });
    this.feedback = el('div', { class: 'feedback', role: 'status', 'aria-live': 'polite' });
    this.explain = el('div', { class: 'explain' });
    const buttons = el('div', { class: 'row' }, this.checkBtn, this.againBtn, this.answerBtn, scene);
    this.root.append(head, prompt, answer, buttons, this.committed, this.feedback, this.explain);
    this.root.addEventListener('keydown', (ev) => {
      if (ev.altKey && (ev.key === 'c' || ev.key === 'C') && !this.checkBtn.hidden && !this.checkBtn.disabled) {
        ev.preventDefault();
        void this.check();
      }
    });
    this.checkBtn.addEventListener('click', () => void this.check());
    this.againBtn.addEventListener('click', () => this.tryAgain());
    this.answerBtn.addEventListener('click', () => void this.showAnswer());
    this.input?.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') void this.check();
    });
    this.reload(true);
  }

  /**
   * Shows the stored progress again if it differs from the card's (after "Start over", or an
   * answer given in another tab); a prediction being typed survives a change elsewhere.
   */
  reload(force = false): void {
    const stored = loadProgress(this.lesson, this.ex.id) ?? { prediction: '', attempts: 0, status: 'open' };
    if (!force && JSON.stringify(stored) === JSON.stringify(this.progress)) return;
    this.verdict = null;
    this.progress = stored;
    this.feedback.textContent = '';
    this.restore();
  }

  private prediction(): string {
    if (this.input) return this.input.value.trim();
    return this.radios.find((r) => r.checked)?.value ?? '';
  }

  private setPrediction(v: string): void {
    if (this.input) this.input.value = v;
    for (const r of this.radios) r.checked = r.value === v;
  }

  private lock(locked: boolean): void {
    if (this.input) this.input.readOnly = locked;
    for (const r of this.radios) r.disabled = locked;
  }

  private restore(): void {
    const p = this.progress;
    this.setPrediction(p.prediction);
    this.explain.replaceChildren();
    if (p.status === 'open') {
      this.ui('open');
      return;
    }
    // a finished attempt: show where the student got to; details come back from the engine
    this.ui(p.status);
    this.committed.textContent = `${t('committed')}${p.prediction}`;
    if (p.status === 'right') this.feedback.textContent = `✓ ${t('right')}`;
    else if (p.status === 'wrong') this.feedback.textContent = `✗ ${t('wrong')}`;
    if (p.status === 'shown') void this.showAnswer();
  }

  /** Which buttons show in each state. */
  private ui(state: ExerciseProgress['status'] | 'checking'): void {
    this.root.dataset.state = state;
    this.checkBtn.hidden = state !== 'open' && state !== 'checking';
    this.checkBtn.disabled = state === 'checking';
    this.againBtn.hidden = state !== 'wrong';
    this.answerBtn.hidden = state !== 'wrong';
    this.lock(state !== 'open');
    if (state === 'open') this.committed.textContent = '';
  }

  private save(): void {
    saveProgress(this.lesson, this.ex.id, this.progress);
    this.onProgress();
  }

  /** Commits the prediction and asks the engine to measure and judge it. */
  async check(): Promise<void> {
    const pred = this.prediction();
    if (!pred || (this.input && !Number.isFinite(Number(pred)))) {
      this.feedback.textContent = t('prediction') + ' ?';
      (this.input ?? this.radios[0])?.focus();
      return;
    }
    this.progress.prediction = pred;
    this.ui('checking');
    this.committed.textContent = `${t('committed')}${pred}${this.ex.unit ? ` ${this.ex.unit}` : ''}`;
    this.feedback.textContent = t('measuring');
    try {
      const v = await this.client.check(this.lesson, this.ex.id, this.ex.kind === 'number' ? Number(pred) : pred);
      this.verdict = v;
      this.progress.attempts += 1;
      this.progress.measured = v.measurement.value ?? undefined;
      this.progress.status = v.correct ? 'right' : 'wrong';
      this.save();
      this.ui(this.progress.status);
      this.feedback.replaceChildren();
      const mark = el('strong', {}, v.correct ? `✓ ${t('right')}. ` : `✗ ${t('wrong')}. `);
      const text = el('span');
      setInlineMarkdown(text, fill(v.feedback, v.measurement.value));
      this.feedback.append(mark, text);
      if (v.correct) this.showExplain(v);
    } catch (e) {
      this.ui('open');
      this.feedback.textContent = e instanceof CheckPending ? `${t('pending')}: ${e.message}` : e instanceof Error ? e.message : String(e);
    }
  }

  tryAgain(): void {
    this.progress.status = 'open';
    this.save();
    this.ui('open');
    this.feedback.textContent = '';
    this.explain.replaceChildren();
    (this.input ?? this.radios[0])?.focus();
  }

  async showAnswer(): Promise<void> {
    if (this.progress.status !== 'shown') {
      this.progress.status = 'shown';
      this.save();
    }
    this.ui('shown');
    this.committed.textContent = this.progress.prediction ? `${t('committed')}${this.progress.prediction}` : '';
    let v = this.verdict;
    if (!v) {
      try {
        // a restored page: ask the engine again for the measured value and the explanation
        v = await this.client.check(this.lesson, this.ex.id, this.ex.kind === 'number' ? Number(this.progress.prediction) || 0 : this.progress.prediction);
        this.verdict = v;
      } catch (e) {
        this.explain.textContent = e instanceof CheckPending ? `${t('pending')}: ${e.message}` : e instanceof Error ? e.message : String(e);
        return;
      }
    }
    this.showExplain(v);
  }

  private showExplain(v: Verdict): void {
    this.explain.replaceChildren();
    const value = v.measurement.value;
    const measured = typeof value === 'number' ? formatNumber(value) : String(value ?? '');
    const line = el('p', { class: 'measured' }, `${t('measured')}: `, el('strong', {}, `${measured}${this.ex.unit ? ` ${this.ex.unit}` : ''}`));
    const text = el('div');
    setInlineMarkdown(text, fill(v.explain, value));
    this.explain.append(line, text);
  }
}

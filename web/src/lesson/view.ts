/**
 * The lesson view: a table of contents and the sections in order, each rendered from its
 * Markdown file in the page's language, with the directives filled by live components: a scene
 * card that puts its scene on the bench, an exercise card, a measured number. Sections are deep
 * links (`#<section-id>`); the view reports which section is being read.
 *
 * Rendering the sections (Markdown, KaTeX, sanitizing) and laying them out is the largest part
 * of the page's start-up after the WebGL context, and would hold back the first scene. So the
 * view renders the sections up to the one shown at once, and the rest in order while the page
 * is idle once asked to ([`LessonView.renderRest`], when the scene moves). Anything that needs a
 * section (scrolling it into view, a link to it, its first scene) renders it, and those before
 * it, on the spot. The rendered sections are always a prefix; one not rendered yet (class
 * `pending`) holds a screen's height.
 */
import { button, el } from '../ui/dom';
import { lang, pick, t } from '../ui/i18n';
import type { LessonClient } from './client';
import { ExerciseCard, formatNumber, statesNumber } from './exercise';
import { directives, sectionTitle } from './markdown';
import { PROGRESS_KEY, clearProgress, loadStatuses, tally } from './progress';
import { markdownFragment, setInlineMarkdown } from './sanitize';
import type { LessonFiles, LessonInfo } from './types';

export interface LessonViewEvents {
  openScene: (scene: string) => void;
  /** The section being read changed (scrolling). */
  section: (id: string) => void;
  /** The student asked for a section (table of contents). */
  navigate: (id: string) => void;
}

/** The element id of a section (also its URL hash). */
export function sectionAnchor(id: string): string {
  return id;
}

/** Input that means the student is scrolling by hand. */
const RELEASE_EVENTS = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

export class LessonView {
  readonly root: HTMLElement;
  private sceneCards = new Map<string, HTMLButtonElement[]>();
  /** Every section's element, rendered or not yet (empty). */
  private sections = new Map<string, HTMLElement>();
  /** How many sections, in order, are rendered. */
  private rendered = 0;
  private idle: number | null = null;
  private disposed = false;
  /** The scene on the bench, and the field links to add (both apply to sections rendered later). */
  private activeScene: string | null = null;
  private fieldLinks: { names: Set<string>; open: (field: string, row: number | null) => void } | null = null;
  /** Wide equations and tables scroll sideways: a scrolling region must be reachable by keyboard. */
  private readonly overflow = new ResizeObserver((entries) => {
    for (const e of entries) markScrollable(e.target as HTMLElement);
  });
  /** Renders a section when it comes into view before its turn. */
  private readonly reveal = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) this.renderUpTo((e.target as HTMLElement).dataset.section ?? '');
  });
  private observer: IntersectionObserver | null = null;
  /** The exercises in reading order (their numbers), and each section's. */
  private readonly exerciseOrder: string[] = [];
  private readonly sectionExercises = new Map<string, string[]>();
  /** The exercise cards rendered so far. */
  private readonly cards: ExerciseCard[] = [];
  /** Each section's progress mark in the contents, and the lesson's line below them. */
  private readonly tocMarks = new Map<string, HTMLElement>();
  private readonly progressLine = el('p', { class: 'lesson-progress' });
  private readonly startOverBtn = button(t('startOver'), { class: 'link-button' });
  /** Answers given in another tab of the lab show here too. */
  private readonly onStorage = (e: StorageEvent): void => {
    if (e.key !== PROGRESS_KEY && e.key !== null) return;
    for (const c of this.cards) c.reload();
    this.showProgress();
  };
  private current = '';
  /** A section just navigated to keeps the address until the student scrolls by hand. */
  private held = false;
  private readonly release = (): void => {
    this.held = false;
  };

  constructor(
    host: HTMLElement,
    private readonly lessonId: string,
    private readonly info: LessonInfo,
    private readonly files: LessonFiles,
    private readonly client: LessonClient,
    private readonly events: LessonViewEvents,
    /** The section the page shows first (rendered with those before it before this returns). */
    shown: string | null = null,
  ) {
    this.root = el('div', { class: 'lesson-view' });
    const title = el('h2', { class: 'lesson-title' }, pick(info.title));
    const nav = el('nav', { class: 'toc', 'aria-label': t('contents') });
    const details = el('details', { class: 'toc-box', open: '' }, el('summary', {}, t('contents')));
    const list = el('ol');
    const body = el('div', { class: 'sections' });
    const known = new Set(info.exercises.map((e) => e.id));
    let selfNumbered = info.sections.length > 0;
    for (const s of info.sections) {
      const src = this.text(s.id);
      const placed = directives(src)
        .filter((d) => d.kind === 'exercise' && known.has(d.id) && !this.exerciseOrder.includes(d.id))
        .map((d) => d.id);
      this.exerciseOrder.push(...placed);
      if (placed.length) this.sectionExercises.set(s.id, placed);
      const heading = pick(s.title) || sectionTitle(src) || s.id;
      selfNumbered &&= /^\d+[.)、．]/.test(heading);
      const a = el('a', { href: `#${encodeURIComponent(sectionAnchor(s.id))}` }, heading);
      a.addEventListener('click', (ev) => {
        ev.preventDefault();
        this.goTo(s.id);
        this.events.navigate(s.id);
      });
      const mark = el('span', { class: 'toc-progress' });
      this.tocMarks.set(s.id, mark);
      list.append(el('li', {}, a, mark));
      const sec = el('section', { id: sectionAnchor(s.id), class: 'lesson-section pending', tabindex: '-1', 'data-section': s.id });
      this.sections.set(s.id, sec);
      body.append(sec);
      this.reveal.observe(sec);
    }
    // titles that carry their own numbers ("1. skin, flex…") are not numbered twice
    if (selfNumbered) list.classList.add('self-numbered');
    details.append(list);
    if (this.exerciseOrder.length) {
      this.startOverBtn.addEventListener('click', () => this.startOver());
      details.append(el('div', { class: 'lesson-progress-row' }, this.progressLine, this.startOverBtn));
      this.showProgress();
      window.addEventListener('storage', this.onStorage);
    }
    nav.append(details);
    this.root.append(title);
    if (info.errors.length) {
      const box = el('div', { class: 'message error lesson-errors', role: 'alert' }, `${t('lessonProblems')}:`);
      const ul = el('ul');
      for (const d of info.errors) ul.append(el('li', {}, `${d.file}:${d.line}: ${d.message}`));
      box.append(ul);
      this.root.append(box);
    }
    this.root.append(nav, body);
    host.append(this.root);
    this.watch();
    this.renderUpTo((shown && this.sections.has(shown) ? shown : null) ?? info.sections[0]?.id ?? '');
  }

  /** Whether every section is rendered. */
  get complete(): boolean {
    return this.rendered === this.info.sections.length;
  }

  /** Renders the sections up to and including `id` (none for an id that is not a section). */
  private renderUpTo(id: string): void {
    const at = this.info.sections.findIndex((s) => s.id === id);
    while (this.rendered <= at) this.renderNext();
  }

  private renderNext(): void {
    const id = this.info.sections[this.rendered].id;
    this.rendered++;
    const sec = this.sections.get(id) as HTMLElement;
    this.reveal.unobserve(sec);
    sec.classList.remove('pending');
    this.renderSection(id, this.text(id));
  }

  /**
   * Renders the sections not rendered yet, in order, one per idle period from now on. A page
   * that is never idle (a heavy scene in a slow browser) still gets one each second.
   */
  renderRest(): void {
    if (this.disposed || this.complete || this.idle !== null) return;
    const run = () => {
      this.idle = null;
      if (this.disposed || this.complete) return;
      this.renderNext();
      this.renderRest();
    };
    this.idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: 1000 }) : window.setTimeout(run, 0);
  }

  /** A section's Markdown in the page's language, from the engine's bundle. */
  private text(section: string): string {
    const s = this.info.sections.find((x) => x.id === section);
    return pick(s?.markdown) || this.files.find(([p]) => p === `text/${section}.${lang()}.md`)?.[1] || '';
  }

  private renderSection(id: string, src: string): void {
    const sec = this.sections.get(id) as HTMLElement;
    sec.append(markdownFragment(src));
    for (const table of Array.from(sec.querySelectorAll('table'))) {
      const wrap = el('div', { class: 'table-scroll' });
      table.replaceWith(wrap);
      wrap.append(table);
    }
    const h = sec.querySelector('h2');
    if (h) {
      h.id = `${id}-title`;
      sec.setAttribute('aria-labelledby', h.id);
    }
    for (const d of Array.from(sec.querySelectorAll<HTMLElement>('div.directive'))) {
      const kind = d.dataset.directive;
      const ref = d.dataset.id ?? '';
      if (kind === 'scene') d.replaceWith(this.sceneCard(ref));
      else if (kind === 'exercise') d.replaceWith(this.exerciseCard(ref));
      else if (kind === 'measure') d.replaceWith(this.measureCard(ref));
    }
    if (this.fieldLinks) this.addFieldLinks(sec, this.fieldLinks.names, this.fieldLinks.open);
    this.overflow.observe(sec);
  }

  private sceneCard(sceneId: string): HTMLElement {
    const scene = this.info.scenes.find((s) => s.id === sceneId);
    const title = scene ? pick(scene.title) : `${t('unknownScene')} '${sceneId}'`;
    const open = button(t('openScene'), { class: 'primary', 'aria-label': `${t('openScene')}: ${title}` });
    open.addEventListener('click', () => this.events.openScene(sceneId));
    const list = this.sceneCards.get(sceneId) ?? [];
    list.push(open);
    this.sceneCards.set(sceneId, list);
    const card = el('figure', { class: 'scene-card', 'data-scene': sceneId }, el('figcaption', {}, `${t('scene')}: ${title}`), open);
    showActive(open, sceneId === this.activeScene);
    return card;
  }

  private exerciseCard(exId: string): HTMLElement {
    const ex = this.info.exercises.find((e) => e.id === exId);
    if (!ex) return el('p', { class: 'message error' }, `exercise '${exId}'?`);
    const n = this.exerciseOrder.indexOf(exId);
    const card = new ExerciseCard(
      this.lessonId,
      ex,
      this.client,
      (s) => this.events.openScene(s),
      n < 0 ? null : n + 1,
      () => this.showProgress(),
    );
    this.cards.push(card);
    return card.root;
  }

  /** The contents' marks (right/total per section, ✓ when all are right) and the lesson's line. */
  private showProgress(): void {
    // one read of the stored progress for the whole contents
    const stored = loadStatuses(this.lessonId, this.exerciseOrder);
    const status = new Map(this.exerciseOrder.map((id, i) => [id, stored[i]]));
    for (const [section, ids] of this.sectionExercises) {
      const mark = this.tocMarks.get(section);
      if (!mark) continue;
      const s = tally(ids.map((id) => status.get(id) ?? null));
      const done = s.right === s.total;
      const said = t('sectionProgress', { right: s.right, total: s.total });
      // the mark is for the eye; a screen reader hears the sentence
      mark.replaceChildren(el('span', { 'aria-hidden': 'true' }, done ? '✓' : `${s.right}/${s.total}`), el('span', { class: 'visually-hidden' }, said));
      mark.classList.toggle('done', done);
      mark.title = said;
    }
    const all = tally(stored);
    this.progressLine.textContent = t('lessonProgress', { right: all.right, total: all.total }) + (all.shown ? t('answersShown', { shown: all.shown }) : '');
    this.startOverBtn.hidden = all.started === 0;
  }

  /** Forgets the student's answers to this lesson's exercises, once they confirm. */
  private startOver(): void {
    if (!window.confirm(t('startOverConfirm'))) return;
    clearProgress(this.lessonId);
    for (const c of this.cards) c.reload(true);
    this.showProgress();
  }

  /** "Textbook says X, the engine measures Y": the number comes from the engine, on view. */
  private measureCard(id: string): HTMLElement {
    const info = this.info.measurements.find((m) => m.id === id);
    const unit = info?.unit ? ` ${info.unit}` : '';
    const value = el('strong', {}, '…');
    const card = el('aside', { class: 'measure-card', 'data-measure': id, 'aria-label': `${t('measure')} · ${id}` });
    if (info) {
      const cap = el('p', { class: 'caption' });
      setInlineMarkdown(cap, pick(info.caption));
      card.append(cap);
      if (info.textbook) {
        const tb = el('p', { class: 'textbook' }, el('span', { class: 'tag' }, `${t('textbook')}: `));
        const txt = el('span');
        setInlineMarkdown(txt, pick(info.textbook.text));
        tb.append(txt);
        // the author's sentence usually states the number already; add it only when it does not
        const tv = info.textbook.value;
        if (typeof tv === 'number' && !statesNumber(pick(info.textbook.text), tv)) tb.append(` (${formatNumber(tv)}${unit})`);
        card.append(tb);
      }
    }
    card.append(el('p', { class: 'engine', role: 'status' }, el('span', { class: 'tag' }, `${t('measured')}: `), value));
    let asked = false;
    const ask = () => {
      if (asked) return;
      asked = true;
      value.textContent = t('measuring');
      this.client
        .measure(this.lessonId, id)
        .then((m) => {
          if (m.pending) value.textContent = `${t('pending')}: ${m.pending}`;
          else value.textContent = typeof m.value === 'number' ? `${formatNumber(m.value)}${unit}` : String(m.value ?? '');
        })
        .catch((e: unknown) => {
          value.textContent = e instanceof Error ? e.message : String(e);
        });
    };
    if ('IntersectionObserver' in window) {
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          io.disconnect();
          ask();
        }
      });
      io.observe(card);
    } else ask();
    return card;
  }

  /**
   * Turns inline code naming a MuJoCo field (`flex_vertadr`, `qfrc_passive[0]`) into a button
   * that opens that field in the inspector, so every name in the text leads to its numbers.
   */
  linkFields(names: Set<string>, open: (field: string, row: number | null) => void): void {
    this.fieldLinks = { names, open };
    for (const sec of this.sections.values()) this.addFieldLinks(sec, names, open);
  }

  private addFieldLinks(sec: HTMLElement, names: Set<string>, open: (field: string, row: number | null) => void): void {
    for (const code of Array.from(sec.querySelectorAll<HTMLElement>('code'))) {
      if (code.closest('pre, button')) continue;
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?(?:\.[xyz])?$/.exec(code.textContent ?? '');
      if (!m || !names.has(m[1])) continue;
      const row = m[2] === undefined ? null : Number(m[2]);
      const b = button('', { class: 'field-link', 'aria-label': `${code.textContent}: ${t('openField')}` });
      code.replaceWith(b);
      b.append(code);
      b.addEventListener('click', () => open(m[1], row));
    }
  }

  /** Marks the scene cards of `sceneId` as the one on the bench. */
  setActiveScene(sceneId: string | null): void {
    this.activeScene = sceneId;
    for (const [id, buttons] of this.sceneCards) for (const b of buttons) showActive(b, id === sceneId);
  }

  /** Scrolls to a section (deep link) and gives it focus for keyboard and screen readers. */
  goTo(id: string): boolean {
    const s = this.sections.get(id);
    if (!s) return false;
    this.renderUpTo(id);
    s.scrollIntoView({ block: 'start' });
    s.focus({ preventScroll: true });
    this.current = id;
    this.held = true;
    return true;
  }

  /** The first scene a section shows, if any. */
  firstScene(section: string): string | null {
    this.renderUpTo(section);
    const card = this.sections.get(section)?.querySelector<HTMLElement>('[data-scene]');
    if (card?.dataset.scene) return card.dataset.scene;
    return this.info.exercises.find((e) => e.section === section)?.scene ?? null;
  }

  get section(): string {
    return this.current;
  }

  private watch(): void {
    if (!('IntersectionObserver' in window)) return;
    this.observer = new IntersectionObserver(
      () => {
        if (this.held) return;
        // the current section is the one under a line just below the top of the view: a
        // section that merely ends where the next begins must not steal the address; at the
        // end of the page, a last section too short to reach the top counts once it is in view
        const probe = 4;
        let id: string | undefined;
        let last: HTMLElement | undefined;
        for (const s of this.sections.values()) {
          const r = s.getBoundingClientRect();
          if (r.top <= probe && r.bottom > probe) id = s.dataset.section;
          last = s;
        }
        if (last) {
          const r = last.getBoundingClientRect();
          if (r.bottom <= window.innerHeight + 2 && r.top < 0.7 * window.innerHeight) id = last.dataset.section;
        }
        if (id && id !== this.current) {
          this.current = id;
          this.events.section(id);
        }
      },
      // a thin band at the top: the callback runs as sections cross it
      { rootMargin: '0px 0px -90% 0px' },
    );
    for (const s of this.sections.values()) this.observer.observe(s);
    // the student scrolling by hand releases a section reached through a link
    for (const ev of RELEASE_EVENTS) window.addEventListener(ev, this.release, { passive: true });
  }

  dispose(): void {
    this.disposed = true;
    if (this.idle !== null) {
      if (typeof cancelIdleCallback === 'function') cancelIdleCallback(this.idle);
      else window.clearTimeout(this.idle);
    }
    this.overflow.disconnect();
    this.reveal.disconnect();
    this.observer?.disconnect();
    for (const ev of RELEASE_EVENTS) window.removeEventListener(ev, this.release);
    window.removeEventListener('storage', this.onStorage);
    this.root.remove();
  }
}

/** A scene card's button says whether its scene is on the bench. */
function showActive(b: HTMLButtonElement, on: boolean): void {
  b.closest('figure')?.classList.toggle('active', on);
  b.textContent = on ? `✓ ${t('onBench')}` : t('openScene');
}

/** Makes the wide equations and tables of a laid-out section focusable, and the others not. */
function markScrollable(sec: HTMLElement): void {
  for (const m of Array.from(sec.querySelectorAll<HTMLElement>('.math-display, .table-scroll'))) {
    if (m.scrollWidth > m.clientWidth + 1) {
      m.tabIndex = 0;
      m.setAttribute('role', 'group');
      m.setAttribute('aria-label', m.classList.contains('math-display') ? t('equation') : t('table'));
    } else {
      m.removeAttribute('tabindex');
      m.removeAttribute('role');
      m.removeAttribute('aria-label');
    }
  }
}

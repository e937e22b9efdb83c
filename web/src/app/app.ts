/**
 * The page: the lesson beside the bench, and the state that ties them to the URL. It decides
 * what is on the bench (a lesson scene with parameters, a scene file, or the sandbox model),
 * wires the instruments to the viewer, and keeps the address bar a faithful copy of what the
 * student sees, so a copied link restores it.
 */
import { dropUntaken } from '../boot';
import type { ModelFiles } from '../engine/flexlab';
import { LessonApiMissing, LessonClient } from '../lesson/client';
import { lessonBundle, lessonIds, lessonTitle, sceneFile, type LessonBundle } from '../lesson/bundle';
import type { LessonInfo, PreparedScene, SceneInfo } from '../lesson/types';
import { LessonView } from '../lesson/view';
import type { LoadedScene } from '../sim/client';
import type { ParamValue } from '../sim/protocol';
import { Bench } from '../ui/bench';
import { ControlPanel } from '../ui/controls';
import { button, el } from '../ui/dom';
import { pick, setLang, t } from '../ui/i18n';
import { Inspector } from '../ui/inspector';
import { ParamPanel, parseParam } from '../ui/params';
import { Plots } from '../ui/plots';
import { MAX_MJCF_BYTES, Sandbox } from '../ui/sandbox';
import { VIEW_OPTION_KEYS, type ViewOptions } from '../view/viewer';
import { formatUrl, packText, parseUrl, unpackText, type UrlState } from './url';

/** The scene file shown when the page names nothing else. */
const DEFAULT_SCENE = 'lessons/b6-flex/scenes/cable.xml';
/** Sandbox models up to this size travel inside the link; larger ones stay in this browser. */
const MAX_LINK_MJCF = 12_000;
const SANDBOX_KEY = 'flexlab.sandbox.v1';

/** A scene asked of the engines before the page needs it: prepared, and compiling once prepared. */
interface EarlyScene {
  scene: string;
  prepared: Promise<PreparedScene>;
  compiled: Promise<LoadedScene> | null;
}

/** What is on the bench. */
type Source =
  | { kind: 'lesson'; lesson: string; scene: string; params: Record<string, ParamValue> }
  | { kind: 'file'; path: string }
  | { kind: 'sandbox'; xml: string; packed: string | null };

export class App {
  readonly bench: Bench;
  readonly inspector: Inspector;
  readonly plots: Plots;
  readonly params: ParamPanel;
  readonly controls: ControlPanel;
  readonly sandbox: Sandbox;
  private lessons: LessonClient | null = null;
  /** The lesson the URL opens, asked of the lesson worker as soon as the page starts. */
  private opening: { id: string; info: Promise<LessonInfo> } | null = null;
  private lesson: { id: string; info: LessonInfo; bundle: LessonBundle; view: LessonView } | null = null;
  private source: Source | null = null;
  private url: UrlState;
  private lessonPane: HTMLElement;
  private langLink: HTMLAnchorElement;
  private copyNote: HTMLElement;
  private urlTimer: number | undefined;
  private fieldsLinked = false;
  /** Set once the first scene is up (tests wait on it). */
  started = false;

  constructor(root: HTMLElement) {
    this.url = parseUrl(location.href);
    setLang(this.url.lang);
    // the lesson worker loads the engine and opens the lesson while this thread builds the page
    const first = this.firstLesson();
    if (first) {
      this.lessons = new LessonClient();
      const info = this.lessons.open(first.id, first.compiled);
      info.catch(() => undefined); // openLesson reports it
      this.opening = { id: first.id, info };
    }
    document.title = t('appTitle');

    const skip = el('a', { href: '#bench', class: 'skip-link' }, t('skip'));
    const header = el('header', { class: 'top' });
    const title = el('h1', {}, t('appTitle'));
    this.langLink = el('a', { class: 'lang', href: '?', lang: this.url.lang === 'zh' ? 'en' : 'zh-Hans', 'aria-label': t('languageName') }, t('language'));
    const copy = button(t('copyLink'));
    this.copyNote = el('span', { class: 'copy-note', role: 'status' });
    const tools = el('div', { class: 'header-tools' }, copy, this.copyNote, this.langLink);
    header.append(title, tools);
    const main = el('main', { class: 'layout' });
    this.lessonPane = el('article', { class: 'lesson', 'aria-label': t('lesson') });
    const benchPane = el('div', { class: 'bench-pane' });
    main.append(this.lessonPane, benchPane);
    root.append(skip, header, main);

    this.bench = new Bench(benchPane);
    this.params = new ParamPanel(this.bench.panels, (values, changed) => void this.changeParams(values, changed));
    this.controls = new ControlPanel(this.bench.panels, this.bench.sim);
    this.inspector = new Inspector(this.bench.panels, this.bench.sim);
    this.plots = new Plots(this.bench.panels);
    this.sandbox = new Sandbox(this.bench.panels, (xml, files) => void this.loadSandbox(xml, files));

    copy.addEventListener('click', () => void this.copyLink());
    this.bench.onLoaded((s) => {
      this.controls.setScene(s);
      this.inspector.setScene(s.fields, s.info.sizes, s.topology, s.info.options.sparse);
      this.plots.setSensors(s.topology.sensors);
      if (this.lesson && !this.fieldsLinked) {
        this.fieldsLinked = true;
        this.lesson.view.linkFields(new Set([...s.fields.model, ...s.fields.data, 'contact']), (name, row) => {
          // once open, and again once its values are in (they set its height)
          const shown = this.inspector.show(name, row ?? 0);
          this.inspector.reveal();
          void shown.then(() => this.inspector.reveal());
        });
      }
    });
    this.bench.onFrame((d, s) => {
      this.controls.sync(d, s);
      this.plots.push(s.time, s.probe, s.ncon);
    });
    this.bench.onReset(() => this.plots.clear());
    this.plots.onSensorWindow((from) => this.bench.sim.sensorWindow(from));
    this.bench.onOptions(() => this.syncUrl());
    this.bench.viewer.onCameraChange(() => this.syncUrl(400));
    this.inspector.onSelect((sel) => {
      const v = this.bench.viewer;
      let vertex = sel?.kind === 'vertex' ? sel.row : -1;
      if (sel?.kind === 'contact') {
        // mjContact.vert is the vertex id within its flex (MuJoCo's layout): make it global
        const flexes = this.bench.scene?.topology.flexes ?? [];
        for (const k of [1, 0]) {
          const f = sel.values[9 + k];
          const vert = sel.values[13 + k];
          if (f >= 0 && vert >= 0 && flexes[f]) vertex = flexes[f].vertadr + vert;
        }
      }
      v.highlightVertexId(vertex);
      v.highlightEdgeId(sel?.kind === 'edge' ? sel.row : -1);
      v.highlightGeomId(sel?.kind === 'geom' ? sel.row : -1);
      this.bench.sim.probeEdge(sel?.kind === 'edge' ? sel.row : -1);
    });
    window.addEventListener('hashchange', () => {
      const id = decodeURIComponent(location.hash.slice(1));
      if (this.lesson && this.lesson.view.goTo(id)) void this.openSection(id);
    });
  }

  /** Whether the lesson's text is rendered to its end (it renders while the page is idle). */
  get lessonComplete(): boolean {
    return this.lesson?.view.complete ?? true;
  }

  /**
   * The lesson the URL opens, if any: the one it names, else the first lesson unless the link
   * shows a model of its own (the sandbox or a scene file). A link naming a lesson or a scene
   * that does not exist (mistyped, or from an older lab) opens the first lesson; `start` says so.
   */
  private firstLesson(): LessonBundle | null {
    const u = this.url;
    const named = u.lesson === null ? undefined : lessonBundle(u.lesson);
    if (named) return named;
    if (u.scene !== null && this.linkedFile()) return null;
    const first = lessonIds()[0];
    return (first && lessonBundle(first)) || null;
  }

  /** Whether the link's scene is the sandbox or a scene file (not a lesson's scene id). */
  private linkedFile(): boolean {
    const s = this.url.scene;
    return s === 'sandbox' || (s !== null && sceneFile(s) !== undefined);
  }

  /** The lesson scene the link names, if the lesson has it. */
  private linkedScene(info: LessonInfo): SceneInfo | undefined {
    const s = this.url.scene;
    return s === null ? undefined : info.scenes.find((x) => x.id === s);
  }

  /** Loads what the URL names. */
  async start(): Promise<void> {
    performance.mark('flexlab:start');
    const u = this.url;
    const wanted = this.firstLesson();
    let early = null as EarlyScene | null;
    if (wanted) {
      await this.openLesson(wanted, async (info) => {
        early = await this.startEarly(wanted.id, info);
      });
    }
    if (u.scene === 'sandbox') {
      await this.startSandbox(u.mjcf);
    } else if (this.lesson && !this.linkedFile()) {
      const named = this.linkedScene(this.lesson.info);
      const section = u.section && this.lesson.view.goTo(u.section) ? u.section : null;
      // (a hash may also name a place on the page, as the skip link's #bench)
      if (u.section && !section && !document.getElementById(u.section)) this.notice(t('unknownSection', { section: u.section }));
      const scene = named?.id ?? (section ? this.lesson.view.firstScene(section) : null) ?? this.lesson.info.scenes[0]?.id ?? null;
      if (scene) await this.openScene(scene, named ? u.params : {}, early?.scene === scene ? early : undefined);
      if (u.scene !== null && !named) this.bench.showMessage(t('unknownSceneShown', { scene: u.scene }), 'warn');
    } else {
      await this.openFile(u.scene ?? DEFAULT_SCENE);
    }
    if (u.lesson !== null && u.lesson !== wanted?.id) this.notice(t('unknownLesson', { lesson: u.lesson }));
    else if (!this.lesson && !this.lessonPane.childElementCount) this.notice(t('noLessons'));
    dropUntaken();
    if (u.cam) this.bench.viewer.setCameraState(u.cam);
    if (u.show) this.applyShow(u.show);
    this.started = true;
    this.syncUrl();
    // the rest of the lesson text renders once the scene moves (it would hold back its first frame)
    const view = this.lesson?.view;
    if (view) void this.bench.moving().then(() => view.renderRest());
  }

  /**
   * The scene the link opens, when the lesson's information alone names it (a section in the
   * link needs the text): prepared, then sent to the physics worker to compile while this thread
   * builds the lesson text, which waits only for the preparation.
   */
  private async startEarly(lesson: string, info: LessonInfo): Promise<EarlyScene | null> {
    const u = this.url;
    if (this.linkedFile() || !this.lessons) return null;
    const named = this.linkedScene(info);
    const scene = named ?? (u.section ? undefined : info.scenes[0]);
    if (!scene) return null;
    const prepared = this.lessons.prepare(lesson, scene.id, sceneParams(scene, named ? u.params : {}));
    const p = await prepared.catch(() => null); // openScene reports a failure
    const compiled = p ? this.bench.sim.load(p.xml, p.files, p.elastic3d) : null;
    compiled?.catch(() => undefined); // so does the load that takes it
    return { scene: scene.id, prepared, compiled };
  }

  private applyShow(show: string[]): void {
    const o: Partial<ViewOptions> = {};
    for (const k of VIEW_OPTION_KEYS) o[k] = show.includes(k);
    this.bench.setViewOptions(o);
  }

  /** Opens a lesson and shows its text; `opened` runs once its information is known. */
  private async openLesson(bundle: LessonBundle, opened?: (info: LessonInfo) => Promise<void>): Promise<void> {
    const id = bundle.id;
    this.lessons ??= new LessonClient();
    const pending = this.opening?.id === id ? this.opening.info : null;
    this.opening = null;
    try {
      const info = await (pending ?? this.lessons.open(id, bundle.compiled));
      performance.mark('flexlab:lesson-info');
      await opened?.(info);
      this.lessonPane.replaceChildren();
      const view = new LessonView(this.lessonPane, id, info, bundle.files, this.lessons, {
        openScene: (scene) => void this.openScene(scene, {}),
        section: () => this.syncUrl(200),
        navigate: (section) => void this.openSection(section),
      }, this.url.section);
      this.lesson = { id, info, bundle, view };
      performance.mark('flexlab:lesson-view');
    } catch (e) {
      this.notice(e instanceof LessonApiMissing ? t('lessonEngineMissing') : `${t('lessonError')}:\n${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /**
   * A note in the lesson pane: above the lesson if one is shown, else in its place with links
   * to the lessons there are.
   */
  private notice(text: string): void {
    const note = el('p', { class: 'notice', role: 'note' }, text);
    if (this.lesson) {
      this.lessonPane.prepend(note);
      return;
    }
    this.lessonPane.replaceChildren(note);
    const ids = lessonIds();
    if (!ids.length) return;
    const list = el('ul', { class: 'lesson-links' });
    for (const id of ids) {
      const q = new URLSearchParams({ lesson: id });
      if (this.url.lang === 'en') q.set('lang', 'en');
      list.append(el('li', {}, el('a', { href: `?${q.toString()}` }, pick(lessonTitle(id)) || id)));
    }
    this.lessonPane.append(el('p', {}, t('lessonsHere')), list);
  }

  /** Navigating to a section (table of contents, deep link) puts its first scene on the bench. */
  private async openSection(id: string): Promise<void> {
    const scene = this.lesson?.view.firstScene(id);
    if (scene && !(this.source?.kind === 'lesson' && this.source.scene === scene)) await this.openScene(scene, {});
    this.syncUrl();
  }

  private sceneInfo(id: string): SceneInfo | undefined {
    return this.lesson?.info.scenes.find((s) => s.id === id);
  }

  /**
   * Puts a lesson scene on the bench with parameter values (text from the URL, or typed);
   * `early` is that scene with these values, if already asked for.
   */
  async openScene(sceneId: string, raw: Record<string, string | ParamValue>, early?: EarlyScene): Promise<boolean> {
    const l = this.lesson;
    const scene = this.sceneInfo(sceneId);
    if (!l || !scene || !this.lessons) return false;
    const params = sceneParams(scene, raw);
    this.params.set(scene.params, { ...defaults(scene), ...params });
    this.bench.setTitle(pick(scene.title));
    let ok = false;
    try {
      const prepared = await (early?.prepared ?? this.lessons.prepare(l.id, sceneId, params));
      performance.mark('flexlab:scene-prepared');
      ok = await this.bench.load(prepared.xml, prepared.files, prepared.elastic3d, { compiled: early?.compiled ?? undefined });
      if (!ok) this.params.showError(this.bench.state.error);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.params.showError(msg);
      this.bench.showMessage(`${t('compileError')}:\n${msg}`, 'error');
    }
    if (ok || !this.source || this.source.kind !== 'lesson' || this.source.scene !== sceneId) {
      this.source = { kind: 'lesson', lesson: l.id, scene: sceneId, params };
    }
    if (ok) {
      if (scene.camera) this.bench.viewer.setMjCamera(scene.camera);
      if (scene.show) this.applyShow(scene.show);
    }
    l.view.setActiveScene(sceneId);
    this.syncUrl();
    return ok;
  }

  /** A parameter changed: the engine prepares the scene again and the bench recompiles it. */
  private async changeParams(values: Record<string, ParamValue>, _changed: string): Promise<void> {
    const l = this.lesson;
    const src = this.source;
    if (!l || !this.lessons || !src || src.kind !== 'lesson') return;
    const scene = this.sceneInfo(src.scene);
    const params: Record<string, ParamValue> = {};
    for (const [k, v] of Object.entries(values)) if (scene && v !== defaults(scene)[k]) params[k] = v;
    src.params = params;
    this.syncUrl();
    try {
      const prepared = await this.lessons.prepare(l.id, src.scene, params);
      // a scene paused by its divergence was running: the change is the student's fix, so it runs
      const wasRunning = this.bench.state.running || !this.bench.state.loaded || this.bench.state.diverged !== null;
      const ok = await this.bench.load(prepared.xml, prepared.files, prepared.elastic3d, { keepCamera: true, autoplay: wasRunning });
      this.params.showError(ok ? null : this.bench.state.error);
    } catch (e) {
      this.params.showError(e instanceof Error ? e.message : String(e));
    }
  }

  async openFile(path: string): Promise<boolean> {
    const xml = sceneFile(path);
    this.params.set([], {});
    this.bench.setTitle(path.split('/').pop() ?? path);
    if (!xml) {
      this.bench.showMessage(`${t('unknownScene')} '${path}'`, 'error');
      return false;
    }
    this.source = { kind: 'file', path };
    this.lesson?.view.setActiveScene(null);
    const ok = await this.bench.load(xml);
    this.syncUrl();
    return ok;
  }

  private async startSandbox(packed: string | null): Promise<void> {
    let xml = '';
    try {
      if (packed) xml = await unpackText(packed, MAX_MJCF_BYTES);
      else xml = localStorage.getItem(SANDBOX_KEY) ?? '';
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      this.bench.showMessage(packed ? `${t('badLinkModel')}:\n${why}` : why, 'error');
    }
    this.sandbox.open();
    if (xml && new TextEncoder().encode(xml).length <= MAX_MJCF_BYTES) {
      this.sandbox.setText(xml);
      await this.loadSandbox(xml);
    } else {
      this.bench.setTitle(t('sandbox'));
      this.params.set([], {});
      this.bench.showEmpty();
    }
  }

  /**
   * The student's own model, with the files it includes or reads: compiled on the bench; the
   * link carries the model when small, never the files.
   */
  async loadSandbox(xml: string, files: ModelFiles = []): Promise<boolean> {
    this.params.set([], {});
    this.bench.setTitle(t('sandbox'));
    this.lesson?.view.setActiveScene(null);
    this.sandbox.open();
    const ok = await this.bench.load(xml, files);
    // MuJoCo's message names the file; the sandbox says how to give it
    if (!ok && /Error opening file/.test(this.bench.state.error ?? '')) this.sandbox.say(t('missingFiles'));
    let packed: string | null = null;
    try {
      localStorage.setItem(SANDBOX_KEY, xml);
    } catch {
      // storage full or off: the link may still carry the model
    }
    try {
      const p = await packText(xml);
      packed = p.length <= MAX_LINK_MJCF ? p : null;
    } catch {
      packed = null;
    }
    this.source = { kind: 'sandbox', xml, packed };
    this.syncUrl();
    return ok;
  }

  /** The state as a URL. */
  currentUrl(): string {
    const s = this.source;
    const show = VIEW_OPTION_KEYS.filter((k) => this.bench.viewer.getOptions()[k]);
    const state: UrlState = {
      lang: this.url.lang,
      lesson: this.lesson?.id ?? null,
      section: this.lesson?.view.section || null,
      scene: s?.kind === 'lesson' ? s.scene : s?.kind === 'file' ? s.path : s?.kind === 'sandbox' ? 'sandbox' : null,
      params: {},
      cam: this.bench.state.loaded ? this.bench.viewer.cameraState() : null,
      show,
      mjcf: s?.kind === 'sandbox' ? s.packed : null,
    };
    if (s?.kind === 'lesson') for (const [k, v] of Object.entries(s.params)) state.params[k] = String(v);
    return formatUrl(state, location.href);
  }

  /** Writes the state into the address bar (debounced for camera moves). */
  syncUrl(delay = 0): void {
    window.clearTimeout(this.urlTimer);
    const write = () => {
      const href = this.currentUrl();
      if (href !== location.href) history.replaceState(null, '', href);
      const other = new URL(href);
      if (this.url.lang === 'en') other.searchParams.delete('lang');
      else other.searchParams.set('lang', 'en');
      this.langLink.href = other.toString();
    };
    if (delay > 0) this.urlTimer = window.setTimeout(write, delay);
    else write();
  }

  private async copyLink(): Promise<void> {
    this.syncUrl();
    try {
      await navigator.clipboard.writeText(location.href);
      this.copyNote.textContent = t('copied');
    } catch {
      this.copyNote.textContent = location.href;
    }
  }
}

/** The values of a scene's parameters given as text (a link) or typed; unknown names are dropped. */
function sceneParams(scene: SceneInfo, raw: Record<string, string | ParamValue>): Record<string, ParamValue> {
  const params: Record<string, ParamValue> = {};
  for (const p of scene.params) {
    const r = raw[p.name];
    const v = typeof r === 'string' ? parseParam(p, r) : r ?? null;
    if (v !== null && v !== undefined) params[p.name] = v;
  }
  return params;
}

function defaults(scene: SceneInfo): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const p of scene.params) if (p.default !== undefined) out[p.name] = p.default;
  return out;
}

/**
 * The page's side of the lesson worker: typed promises over its messages. A worker that dies is
 * restarted; the lessons it had open are opened again on the next call.
 */
import { takeWorker } from '../boot';
import type { ParamValue } from '../sim/protocol';
import type { LessonFromWorker, LessonToWorker } from './protocol';
import type { LessonInfo, Measurement, PreparedScene, Verdict } from './types';

/** Thrown when this engine build has no wasm `Lesson` API. */
export class LessonApiMissing extends Error {
  constructor() {
    super('LESSON_API_MISSING');
  }
}

/** Thrown when a check needs an engine feature flexlab does not have yet (the engine's words). */
export class CheckPending extends Error {}

type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

export class LessonClient {
  private worker: Worker;
  private next = 1;
  private waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private opened = new Map<string, string>();

  constructor() {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const w = takeWorker('lesson') ?? new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (ev: MessageEvent<LessonFromWorker>) => {
      const m = ev.data;
      const p = this.waiting.get(m.id);
      if (!p) return;
      this.waiting.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else if (m.error === 'LESSON_API_MISSING') p.reject(new LessonApiMissing());
      else if (m.error.startsWith('PENDING:')) p.reject(new CheckPending(m.error.slice('PENDING:'.length)));
      else p.reject(new Error(m.error));
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      const err = new Error(ev.message || 'lesson worker failed');
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
      w.terminate();
      this.worker = this.spawn();
      const again = [...this.opened];
      this.opened.clear();
      for (const [lesson, compiled] of again) void this.open(lesson, compiled).catch(() => undefined);
    };
    return w;
  }

  private call<T>(msg: Distribute<LessonToWorker>): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...msg, id } as LessonToWorker);
    });
  }

  /** Opens a compiled lesson (web/src/lesson/bundle.ts) in the worker. */
  async open(lesson: string, compiled: string): Promise<LessonInfo> {
    const info = await this.call<LessonInfo>({ type: 'open', lesson, compiled });
    this.opened.set(lesson, compiled);
    return info;
  }

  prepare(lesson: string, scene: string, params: Record<string, ParamValue>): Promise<PreparedScene> {
    return this.call<PreparedScene>({ type: 'prepare', lesson, scene, params });
  }

  check(lesson: string, exercise: string, answer: number | string): Promise<Verdict> {
    return this.call<Verdict>({ type: 'check', lesson, exercise, answer });
  }

  measure(lesson: string, exercise: string): Promise<Measurement> {
    return this.call<Measurement>({ type: 'measure', lesson, exercise });
  }
}

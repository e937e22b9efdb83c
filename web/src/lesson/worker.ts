/// <reference lib="webworker" />
/**
 * The lesson worker: opens lessons in the engine, prepares scenes with parameters, and runs the
 * exercises' measured checks (seconds of simulation) off the main thread and off the bench's
 * physics worker, so the page and the live scene keep going while the engine judges.
 */
import { loadEngine } from '../engine/flexlab';
import { lessonsAvailable, openLesson, type LessonEngine } from './adapter';
import type { LessonFromWorker, LessonToWorker } from './protocol';
import type { Measurement } from './types';

declare const self: DedicatedWorkerGlobalScope;

const open = new Map<string, LessonEngine>();
/** Measured checks are deterministic: each runs once per page, every attempt is judged on it. */
const measured = new Map<string, Measurement>();

function measurement(lessonId: string, id: string): Measurement {
  const key = `${lessonId}\u0000${id}`;
  let m = measured.get(key);
  if (!m) {
    m = lesson(lessonId).measure(id);
    measured.set(key, m);
  }
  return m;
}

function post(m: LessonFromWorker): void {
  self.postMessage(m);
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function lesson(id: string): LessonEngine {
  const l = open.get(id);
  if (!l) throw new Error(`lesson '${id}' is not open`);
  return l;
}

function handle(m: LessonToWorker): void {
  try {
    switch (m.type) {
      case 'open': {
        if (!lessonsAvailable()) {
          post({ type: 'result', id: m.id, ok: false, error: 'LESSON_API_MISSING' });
          return;
        }
        open.get(m.lesson)?.dispose();
        for (const k of [...measured.keys()]) if (k.startsWith(`${m.lesson}\u0000`)) measured.delete(k);
        const l = openLesson(m.compiled);
        open.set(m.lesson, l);
        post({ type: 'result', id: m.id, ok: true, value: l.info() });
        return;
      }
      case 'prepare':
        post({ type: 'result', id: m.id, ok: true, value: lesson(m.lesson).prepareScene(m.scene, m.params) });
        return;
      case 'check': {
        const meas = measurement(m.lesson, m.exercise);
        if (meas.pending) throw new Error(`PENDING:${meas.pending}`);
        post({ type: 'result', id: m.id, ok: true, value: lesson(m.lesson).judge(m.exercise, m.answer, meas) });
        return;
      }
      case 'measure':
        post({ type: 'result', id: m.id, ok: true, value: measurement(m.lesson, m.exercise) });
        return;
    }
  } catch (e) {
    post({ type: 'result', id: m.id, ok: false, error: message(e) });
  }
}

const queue: LessonToWorker[] = [];
let ready = false;
self.onmessage = (ev: MessageEvent<LessonToWorker>) => {
  if (ready) handle(ev.data);
  else queue.push(ev.data);
};

loadEngine()
  .then(() => {
    ready = true;
    for (const m of queue.splice(0)) handle(m);
  })
  .catch((e) => {
    for (const m of queue.splice(0)) post({ type: 'result', id: m.id, ok: false, error: `could not load the engine: ${message(e)}` });
  });

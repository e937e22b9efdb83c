/// <reference lib="webworker" />
/**
 * The lesson worker: opens lessons in the engine, prepares scenes with parameters, and runs the
 * exercises' measured checks (seconds of simulation) off the main thread and off the bench's
 * physics worker, so the page and the live scene keep going while the engine judges.
 */
import { loadEngine } from '../engine/flexlab';
import { lessonsAvailable, openLesson, type LessonEngine } from './adapter';
import type { LessonFromWorker, LessonToWorker } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const open = new Map<string, LessonEngine>();

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
        const l = openLesson(m.files);
        open.set(m.lesson, l);
        post({ type: 'result', id: m.id, ok: true, value: l.info() });
        return;
      }
      case 'prepare':
        post({ type: 'result', id: m.id, ok: true, value: lesson(m.lesson).prepareScene(m.scene, m.params) });
        return;
      case 'check':
        post({ type: 'result', id: m.id, ok: true, value: lesson(m.lesson).check(m.exercise, m.answer) });
        return;
      case 'measure':
        post({ type: 'result', id: m.id, ok: true, value: lesson(m.lesson).measure(m.exercise) });
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

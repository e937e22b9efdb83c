/**
 * Starts the page's workers before anything else runs. Chromium starts a worker only once the
 * page's thread has been free for a while, and the page's script then keeps that thread busy:
 * evaluating itself, creating the WebGL context, building the page and the lesson. The entry
 * (main.ts) imports this first and loads the rest of the page after it, so the workers fetch
 * and compile the engine while that part downloads and runs (`npm run bench` reports when the
 * physics worker is ready: the `sim-ready` milestone).
 */

/** The physics worker of the bench, and the lesson worker that prepares scenes and judges. */
export type WorkerKind = 'sim' | 'lesson';

interface Started {
  worker: Worker;
  /** What the worker said before a client took it: a worker's messages to a page that has no
   * listener yet are dropped, not queued. */
  early: Array<MessageEvent | ErrorEvent>;
}

const started = new Map<WorkerKind, Started>();

/** Holds `worker` for the client of `kind`, keeping what it says until then. */
export function keepWorker(kind: WorkerKind, worker: Worker): void {
  const s: Started = { worker, early: [] };
  worker.onmessage = (ev) => s.early.push(ev);
  worker.onerror = (ev) => {
    ev.preventDefault();
    s.early.push(ev);
  };
  started.set(kind, s);
}

/**
 * The worker started for `kind`, once. Its client sets its own handlers right away; what the
 * worker said before then reaches them in order, before anything it says later.
 */
export function takeWorker(kind: WorkerKind): Worker | null {
  const s = started.get(kind);
  if (!s) return null;
  started.delete(kind);
  const w = s.worker;
  w.onmessage = null;
  w.onerror = null;
  if (s.early.length) {
    // a microtask runs before the task of any later message
    queueMicrotask(() => {
      for (const ev of s.early) {
        w.dispatchEvent(ev instanceof ErrorEvent ? new ErrorEvent('error', { message: ev.message, cancelable: true }) : new MessageEvent('message', { data: ev.data }));
      }
    });
  }
  return w;
}

/** Ends the workers nobody took (a page without a lesson does not need the lesson worker). */
export function dropUntaken(): void {
  for (const s of started.values()) s.worker.terminate();
  started.clear();
}

if (typeof Worker !== 'undefined' && typeof document !== 'undefined') {
  // a worker that cannot be made here is made, and reported, by its client as before
  try {
    keepWorker('sim', new Worker(new URL('./sim/worker.ts', import.meta.url), { type: 'module' }));
    // the page shows a lesson unless its address names only a model of its own: the sandbox or
    // a scene file, which is a path (App.firstLesson decides; a wrong guess here costs only the
    // early start, the client starts its worker then)
    const q = new URLSearchParams(location.search);
    const scene = q.get('scene');
    if (q.has('lesson') || scene === null || (scene !== 'sandbox' && !scene.includes('/'))) {
      keepWorker('lesson', new Worker(new URL('./lesson/worker.ts', import.meta.url), { type: 'module' }));
    }
  } catch {
    dropUntaken();
  }
}

/** Messages between the page and the lesson worker. */
import type { ParamValue } from '../sim/protocol';

export type LessonToWorker =
  /** `compiled`: the compiled lesson (web/src/lesson/bundle.ts). */
  | { type: 'open'; id: number; lesson: string; compiled: string }
  | { type: 'prepare'; id: number; lesson: string; scene: string; params: Record<string, ParamValue> }
  | { type: 'check'; id: number; lesson: string; exercise: string; answer: number | string }
  | { type: 'measure'; id: number; lesson: string; exercise: string };

export type LessonFromWorker = { type: 'result'; id: number; ok: true; value: unknown } | { type: 'result'; id: number; ok: false; error: string };

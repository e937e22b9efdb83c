/** Messages between the page and the lesson worker. */
import type { ParamValue } from '../sim/protocol';
import type { LessonFiles } from './types';

export type LessonToWorker =
  | { type: 'open'; id: number; lesson: string; files: LessonFiles }
  | { type: 'prepare'; id: number; lesson: string; scene: string; params: Record<string, ParamValue> }
  | { type: 'check'; id: number; lesson: string; exercise: string; answer: number | string }
  | { type: 'measure'; id: number; lesson: string; exercise: string };

export type LessonFromWorker = { type: 'result'; id: number; ok: true; value: unknown } | { type: 'result'; id: number; ok: false; error: string };

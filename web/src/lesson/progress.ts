/**
 * Exercise progress, kept in the browser (localStorage) per lesson and exercise: the committed
 * prediction, attempts, and where the student got to. Storage that is full or disabled only
 * means progress is not kept.
 */

export type ExerciseStatus = 'open' | 'wrong' | 'right' | 'shown';

export interface ExerciseProgress {
  prediction: string;
  attempts: number;
  status: ExerciseStatus;
  /** What the engine measured at the last check. */
  measured?: number | string;
}

const KEY = 'flexlab.progress.v1';

type Store = Record<string, Record<string, ExerciseProgress>>;

function readStore(): Store {
  try {
    const s = localStorage.getItem(KEY);
    const v = s ? (JSON.parse(s) as unknown) : {};
    return v && typeof v === 'object' ? (v as Store) : {};
  } catch {
    return {};
  }
}

export function loadProgress(lesson: string, exercise: string): ExerciseProgress | null {
  const p = readStore()[lesson]?.[exercise];
  if (!p || typeof p.prediction !== 'string' || typeof p.attempts !== 'number') return null;
  return p;
}

export function saveProgress(lesson: string, exercise: string, p: ExerciseProgress): void {
  const s = readStore();
  (s[lesson] ??= {})[exercise] = p;
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    // storage full or disabled: progress is simply not kept
  }
}

export function clearProgress(lesson: string): void {
  const s = readStore();
  delete s[lesson];
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    // ignore
  }
}

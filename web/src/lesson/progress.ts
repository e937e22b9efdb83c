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

/** The localStorage key (also what a `storage` event from another tab names). */
export const PROGRESS_KEY = 'flexlab.progress.v1';

type Store = Record<string, Record<string, ExerciseProgress>>;

function readStore(): Store {
  try {
    const s = localStorage.getItem(PROGRESS_KEY);
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
    localStorage.setItem(PROGRESS_KEY, JSON.stringify(s));
  } catch {
    // storage full or disabled: progress is simply not kept
  }
}

/** Forgets every answer of a lesson ("Start over"). */
export function clearProgress(lesson: string): void {
  const s = readStore();
  delete s[lesson];
  try {
    localStorage.setItem(PROGRESS_KEY, JSON.stringify(s));
  } catch {
    // ignore
  }
}

/** Where a student stands in a set of exercises. */
export interface Tally {
  total: number;
  /** Answered right (at any attempt). */
  right: number;
  /** Answer shown after a wrong attempt. */
  shown: number;
  /** With any stored progress (answered, or a prediction committed). */
  started: number;
}

/** Counts the statuses of a set of exercises (`null`: never answered). */
export function tally(statuses: ReadonlyArray<ExerciseStatus | null>): Tally {
  return {
    total: statuses.length,
    right: statuses.filter((s) => s === 'right').length,
    shown: statuses.filter((s) => s === 'shown').length,
    started: statuses.filter((s) => s !== null).length,
  };
}

/** The stored status of each exercise of a lesson, `null` where there is none. */
export function loadStatuses(lesson: string, exercises: readonly string[]): Array<ExerciseStatus | null> {
  const s = readStore()[lesson] ?? {};
  return exercises.map((id) => {
    const st = s[id]?.status;
    return st === 'open' || st === 'wrong' || st === 'right' || st === 'shown' ? st : null;
  });
}

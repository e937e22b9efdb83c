/**
 * What the page reads from a lesson, as the engine's `Lesson` API returns it (lessons/README.md
 * is the format). The engine parses, prepares scenes, measures and judges; the page only shows.
 */
import type { ParamValue } from '../sim/protocol';
import type { MjCamera } from '../view/viewer';

/** Text in both languages. */
export interface Text {
  zh?: string;
  en?: string;
}

export interface SectionInfo {
  id: string;
  title: Text;
}

export interface SceneParam {
  name: string;
  label: Text;
  kind: 'number' | 'choice' | 'bool';
  min?: number;
  max?: number;
  step?: number;
  choices?: string[];
  default?: ParamValue;
}

export interface SceneInfo {
  id: string;
  title: Text;
  camera?: MjCamera;
  show?: string[];
  params: SceneParam[];
}

export interface ExerciseChoice {
  id: string;
  zh?: string;
  en?: string;
}

export interface ExerciseInfo {
  id: string;
  section: string;
  scene: string;
  kind: 'number' | 'choice';
  prompt: Text;
  unit?: string;
  choices?: ExerciseChoice[];
}

export interface LessonInfo {
  id: string;
  title: Text;
  sections: SectionInfo[];
  scenes: SceneInfo[];
  exercises: ExerciseInfo[];
}

/** A scene made ready to compile: MJCF with the parameters applied, and spec-only settings. */
export interface PreparedScene {
  xml: string;
  elastic3d: Record<string, number>;
}

/** The engine's judgement of a committed prediction. */
export interface Verdict {
  correct: boolean;
  /** What the engine measured (a number, or the outcome's choice id, or a message). */
  measured: number | string;
  /** Feedback for this answer (right or wrong) and the explanation shown by "Show answer". */
  feedback: Text;
  explain: Text;
  /** The expected answer, for "Show answer". */
  answer?: number | string;
}

export interface Measurement {
  measured: number | string;
  text?: Text;
}

/** One lesson folder as files: path inside the folder → text. */
export type LessonFiles = Array<[string, string]>;

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
  /** The section's Markdown in both languages (`text/<id>.<lang>.md`). */
  markdown: Text;
}

export interface SceneParam {
  name: string;
  label: Text;
  kind: 'number' | 'choice' | 'bool';
  min?: number | null;
  max?: number | null;
  step?: number | null;
  choices?: string[];
  default?: ParamValue;
}

export interface SceneInfo {
  id: string;
  title: Text;
  camera?: MjCamera | null;
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
  unit?: string | null;
  choices?: ExerciseChoice[];
}

/** A `::: measure` block: a live engine number beside what the textbook states. */
export interface MeasurementInfo {
  id: string;
  section: string;
  scene: string;
  caption: Text;
  unit?: string | null;
  textbook?: { value?: number | null; text: Text } | null;
}

/** A problem found in the lesson files, with its place. */
export interface LessonDiag {
  file: string;
  line: number;
  message: string;
}

export interface LessonInfo {
  id: string;
  title: Text;
  sections: SectionInfo[];
  scenes: SceneInfo[];
  exercises: ExerciseInfo[];
  measurements: MeasurementInfo[];
  errors: LessonDiag[];
}

/** A scene made ready to compile: MJCF with the parameters applied, spec-only settings, includes. */
export interface PreparedScene {
  xml: string;
  elastic3d: Record<string, number>;
  files: Array<[string, string]>;
}

/** One run of a measured check. */
export interface RunResult {
  params: Record<string, ParamValue>;
  compiles: boolean;
  error: string | null;
  value: number | string | null;
  steps: number;
  time: number;
  diverged: boolean;
}

/** What the engine measured for an exercise or a `::: measure` block. */
export interface Measurement {
  /** The combined value (a number, or text such as a compiler message); null if pending. */
  value: number | string | null;
  /** Set when the check needs an engine feature flexlab does not have yet. */
  pending: string | null;
  runs: RunResult[];
}

/** The engine's judgement of a committed prediction. */
export interface Verdict {
  correct: boolean;
  /** Feedback for this answer (right or wrong) and the explanation shown by "Show answer". */
  feedback: Text;
  explain: Text;
  /** The measurement it was judged against. */
  measurement: Measurement;
}

/** One lesson folder as files: path inside the folder → text. */
export type LessonFiles = Array<[string, string]>;

/**
 * The one place that knows the shape of the engine's wasm `Lesson` class (crate/src/wasm.rs,
 * crate/src/lessons/api.rs). Everything the lesson view needs goes through [[LessonEngine]]; if
 * the wasm module has no `Lesson`, [[openLesson]] says so and the page keeps its bench working.
 *
 * The wasm surface (JSON strings in and out, errors as JS exceptions):
 *   new Lesson(compiled_json)                   a compiled lesson (`flexlab lessons bundle`)
 *   bundle(): string                            {id, title, sections, scenes, exercises, measurements, errors}
 *   prepare_scene(scene, params_json): string   {xml, elastic3d, files}
 *   measure(id): string                         {value, pending, runs} (bounded work)
 *   judge(id, answer_json, measured_json)       {correct, feedback, explain}
 */
import * as wasm from '../wasm/flexlab.js';
import type { ParamValue } from '../sim/protocol';
import type { LessonInfo, Measurement, PreparedScene, Verdict } from './types';

export interface LessonEngine {
  info(): LessonInfo;
  prepareScene(scene: string, params: Record<string, ParamValue>): PreparedScene;
  /** Runs an exercise's (or a measurement's) measured check. */
  measure(id: string): Measurement;
  /** Judges an answer against a measurement made by [[measure]]. */
  judge(id: string, answer: number | string, m: Measurement): Verdict;
  dispose(): void;
}

interface WasmLesson {
  bundle(): string;
  prepare_scene(scene: string, params: string): string;
  measure(id: string): string;
  judge(id: string, answer: string, measured: string): string;
  free(): void;
}

type WasmLessonClass = new (compiledJson: string) => WasmLesson;

/** The engine's `Lesson` class, if this build has it. */
function lessonClass(): WasmLessonClass | null {
  const m = wasm as unknown as Record<string, unknown>;
  return typeof m.Lesson === 'function' ? (m.Lesson as WasmLessonClass) : null;
}

export function lessonsAvailable(): boolean {
  return lessonClass() !== null;
}

/** Opens a compiled lesson in the engine; problems the lesson reader found are listed in
 * `info().errors`. */
export function openLesson(compiled: string): LessonEngine {
  const Cls = lessonClass();
  if (!Cls) throw new Error('LESSON_API_MISSING');
  const l = new Cls(compiled);
  return {
    info: () => JSON.parse(l.bundle()) as LessonInfo,
    prepareScene: (scene, params) => JSON.parse(l.prepare_scene(scene, JSON.stringify(params))) as PreparedScene,
    measure: (id) => JSON.parse(l.measure(id)) as Measurement,
    judge: (id, answer, m) => {
      const v = JSON.parse(l.judge(id, JSON.stringify(answer), JSON.stringify(m))) as Omit<Verdict, 'measurement'>;
      return { ...v, measurement: m };
    },
    dispose: () => l.free(),
  };
}

/**
 * The one place that knows the shape of the engine's wasm `Lesson` class (crate/src/wasm.rs).
 * Everything the lesson view needs goes through [[LessonEngine]]; if the wasm module has no
 * `Lesson` yet, [[openLesson]] says so and the page keeps its bench working.
 *
 * Expected wasm surface (JSON strings in and out, errors as JS exceptions in MuJoCo's words):
 *   new Lesson(files: Array<[path, text]>)     parse and validate one lesson folder
 *   info(): string                             {id, title, sections, scenes, exercises}
 *   prepare_scene(scene, params_json): string  {xml, elastic3d}
 *   check(exercise, answer_json): string       the verdict
 *   measure(exercise): string                  {measured, text?}
 */
import * as wasm from '../wasm/flexlab.js';
import type { ParamValue } from '../sim/protocol';
import type { LessonFiles, LessonInfo, Measurement, PreparedScene, Verdict } from './types';

export interface LessonEngine {
  info(): LessonInfo;
  prepareScene(scene: string, params: Record<string, ParamValue>): PreparedScene;
  check(exercise: string, answer: number | string): Verdict;
  measure(exercise: string): Measurement;
  dispose(): void;
}

interface WasmLesson {
  info(): string;
  prepare_scene(scene: string, params: string): string;
  check(exercise: string, answer: string): string;
  measure(exercise: string): string;
  free(): void;
}

type WasmLessonClass = new (files: unknown) => WasmLesson;

/** The engine's `Lesson` class, if this build has it. */
function lessonClass(): WasmLessonClass | null {
  const m = wasm as unknown as Record<string, unknown>;
  return typeof m.Lesson === 'function' ? (m.Lesson as WasmLessonClass) : null;
}

export function lessonsAvailable(): boolean {
  return lessonClass() !== null;
}

/** Opens a lesson folder in the engine; throws the engine's message if it is not valid. */
export function openLesson(files: LessonFiles): LessonEngine {
  const Cls = lessonClass();
  if (!Cls) throw new Error('LESSON_API_MISSING');
  const l = new Cls(files);
  return {
    info: () => JSON.parse(l.info()) as LessonInfo,
    prepareScene: (scene, params) => JSON.parse(l.prepare_scene(scene, JSON.stringify(params))) as PreparedScene,
    check: (exercise, answer) => JSON.parse(l.check(exercise, JSON.stringify(answer))) as Verdict,
    measure: (exercise) => JSON.parse(l.measure(exercise)) as Measurement,
    dispose: () => l.free(),
  };
}

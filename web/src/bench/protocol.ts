/**
 * Messages between the bench page and its engine workers. Each worker owns one engine (flexlab
 * or `@mujoco/mujoco`), compiles one model and steps it without rendering, so the number is the
 * engine's alone. Both workers measure the same way (see `runTimed`).
 */

/** Files a model includes, by the name its MJCF uses. */
export type BenchFiles = Array<[string, string]>;

export type Engine = 'flexlab' | 'mujoco';

export type ToBenchWorker =
  | { type: 'load'; xml: string; files: BenchFiles }
  | { type: 'run'; warmup: number; steps: number };

/** One timed run: reset, `warmup` untimed steps, `steps` timed steps. */
export interface RunResult {
  steps: number;
  warmup: number;
  seconds: number;
  /** Contacts and constraint rows after the last timed step. */
  ncon: number;
  nefc: number;
  /** Bad-state warnings (qpos/qvel/qacc) raised in this run. */
  bad: number;
  /** Mean solver iterations per timed step, where the engine reports them. */
  niter?: number;
}

export type FromBenchWorker =
  | { type: 'ready'; engine: Engine; version: string }
  | { type: 'loaded'; timestep: number; nv: number }
  | { type: 'result'; result: RunResult }
  | { type: 'error'; message: string };

/** What a stepping engine offers the shared timing loop. */
export interface Stepper {
  reset(): void;
  step(n: number): void;
  counts(): { ncon: number; nefc: number; bad: number };
  /** Solver iterations of the last step (island 0), if the engine reports them. */
  niter?: () => number;
}

/**
 * The measurement both workers make: reset, warm up, then time `steps` single steps with
 * `performance.now()` (one `step(1)` call per step for both engines, as `mj_step` is called).
 */
export function runTimed(s: Stepper, warmup: number, steps: number): RunResult {
  s.reset();
  for (let i = 0; i < warmup; i++) s.step(1);
  const niter = s.niter;
  let iters = 0;
  const t0 = performance.now();
  if (niter) {
    for (let i = 0; i < steps; i++) {
      s.step(1);
      iters += niter();
    }
  } else {
    for (let i = 0; i < steps; i++) s.step(1);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { steps, warmup, seconds, ...s.counts(), ...(niter ? { niter: iters / steps } : {}) };
}

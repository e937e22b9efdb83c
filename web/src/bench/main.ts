/**
 * The bench page: runs one scene on both engines, each in its own worker, alternating rounds
 * so that load from other work on the machine falls on both alike; keeps each engine's fastest
 * round. `scripts/bench/browser.mjs` drives it through `window.__bench`; a person can paste
 * MJCF into the form.
 */
import type { BenchFiles, Engine, FromBenchWorker, RunResult, ToBenchWorker } from './protocol';

export interface SceneSpec {
  name: string;
  xml: string;
  files: BenchFiles;
  warmup: number;
  steps: number;
  rounds: number;
}

export interface EngineResult {
  engine: Engine;
  version: string;
  /** Set when the engine could not load or step the model: no number is reported. */
  error?: string;
  timestep?: number;
  runs: RunResult[];
  best?: RunResult;
}

export interface SceneResult {
  name: string;
  flexlab: EngineResult;
  mujoco: EngineResult;
}

declare global {
  interface Window {
    __bench: {
      versions: Promise<Record<Engine, string>>;
      run(spec: SceneSpec): Promise<SceneResult>;
    };
  }
}

/** One engine worker with a request/response interface. */
class EngineWorker {
  readonly ready: Promise<string>;
  private w: Worker;
  private pending: ((m: FromBenchWorker) => void) | null = null;

  constructor(readonly engine: Engine) {
    this.w =
      engine === 'flexlab'
        ? new Worker(new URL('./flexlab.worker.ts', import.meta.url), { type: 'module' })
        : new Worker(new URL('./mujoco.worker.ts', import.meta.url), { type: 'module' });
    this.ready = new Promise((resolve, reject) => {
      this.pending = (m) => (m.type === 'ready' ? resolve(m.version) : reject(new Error(m.type === 'error' ? m.message : m.type)));
    });
    this.w.onmessage = (ev: MessageEvent<FromBenchWorker>) => {
      const p = this.pending;
      this.pending = null;
      p?.(ev.data);
    };
    this.w.onerror = (ev) => {
      const p = this.pending;
      this.pending = null;
      p?.({ type: 'error', message: `worker error: ${ev.message}` });
    };
  }

  request(msg: ToBenchWorker): Promise<FromBenchWorker> {
    return new Promise((resolve) => {
      this.pending = resolve;
      this.w.postMessage(msg);
    });
  }

  terminate(): void {
    this.w.terminate();
  }
}

async function runScene(spec: SceneSpec): Promise<SceneResult> {
  const workers = [new EngineWorker('flexlab'), new EngineWorker('mujoco')];
  const results = new Map<Engine, EngineResult>();
  try {
    for (const w of workers) {
      const r: EngineResult = { engine: w.engine, version: '', runs: [] };
      results.set(w.engine, r);
      try {
        r.version = await w.ready;
        const loaded = await w.request({ type: 'load', xml: spec.xml, files: spec.files });
        if (loaded.type === 'loaded') r.timestep = loaded.timestep;
        else r.error = loaded.type === 'error' ? loaded.message : `unexpected ${loaded.type}`;
      } catch (e) {
        r.error = e instanceof Error ? e.message : String(e);
      }
    }
    for (let round = 0; round < spec.rounds; round++) {
      for (const w of workers) {
        const r = results.get(w.engine) as EngineResult;
        if (r.error) continue;
        const m = await w.request({ type: 'run', warmup: spec.warmup, steps: spec.steps });
        if (m.type === 'result') {
          r.runs.push(m.result);
          if (!r.best || m.result.seconds < r.best.seconds) r.best = m.result;
        } else {
          r.error = m.type === 'error' ? m.message : `unexpected ${m.type}`;
        }
      }
    }
  } finally {
    for (const w of workers) w.terminate();
  }
  const out: SceneResult = {
    name: spec.name,
    flexlab: results.get('flexlab') as EngineResult,
    mujoco: results.get('mujoco') as EngineResult,
  };
  show(out);
  return out;
}

const rate = (r: EngineResult): number => (r.best && r.best.seconds > 0 ? r.best.steps / r.best.seconds : NaN);

function show(s: SceneResult): void {
  const row = document.createElement('tr');
  const f = rate(s.flexlab);
  const m = rate(s.mujoco);
  const cells = [
    s.name,
    s.flexlab.error ? `error: ${s.flexlab.error}` : f.toFixed(0),
    s.mujoco.error ? `error: ${s.mujoco.error}` : m.toFixed(0),
    Number.isFinite(f / m) ? `${(f / m).toFixed(2)}×` : '—',
    Number.isFinite(f) && s.flexlab.timestep ? `${(f * s.flexlab.timestep).toFixed(2)}×` : '—',
    `${s.flexlab.best?.ncon ?? '—'}/${s.flexlab.best?.nefc ?? '—'} · ${s.mujoco.best?.ncon ?? '—'}/${s.mujoco.best?.nefc ?? '—'}`,
  ];
  for (const c of cells) {
    const td = document.createElement('td');
    td.textContent = c;
    row.append(td);
  }
  (document.getElementById('results') as HTMLElement).append(row);
}

async function versions(): Promise<Record<Engine, string>> {
  const ws = [new EngineWorker('flexlab'), new EngineWorker('mujoco')];
  try {
    const [flexlab, mujoco] = await Promise.all(ws.map((w) => w.ready.catch((e: unknown) => `failed: ${String(e)}`)));
    return { flexlab, mujoco };
  } finally {
    for (const w of ws) w.terminate();
  }
}

const SAMPLE = `<mujoco model="sample cloth">
  <option timestep="0.002" integrator="discrete" solver="CG"/>
  <worldbody>
    <geom type="sphere" size=".1"/>
    <flexcomp name="cloth" type="grid" dim="2" count="10 10 1" spacing=".03 .03 .03" pos="0 0 .15" radius=".004" mass=".1">
      <elasticity young="5e4" poisson="0.2" thickness="1e-3" elastic2d="both" damping="0.002"/>
      <contact selfcollide="none"/>
    </flexcomp>
  </worldbody>
</mujoco>`;

const v = versions();
window.__bench = { versions: v, run: runScene };
void v.then((x) => {
  (document.getElementById('versions') as HTMLElement).textContent = `${x.flexlab} · ${x.mujoco}`;
});

const xmlBox = document.getElementById('xml') as HTMLTextAreaElement;
xmlBox.value = SAMPLE;
const num = (id: string): number => Number((document.getElementById(id) as HTMLInputElement).value);
(document.getElementById('form') as HTMLFormElement).addEventListener('submit', (ev) => {
  ev.preventDefault();
  const name = /model="([^"]*)"/.exec(xmlBox.value)?.[1] ?? 'pasted model';
  void runScene({ name, xml: xmlBox.value, files: [], warmup: num('warmup'), steps: Math.max(1, num('steps')), rounds: Math.max(1, num('rounds')) });
});

// Where the browser build spends a step: steps a model with the wasm engine in Node and, run
// under `node --cpu-prof`, reports the functions with the most self time. Run by
// wasm-profile.sh, which builds the wasm with its function names kept (the lab's build strips
// them) and does both halves:
//
//   node --cpu-prof --cpu-prof-dir=DIR scripts/bench/wasm-profile.mjs step WASM_DIR MODEL.xml [STEPS] [WARMUP] [INCLUDE,...]
//   node scripts/bench/wasm-profile.mjs report DIR
//
// INCLUDE names files next to MODEL.xml that it includes (jelly.xml: scene.xml). The profile
// also holds the model's compilation and the warm-up: time many more steps than that.
import fs from 'node:fs';
import path from 'node:path';

const [mode, ...args] = process.argv.slice(2);
if (mode === 'step') step(...args);
else if (mode === 'report') report(args[0]);
else {
  console.error('usage: wasm-profile.mjs step WASM_DIR MODEL.xml [STEPS] [WARMUP] [INCLUDE,...] | report DIR');
  process.exit(2);
}

async function step(dir, model, steps = '2000', warmup = '100', includes = '') {
  const wasm = await import(path.resolve(dir, 'flexlab.js'));
  wasm.initSync({ module: fs.readFileSync(path.resolve(dir, 'flexlab_bg.wasm')) });
  const files = includes
    .split(',')
    .filter(Boolean)
    .map((f) => [f, fs.readFileSync(path.join(path.dirname(model), f), 'utf8')]);
  const scene = new wasm.Scene(fs.readFileSync(model, 'utf8'), files, '');
  scene.step(+warmup);
  const t0 = performance.now();
  for (let i = 0; i < +steps; i++) scene.step(1);
  const ms = performance.now() - t0;
  console.log(`${path.basename(model)}: ${steps} steps in ${ms.toFixed(0)} ms (${((+steps / ms) * 1000).toFixed(0)} steps/s)`);
}

function report(dir) {
  const name = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().pop();
  const profile = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, k) => {
    const fn = byId.get(id).callFrame.functionName.replace(/::h[0-9a-f]{16}$/, '') || '(anonymous)';
    self.set(fn, (self.get(fn) ?? 0) + profile.timeDeltas[k]);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log('self time (whole run):');
  for (const [fn, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${fn}`);
  }
}

// Scene load time of the browser build in Node: for each MODEL, the best of ROUNDS of
// constructing a Scene (parse, compile, make data) and stepping it STEPS times, with the files
// beside it that the model names passed in as the lab passes dropped files. For changes to the
// once-per-load code (compiler, allocator): build both trees with scripts/build-wasm.sh and run
// this on each tree's web/src/wasm.
//
//   node scripts/bench/load-time.mjs [--wasm DIR] [--rounds N] [--steps N] MODEL.xml...
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const dir = path.resolve(opt('--wasm', 'web/src/wasm'));
const rounds = Number(opt('--rounds', '7'));
const steps = Number(opt('--steps', '20'));
const mod = await import(pathToFileURL(path.join(dir, 'flexlab.js')).href);
mod.initSync({ module: fs.readFileSync(path.join(dir, 'flexlab_bg.wasm')) });
for (const file of args) {
  const xml = fs.readFileSync(file, 'utf8');
  const files = [];
  for (const m of xml.matchAll(/file="([^"]+)"/g)) {
    const p = path.join(path.dirname(file), m[1]);
    if (fs.existsSync(p)) files.push([m[1], new Uint8Array(fs.readFileSync(p))]);
  }
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    const scene = new mod.Scene(xml, files, '');
    scene.step(steps);
    best = Math.min(best, performance.now() - t);
    scene.free();
  }
  console.log(`${path.basename(file)}: ${best.toFixed(1)} ms (load + ${steps} steps, best of ${rounds})`);
}

// The bench scene list (scripts/bench/scenes.txt) and the files each model includes, shared by
// the browser driver and the report.
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** @returns {{name: string, model: string, warmup: number, steps: number}[]} */
export function readScenes(only = []) {
  const shared = process.env.SHARED ?? path.resolve(ROOT, '../shared');
  const out = [];
  for (const line of fs.readFileSync(path.join(ROOT, 'scripts/bench/scenes.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [name, model, warmup, steps] = line.split('|').map((s) => s.trim());
    if (only.length && !only.includes(name)) continue;
    const file = path.resolve(ROOT, model.replace('$SHARED', shared));
    out.push({ name, model: file, warmup: Number(warmup), steps: Number(steps) });
  }
  return out;
}

/**
 * The files `<include file=…>` pulls in, recursively, as `[name as written, text]` pairs for
 * the engines' in-memory file systems (flexlab's `MemSource`, MuJoCo's MEMFS).
 * @returns {[string, string][]}
 */
export function includes(modelPath) {
  const seen = new Map();
  const visit = (file) => {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/<include\s+file="([^"]+)"/g)) {
      const name = m[1];
      if (seen.has(name)) continue;
      const p = path.resolve(path.dirname(modelPath), name);
      seen.set(name, fs.readFileSync(p, 'utf8'));
      visit(p);
    }
  };
  visit(modelPath);
  return [...seen.entries()];
}

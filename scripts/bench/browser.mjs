// The in-browser half of `npm run bench`: serves the built lab (vite preview of DIST), opens
// web/bench.html in headless Debian Chromium with Playwright, and for every scene steps flexlab
// wasm and @mujoco/mujoco wasm alike (workers, no rendering; rounds alternate between the two).
// Then it measures the lab's time from page load to the first simulated frame.
//
//   node scripts/bench/browser.mjs --dist DIR --out FILE.json [--rounds N] [--only a,b]
import { chromium } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { CHROMIUM_PATH } from '../chromium.mjs';
import { CHROMIUM_ARGS, loadOnce, serve, summarize } from './first-frame.mjs';
import { includes, readScenes, ROOT } from './scenes.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const dist = path.resolve(opt('--dist', path.join(ROOT, 'web/dist')));
const outFile = path.resolve(opt('--out', path.join(ROOT, 'bench-results/browser.json')));
const rounds = Number(opt('--rounds', '3'));
const only = (opt('--only', '') || '').split(',').filter(Boolean);
const firstFrameLoads = Number(opt('--loads', '3'));
// not the e2e port (4173): a test run may be serving there at the same time
const port = Number(opt('--port', '4179'));
const base = `http://127.0.0.1:${port}`;


const log = (s) => process.stderr.write(`${s}\n`);

async function main() {
  const server = await serve(dist, port);
  const result = { chromium: '', versions: {}, scenes: [], firstFrame: null };
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    result.chromium = browser.version();
    const open = async () => {
      const pg = await browser.newPage();
      pg.on('pageerror', (e) => log(`bench page error: ${e.message}`));
      await pg.goto(`${base}/bench.html`);
      result.versions = await pg.evaluate(() => window.__bench.versions);
      return pg;
    };
    let page = await open();
    log(`browser: Chromium ${result.chromium}; ${result.versions.flexlab}; ${result.versions.mujoco}`);
    for (const s of readScenes(only)) {
      const spec = {
        name: s.name,
        xml: fs.readFileSync(s.model, 'utf8'),
        files: includes(s.model),
        warmup: s.warmup,
        steps: s.steps,
        rounds,
      };
      let r;
      try {
        r = await page.evaluate((sp) => window.__bench.run(sp), spec);
      } catch (e) {
        // the page itself failed (a crash, out of memory): no number for either engine
        const error = `bench page failed: ${String(e).split('\n')[0]}`;
        r = { name: s.name, flexlab: { engine: 'flexlab', error, runs: [] }, mujoco: { engine: 'mujoco', error, runs: [] } };
        await page.close().catch(() => {});
        page = await open();
      }
      const rate = (e) => (e.best ? (e.best.steps / e.best.seconds).toFixed(1) : `error: ${e.error}`);
      log(`browser ${s.name}: flexlab ${rate(r.flexlab)} steps/s, @mujoco/mujoco ${rate(r.mujoco)} steps/s`);
      result.scenes.push(r);
      save(result);
    }
    await page.close();
    if (!only.length || only.includes('first-frame')) result.firstFrame = await firstFrame(browser);
    save(result);
  } finally {
    await browser?.close();
    server.kill();
  }
}

function save(result) {
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, `${JSON.stringify(result, null, 1)}\n`);
}

/** The lab's first simulated frame over `firstFrameLoads` fresh loads (first-frame.mjs). */
async function firstFrame(browser) {
  const loads = [];
  for (let i = 0; i < firstFrameLoads; i++) loads.push(await loadOnce(browser, `${base}/`));
  const r = summarize(loads);
  log(`browser first frame: ${r.ms.map((t) => t.toFixed(0)).join(', ')} ms (${r.scene})`);
  return r;
}

main().catch((e) => {
  log(`browser bench failed: ${e.stack ?? e}`);
  process.exit(1);
});

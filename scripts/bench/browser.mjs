// The in-browser half of `npm run bench`: serves the built lab (vite preview of DIST), opens
// web/bench.html in headless Debian Chromium with Playwright, and for every scene steps flexlab
// wasm and @mujoco/mujoco wasm alike (workers, no rendering; rounds alternate between the two).
// Then it measures the lab's time from page load to the first simulated frame.
//
//   node scripts/bench/browser.mjs --dist DIR --out FILE.json [--rounds N] [--only a,b]
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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

// Playwright's Chromium settings, as playwright.config.ts; plus no background throttling
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
];

async function waitForServer(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`vite preview did not answer at ${url}`);
}

const log = (s) => process.stderr.write(`${s}\n`);

async function main() {
  const server = spawn(
    path.join(ROOT, 'node_modules/.bin/vite'),
    ['preview', '--config', 'web/vite.config.ts', '--outDir', dist, '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const result = { chromium: '', versions: {}, scenes: [], firstFrame: null };
  let browser;
  try {
    await waitForServer(`${base}/bench.html`, 30_000);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
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

/**
 * Time from navigation start to the first frame the lab draws after the physics has stepped
 * (`__flexlab.state.steps > 0`, then one more drawn frame), in fresh contexts (no cache).
 */
async function firstFrame(browser) {
  const times = [];
  /** The page's milestones (performance marks 'flexlab:…') of every load, ms after navigation. */
  const marks = {};
  let scene = '';
  for (let i = 0; i < firstFrameLoads; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.addInitScript(() => {
      let frames0 = -1;
      const poll = () => {
        const s = window.__flexlab?.state;
        if (s && s.steps > 0 && frames0 < 0) frames0 = s.frames;
        if (s && frames0 >= 0 && s.frames > frames0) {
          window.__firstFrameMs = performance.now();
          return;
        }
        requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
    });
    const page = await ctx.newPage();
    await page.goto(`${base}/`);
    await page.waitForFunction(() => typeof window.__firstFrameMs === 'number', null, { timeout: 60_000 });
    const r = await page.evaluate(() => ({
      ms: window.__firstFrameMs,
      scene: window.__flexlab.state.info?.name ?? '',
      marks: performance.getEntriesByType('mark').filter((m) => m.name.startsWith('flexlab:')).map((m) => [m.name.slice(8), m.startTime]),
    }));
    times.push(r.ms);
    // the first time each milestone was reached (a later scene load marks again)
    const seen = new Set();
    for (const [name, t] of r.marks) {
      if (seen.has(name)) continue;
      seen.add(name);
      (marks[name] ??= []).push(t);
    }
    scene = r.scene;
    await ctx.close();
  }
  times.sort((a, b) => a - b);
  log(`browser first frame: ${times.map((t) => t.toFixed(0)).join(', ')} ms (${scene})`);
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  // in the order the page reaches them
  const milestones = Object.entries(marks)
    .map(([name, v]) => ({ name, median: median(v), loads: v.length }))
    .sort((a, b) => a.median - b.median);
  return { ms: times, median: median(times), scene, milestones };
}

main().catch((e) => {
  log(`browser bench failed: ${e.stack ?? e}`);
  process.exit(1);
});

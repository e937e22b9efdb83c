// The lab's time from page load to its first simulated frame, shared by the browser bench
// (browser.mjs) and, run directly, an A/B of builds: each web/dist-like folder is served by vite
// preview and loaded in turn, fresh browser context each time, so that load on this shared
// machine falls on every build alike.
//
//   node scripts/bench/first-frame.mjs [--loads N] DIST_A DIST_B ...
//
// To build a revision: check it out (git worktree), `npm run build`, and pass its web/dist.
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { CHROMIUM_ARGS as TEST_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { ROOT } from './scenes.mjs';

/** The tests' Chromium flags (scripts/chromium.mjs), plus no background throttling. */
export const CHROMIUM_ARGS = [...TEST_ARGS, '--disable-background-timer-throttling', '--disable-renderer-backgrounding'];

/**
 * One load of the lab at `url` in a fresh context: ms from navigation start to the first frame
 * drawn after the physics has stepped (`__flexlab.state.steps > 0`, then one more drawn frame),
 * the scene's name, and the page's milestones (performance marks `flexlab:*`, the first time
 * each is reached; a later scene load marks again).
 */
export async function loadOnce(browser, url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
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
    await page.goto(url);
    await page.waitForFunction(() => typeof window.__firstFrameMs === 'number', null, { timeout: 60_000 });
    const r = await page.evaluate(() => ({
      ms: window.__firstFrameMs,
      scene: window.__flexlab.state.info?.name ?? '',
      marks: performance.getEntriesByType('mark').filter((m) => m.name.startsWith('flexlab:')).map((m) => [m.name.slice(8), m.startTime]),
    }));
    const seen = new Set();
    r.marks = r.marks.filter(([name]) => !seen.has(name) && seen.add(name));
    return r;
  } finally {
    await ctx.close();
  }
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/** Loads' times (sorted), their median, the scene, and each milestone's median in page order. */
export function summarize(loads) {
  const marks = {};
  for (const l of loads) for (const [name, t] of l.marks) (marks[name] ??= []).push(t);
  const milestones = Object.entries(marks)
    .map(([name, v]) => ({ name, median: median(v), loads: v.length }))
    .sort((a, b) => a.median - b.median);
  const ms = loads.map((l) => l.ms).sort((a, b) => a - b);
  return { ms, median: median(ms), scene: loads.at(-1)?.scene ?? '', milestones };
}

/** Serves `dist` with vite preview on `port` until `kill()`. */
export async function serve(dist, port) {
  const server = spawn(
    path.join(ROOT, 'node_modules/.bin/vite'),
    ['preview', '--config', 'web/vite.config.ts', '--outDir', path.resolve(dist), '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > end) {
      server.kill();
      throw new Error(`vite preview did not answer at ${url}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, kill: () => server.kill() };
}

async function ab(args) {
  const i = args.indexOf('--loads');
  const loads = i >= 0 ? Number(args.splice(i, 2)[1]) : 8;
  const dists = args;
  if (!dists.length) throw new Error('usage: first-frame.mjs [--loads N] DIST_A DIST_B ...');
  const servers = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    for (const [k, d] of dists.entries()) servers.push(await serve(d, 4191 + k));
    const runs = dists.map(() => []);
    for (let n = 0; n < loads; n++) for (const [k, s] of servers.entries()) runs[k].push(await loadOnce(browser, `${s.url}/`));
    for (const [k, d] of dists.entries()) {
      const r = summarize(runs[k]);
      console.log(`${d}: first simulated frame median ${r.median.toFixed(0)} ms of ${loads} (${r.ms.map((t) => t.toFixed(0)).join(' ')})`);
      console.log(`  milestones: ${r.milestones.map((m) => `${m.name} ${m.median.toFixed(0)}`).join(', ')}`);
    }
  } finally {
    await browser.close();
    for (const s of servers) s.kill();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ab(process.argv.slice(2)).catch((e) => {
    console.error(e.stack ?? e);
    process.exit(1);
  });
}

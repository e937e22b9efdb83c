/**
 * Helpers for the lab's specs: load models through the sandbox as a student would, and wait on
 * observable state (frames, steps, loads), never on wall-clock durations.
 */
import { readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';

export { expect };

/** A model from e2e/fixtures/models. */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/models/${name}`, import.meta.url), 'utf8');
}

/**
 * Opens the page and waits until the engine is ready, the first scene drew frames and the
 * lesson's text is rendered to its end.
 */
export async function openLab(page: Page, query = '?lang=en'): Promise<void> {
  await page.goto(`/${query}`);
  await page.waitForFunction(() => {
    const s = window.__flexlab?.state;
    const app = window.__flexlab?.app;
    return !!s && s.ready && app.started && app.lessonComplete && (s.loaded || s.error !== null || s.loads === 0);
  }, null, { timeout: 30_000 });
}

/** Waits until the bench has compiled a scene and drawn at least `frames` frames. */
export async function waitFrames(page: Page, frames = 3): Promise<void> {
  await page.waitForFunction((n) => {
    const s = window.__flexlab?.state;
    return !!s && s.loaded && s.frames >= n;
  }, frames, { timeout: 30_000 });
}

/** Pastes MJCF into the sandbox and loads it; resolves when it compiled (or failed). */
export async function loadSandbox(page: Page, xml: string): Promise<{ ok: boolean }> {
  const before = await page.evaluate(() => ({ loads: window.__flexlab.state.loads, errors: window.__flexlab.state.errors }));
  const panel = page.locator('details.sandbox');
  if (!(await panel.evaluate((d) => (d as HTMLDetailsElement).open))) await panel.locator('summary').click();
  // by role and label in English; by structure in Chinese
  const en = (await page.evaluate(() => document.documentElement.lang)) === 'en';
  await (en ? page.getByLabel('MJCF text') : panel.locator('textarea')).fill(xml);
  await (en ? page.getByRole('button', { name: 'Load model' }) : panel.locator('button.primary')).click();
  await page.waitForFunction(
    (b) => window.__flexlab.state.loads > b.loads || window.__flexlab.state.errors > b.errors,
    before,
    { timeout: 30_000 },
  );
  const ok = await page.evaluate((b) => window.__flexlab.state.loads > b.loads, before);
  if (ok) await page.waitForFunction(() => window.__flexlab.state.received > 0);
  // loading from the panel scrolls the bench; bring the scene back into view for the pointer
  await page.locator('canvas.view').scrollIntoViewIfNeeded();
  return { ok };
}

/** Waits until the worker has taken at least `n` steps since the last load or reset. */
export async function waitSteps(page: Page, n: number): Promise<void> {
  await page.waitForFunction((k) => (window.__flexlab.state.stats?.steps ?? 0) >= k, n, { timeout: 60_000 });
}

/** Number of distinct colours in the WebGL canvas (blank canvases have one or two). */
export async function canvasColours(page: Page): Promise<number> {
  return page.evaluate(() => {
    const src = document.querySelector('canvas.view') as HTMLCanvasElement;
    const c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height;
    const ctx = c.getContext('2d') as CanvasRenderingContext2D;
    ctx.drawImage(src, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < data.length; i += 16) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  });
}

/** The rendered canvas as a data URL (to compare two drawings). */
export async function canvasImage(page: Page): Promise<string> {
  return page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
}

/** Waits for a frame drawn after the worker handled every message sent so far. */
export async function settle(page: Page): Promise<void> {
  const sent = await page.evaluate(() => window.__flexlab.bench.sim.sent);
  await page.waitForFunction((n) => (window.__flexlab.state.stats?.handled ?? 0) >= n, sent);
}

/** Pauses, resets and waits until the page shows time 0 with the simulation stopped. */
export async function pauseAndReset(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.getByRole('toolbar').getByRole('button', { name: 'Reset', exact: true }).click();
  await settle(page);
  const s = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(s.time).toBe(0);
  expect(s.steps).toBe(0);
  expect(s.running).toBe(false);
}

/** Steps `n` times through the bench and waits for the frame that shows them. */
export async function stepAndWait(page: Page, n: number): Promise<void> {
  const target = await page.evaluate((k) => {
    const base = window.__flexlab.state.stats?.steps ?? 0;
    window.__flexlab.bench.step(k);
    return base + k;
  }, n);
  await settle(page);
  await page.waitForFunction((k) => (window.__flexlab.state.stats?.steps ?? 0) >= k, target);
}

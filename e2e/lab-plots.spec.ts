import { readFileSync } from 'node:fs';
import { test } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, pauseAndReset, stepAndWait } from './lab';

test('plots follow the running scene and export as CSV', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  await page.locator('details.plots summary').click();
  await expect(page.getByRole('group', { name: 'Energy (J)' })).toBeVisible();

  // while running, samples accumulate and the charts redraw
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  const first = await page.evaluate(() => {
    const p = window.__flexlab.app.plots;
    return { count: p.count, redraws: p.redraws };
  });
  await page.waitForFunction((f) => {
    const p = window.__flexlab.app.plots;
    return p.count > f.count + 20 && p.redraws > f.redraws + 2;
  }, first);
  // every chart has a y range: the edge chart too while no edge is selected (its "selected"
  // series is NaN then, which left it blank)
  const ranges = await page.evaluate(() => window.__flexlab.app.plots.yRanges());
  expect(ranges).toHaveLength(3);
  for (const [lo, hi] of ranges) expect(Number.isFinite(lo) && Number.isFinite(hi) && hi! > lo!).toBe(true);
  // the uPlot series hold the same samples
  const n = await page.evaluate(() => window.__flexlab.app.plots.count);
  expect(n).toBeGreaterThan(20);

  // deterministic record: reset, then exactly 50 single steps, each drawn as a frame
  await pauseAndReset(page);
  await page.getByRole('button', { name: 'Clear' }).click();
  for (let i = 0; i < 5; i++) await stepAndWait(page, 10);
  const count = await page.evaluate(() => window.__flexlab.app.plots.count);
  expect(count).toBeGreaterThanOrEqual(5);

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await (await download).path();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  expect(lines[0]).toBe('time,energy_potential,energy_kinetic,energy_elastic,flexedge_length_min,flexedge_length_mean,flexedge_length_max,flexedge_length_selected,penetration_max,contact_normal_force,ncon');
  expect(lines.length - 1).toBe(count);
  const last = lines[lines.length - 1].split(',').map(Number);
  expect(last[0]).toBeCloseTo(0.05, 9); // 50 steps of 1 ms
  // the rope falls: kinetic energy is positive, edges stretch past their rest length (0.03 m)
  expect(last[2]).toBeGreaterThan(0);
  expect(last[6]).toBeGreaterThan(0.03);
});

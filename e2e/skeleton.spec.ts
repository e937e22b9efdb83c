import { test } from '@playwright/test';
import { canvasColours, expect, sample, waitForScene } from './helpers';

test('the lab loads, draws the flex and animates; pause and reset work', async ({ page }) => {
  await page.goto('/?lang=en');
  await waitForScene(page, 5);
  expect(await canvasColours(page)).toBeGreaterThan(50);

  // vertices move between two frames while playing
  const a = await sample(page);
  await page.waitForTimeout(400);
  const b = await sample(page);
  expect(a.some((x, i) => Math.abs(x - b[i]) > 1e-4)).toBe(true);

  // pause: time stops
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.waitForTimeout(200);
  const t1 = await page.evaluate(() => window.__flexlab.state.time);
  await page.waitForTimeout(300);
  const t2 = await page.evaluate(() => window.__flexlab.state.time);
  expect(t2).toBe(t1);
  expect(t1).toBeGreaterThan(0);

  // reset: back to t = 0 and the initial shape
  await page.getByRole('button', { name: 'Reset' }).click();
  await page.waitForFunction(() => window.__flexlab.state.time === 0);
  await expect(page.getByRole('button', { name: 'Play' })).toBeVisible();
  await page.getByRole('button', { name: 'Play' }).click();
  await page.waitForFunction(() => window.__flexlab.state.time > 0.05);
});

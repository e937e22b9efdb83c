import { test } from '@playwright/test';
import { canvasColours, expect, openLab, settle, waitFrames } from './lab';

test('the lab loads, draws the flex and animates; pause and reset work', async ({ page }) => {
  await openLab(page, '?lang=en');
  await waitFrames(page, 5);
  expect(await canvasColours(page)).toBeGreaterThan(50);

  // vertices move while playing: a later frame shows them elsewhere
  const a = await page.evaluate(() => window.__flexlab.state.sample.slice());
  await page.waitForFunction(
    (s) => window.__flexlab.state.sample.some((x, i) => Math.abs(x - s[i]) > 1e-4),
    a,
  );

  // pause: the frame that reflects it is stopped, and time stays put in every later frame
  // (a speed change is one more command, answered by a frame, that must not restart the clock)
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await settle(page);
  const s1 = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(s1.running).toBe(false);
  expect(s1.time).toBeGreaterThan(0);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('2');
  await settle(page);
  const s2 = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(s2.running).toBe(false);
  expect(s2.time).toBe(s1.time);
  expect(s2.steps).toBe(s1.steps);

  // reset: back to t = 0 and the initial shape
  await page.getByRole('toolbar').getByRole('button', { name: 'Reset', exact: true }).click();
  await page.waitForFunction(() => window.__flexlab.state.time === 0);
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => window.__flexlab.state.time > 0.05);
});

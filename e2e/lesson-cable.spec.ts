import { test, type Page } from '@playwright/test';
import { expect, openLab, pauseAndReset, settle, stepAndWait } from './lab';

/**
 * Lesson B6, section 1: MuJoCo's cable (composite type="cable" + the cable plugin) as a student
 * meets it: the scene runs, the plugin's bend/twist moduli are parameters, and switching them
 * off lets the same chain of ball joints hang. MuJoCo 3.15.0 puts the last body 0.19742 m
 * higher after 1 s with the defaults than with bend = twist = 0 (the lesson's measurement).
 */
const CABLE_SCENE = '?lesson=b6-flex&lang=en&scene=cable-plugin#01-skin-flex-cable';
const LAST_BODY = 20; // cB_last

async function waitLoads(page: Page, n: number): Promise<void> {
  await page.waitForFunction((k) => window.__flexlab.state.loads >= k && !window.__flexlab.state.loading, n);
  await page.waitForFunction(() => window.__flexlab.state.received > 0);
}

/** Height of the cable's last body after `steps` steps from the reset state. */
async function tipHeight(page: Page, steps: number): Promise<number> {
  await pauseAndReset(page);
  await stepAndWait(page, steps);
  await settle(page);
  const xpos = await page.evaluate(async () => Array.from((await window.__flexlab.bench.sim.field('xpos')).values ?? []));
  return xpos[3 * LAST_BODY + 2];
}

async function setParam(page: Page, label: string, value: string): Promise<void> {
  const input = page.getByLabel(label);
  await input.fill(value);
  await input.press('Enter');
  await input.blur();
}

test('the cable scene runs the cable plugin; without bend and twist the chain hangs', async ({ page }) => {
  test.setTimeout(120_000);
  await openLab(page, CABLE_SCENE);
  await waitLoads(page, 1);
  await page.waitForFunction(() => window.__flexlab.state.info?.name === 'cable plugin');
  expect(await page.evaluate(() => window.__flexlab.state.error)).toBeNull();

  // a chain of bodies, no flex; every chain body names plugin instance 0
  await page.locator('details.inspector summary').click();
  await page.getByLabel('Field', { exact: true }).selectOption('body_plugin');
  await expect(page.locator('details.inspector .meta')).toContainText('body_plugin');
  const plugin = await page.evaluate(async () => Array.from((await window.__flexlab.bench.sim.field('body_plugin')).values ?? []));
  expect(plugin).toEqual([-1, ...Array(20).fill(0)]);

  await expect(page.getByLabel('bending modulus bend (E, Pa)')).toHaveValue('4000000');
  const held = await tipHeight(page, 500);
  const loads = await page.evaluate(() => window.__flexlab.state.loads);
  await setParam(page, 'bending modulus bend (E, Pa)', '0');
  await waitLoads(page, loads + 1);
  await setParam(page, 'twisting modulus twist (G, Pa)', '0');
  await waitLoads(page, loads + 2);
  expect(new URL(page.url()).searchParams.get('p.bend')).toBe('0');
  const hung = await tipHeight(page, 500);
  expect(held - hung).toBeCloseTo(0.19742, 4);

  // the lesson's live measurement (run when the card comes into view) says the same
  const card = page.locator('.measure-card[data-measure="m1-cable-plugin"]');
  await card.scrollIntoViewIfNeeded();
  await expect(card.locator('strong')).toHaveText(/^0\.197/, { timeout: 60_000 });
});

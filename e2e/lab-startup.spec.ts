import { test } from '@playwright/test';
import { expect, openLab, waitFrames } from './lab';

const LESSON = '?lesson=lab-test';

// web/src/boot.ts starts the physics and lesson workers before the main script runs; the
// clients must take those (not start their own), and a page without a lesson ends the spare one
test('the page runs on the workers it started first: two with a lesson, one without', async ({ page }) => {
  await openLab(page, `${LESSON}&lang=en`);
  await waitFrames(page, 2);
  await expect.poll(() => page.workers().length).toBe(2);

  const p2 = await page.context().newPage();
  await openLab(p2, '?lang=en&scene=sandbox');
  await expect.poll(() => p2.workers().length).toBe(1);
});

// the first scene is prepared and compiled while the lesson text is built (Bench.preload):
// a link whose scene does not compile must still say why, where a typed change would
test('a link to a scene that does not compile shows MuJoCo’s message under the parameters', async ({ page }) => {
  await openLab(page, `${LESSON}&lang=en&scene=jelly&p.integrator=implicitfast`);
  const err = page.locator('.params .param-error');
  await expect(err).toBeVisible();
  await expect(err).toContainText("flex elasticity is no longer integrated implicitly under integrator='implicit' and 'implicitfast': set integrator='discrete'");
  expect(await page.evaluate(() => window.__flexlab.state.loads)).toBe(0);
  await expect(page.getByLabel('integrator', { exact: true })).toHaveValue('implicitfast');
  // and the student can fix it from there
  await page.getByLabel('integrator', { exact: true }).selectOption('discrete');
  await page.waitForFunction(() => window.__flexlab.state.loads === 1);
  await expect(err).toBeHidden();
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-jelly');
});

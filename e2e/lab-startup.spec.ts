import { readFileSync } from 'node:fs';
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

// the first scene is prepared and compiled while the lesson text is built (App.startEarly):
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

// lesson/view.ts renders the sections up to the one shown at once and the rest once the scene
// moves; what the page adds to sections (field links, the scene on the bench) must reach the
// late ones too
test('the whole lesson renders after the scene starts, with field links and the active scene card', async ({ page }) => {
  await openLab(page, '?lesson=b6-flex&lang=en&scene=interp-box');
  await expect(page.locator('.lesson-section:empty')).toHaveCount(0);
  const late = page.locator('section[data-section="06-interpolation"]');
  await expect(late.locator('figure.scene-card[data-scene="interp-box"]')).toHaveClass(/active/);
  const text = readFileSync(new URL('../lessons/b6-flex/text/06-interpolation.en.md', import.meta.url), 'utf8');
  const named = text.split('`flex_interp`').length - 1;
  expect(named).toBeGreaterThan(0);
  await expect(late.getByRole('button', { name: /flex_interp: open in the field inspector/ })).toHaveCount(named);
  // a link to the last section renders it, and all before it, at once
  await page.goto('/?lesson=b6-flex&lang=en#08-contact');
  await page.waitForFunction(() => !!window.__flexlab?.app.started);
  const sections = page.locator('.lesson-section');
  const n = await sections.count();
  expect(await sections.nth(n - 1).evaluate((s) => s.childElementCount)).toBeGreaterThan(0);
});

import { test, type Page } from '@playwright/test';
import { expect, openLab, pauseAndReset, stepAndWait, waitFrames } from './lab';

/** The lab's own lesson (e2e/fixtures/lessons/lab-test): two sections, two scenes, two exercises. */
const LESSON = '?lesson=lab-test';

async function tipAfter(page: Page, steps: number): Promise<[number, number, number]> {
  await pauseAndReset(page);
  await stepAndWait(page, steps);
  return (await page.evaluate(() => window.__flexlab.bench.vertex(15)))!;
}

async function waitLoads(page: Page, n: number): Promise<void> {
  await page.waitForFunction((k) => window.__flexlab.state.loads >= k && !window.__flexlab.state.loading, n);
  await page.waitForFunction(() => window.__flexlab.state.received > 0);
}

test('a lesson renders from Markdown with math, sanitized, with contents and deep links', async ({ page }) => {
  await openLab(page, LESSON);
  // Chinese by default, with English terms
  await expect(page.getByRole('heading', { level: 2, name: '绳子 rope：边弹簧 edge springs' })).toBeVisible();
  await openLab(page, `${LESSON}&lang=en`);
  const nav = page.getByRole('navigation', { name: 'Contents' });
  await expect(nav.getByRole('link')).toHaveText(['A rope: edge springs', 'A jelly: the integrator']);
  // titles without numbers of their own get the list's
  expect(await nav.locator('ol').evaluate((e) => getComputedStyle(e).listStyleType)).toBe('decimal');
  const s1 = page.locator('section[data-section="01-rope"]');
  await expect(s1.locator('.katex').first()).toBeVisible();
  await expect(s1.locator('.math-display math')).toHaveCount(1); // MathML for screen readers
  // KaTeX draws \sqrt and \widehat as inline SVG, which the sanitizer keeps (the hat was lost)
  const drawn = s1.locator('.katex-html svg path');
  await expect(drawn).toHaveCount(2);
  for (const d of await drawn.evaluateAll((ps) => ps.map((p) => p.getAttribute('d') ?? ''))) {
    expect(d.length).toBeGreaterThan(20);
  }
  // raw HTML in lesson text is shown as text, never run
  await expect(s1).toContainText('<img src=x onerror="window.__pwned=1">');
  await expect(s1.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  // directives became live cards
  await expect(s1.locator('figure.scene-card')).toContainText('A rope');
  await expect(s1.locator('section.exercise')).toHaveCount(1);
  await expect(s1.locator('.measure-card strong')).toHaveText(/^0\.09\d*|^0\.1\d*/);
  // a field name in the text opens the inspector at that field
  await s1.getByRole('button', { name: /flexedge_length: open in the field inspector/ }).click();
  await expect(page.locator('details.inspector .meta')).toContainText('mjData.flexedge_length');

  // a deep link opens the section and puts its scene on the bench
  await page.goto(`/${LESSON}&lang=en#02-jelly`);
  await waitFrames(page, 2);
  await page.waitForFunction(() => window.__flexlab.state.info?.name === 'lab-jelly');
  await expect(page.locator('section[data-section="02-jelly"] figure.scene-card')).toHaveClass(/active/);
  // the table of contents navigates and loads that section's scene
  await page.getByRole('navigation', { name: 'Contents' }).getByRole('link', { name: 'A rope: edge springs' }).click();
  await page.waitForFunction(() => window.__flexlab.state.info?.name === 'lab-rope');
  expect(new URL(page.url()).hash).toBe('#01-rope');
});

test('changing a parameter recompiles and changes the motion; the link keeps it', async ({ page, context }) => {
  await openLab(page, `${LESSON}&lang=en&scene=rope`);
  await waitLoads(page, 1);
  const loads = await page.evaluate(() => window.__flexlab.state.loads);
  const soft = await tipAfter(page, 200);

  const stiffness = page.getByLabel('edge stiffness (N/m)');
  await expect(stiffness).toHaveValue('300');
  await stiffness.fill('3000');
  await stiffness.press('Enter');
  await stiffness.blur();
  await waitLoads(page, loads + 1);
  const stiff = await tipAfter(page, 200);
  // the same 200 steps end elsewhere: stiff edges swing the tip inward, soft ones let it drop
  expect(soft[0] - stiff[0]).toBeGreaterThan(0.01);
  expect(new URL(page.url()).searchParams.get('p.stiffness')).toBe('3000');

  // the copied link reproduces the same motion
  const p2 = await context.newPage();
  await p2.goto(page.url());
  await waitFrames(p2, 2);
  await expect(p2.getByLabel('edge stiffness (N/m)')).toHaveValue('3000');
  const again = await tipAfter(p2, 200);
  again.forEach((x, i) => expect(x).toBeCloseTo(stiff[i], 6));
});

test('a rejected configuration shows MuJoCo’s message under the parameters', async ({ page }) => {
  await openLab(page, `${LESSON}&lang=en&scene=jelly`);
  await waitLoads(page, 1);
  const loads = await page.evaluate(() => window.__flexlab.state.loads);
  await page.getByLabel('integrator', { exact: true }).selectOption('implicitfast');
  const err = page.locator('.params .param-error');
  await expect(err).toBeVisible();
  await expect(err).toContainText("flex elasticity is no longer integrated implicitly under integrator='implicit' and 'implicitfast': set integrator='discrete'");
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-jelly');
  await page.getByLabel('integrator', { exact: true }).selectOption('discrete');
  await waitLoads(page, loads + 1);
  await expect(err).toBeHidden();
});

test('exercises: commit a prediction, Check, Try again, Show answer; progress is kept', async ({ page, context }) => {
  await openLab(page, `${LESSON}&lang=en`);
  const nav = page.getByRole('navigation', { name: 'Contents' });
  const marks = nav.locator('.toc-progress [aria-hidden="true"]');
  const summary = nav.locator('.lesson-progress');
  const startOver = nav.getByRole('button', { name: 'Start over' });
  // exercises are numbered in reading order; the contents count what is right per section
  await expect(page.locator('section.exercise h3')).toHaveText(['Exercise 1', 'Exercise 2']);
  await expect(marks).toHaveText(['0/1', '0/1']);
  await expect(summary).toHaveText('Exercises: 0 of 2 right');
  await expect(startOver).toBeHidden();
  const ex = page.locator('section.exercise[data-exercise="sag"]');
  const input = ex.getByLabel('Your prediction');
  await input.fill('0.3');
  await ex.getByRole('button', { name: 'Check', exact: true }).click();
  await expect(ex.getByRole('status')).toContainText('Not quite', { timeout: 30_000 });
  await expect(ex.locator('.committed')).toContainText('0.3');
  await expect(input).toHaveJSProperty('readOnly', true);
  await expect(ex.getByRole('button', { name: 'Show answer' })).toBeVisible();
  await ex.getByRole('button', { name: 'Try again' }).click();
  await expect(input).toHaveJSProperty('readOnly', false);
  await input.fill('0.1');
  await ex.getByRole('button', { name: 'Check', exact: true }).click();
  await expect(ex.getByRole('status')).toContainText('Right', { timeout: 30_000 });
  await expect(ex.locator('.explain')).toContainText('The engine measures');
  await expect(marks).toHaveText(['✓', '0/1']);
  await expect(nav.locator('.toc-progress').first()).toHaveAttribute('title', '1 of 1 exercises right');
  await expect(nav.locator('.toc-progress .visually-hidden').first()).toHaveText('1 of 1 exercises right');
  await expect(summary).toHaveText('Exercises: 1 of 2 right');

  // a choice exercise, answered wrongly, then the answer shown
  const ch = page.locator('section.exercise[data-exercise="implicit"]');
  await ch.getByLabel('It compiles').check();
  await ch.getByRole('button', { name: 'Check', exact: true }).click();
  await expect(ch.getByRole('status')).toContainText('Not quite', { timeout: 30_000 });
  await ch.getByRole('button', { name: 'Show answer' }).click();
  await expect(ch.locator('.explain')).toContainText('compiles = 0');

  // progress survives a reload
  await page.reload();
  await waitFrames(page, 1);
  await expect(page.locator('section.exercise[data-exercise="sag"]')).toHaveAttribute('data-state', 'right');
  await expect(page.locator('section.exercise[data-exercise="sag"]').getByLabel('Your prediction')).toHaveValue('0.1');
  await expect(page.locator('section.exercise[data-exercise="implicit"]')).toHaveAttribute('data-state', 'shown');
  await expect(marks).toHaveText(['✓', '0/1']);
  await expect(summary).toHaveText('Exercises: 1 of 2 right; answers shown: 1');

  // Start over asks first; declining keeps everything
  page.once('dialog', (d) => void d.dismiss());
  await startOver.click();
  await expect(page.locator('section.exercise[data-exercise="sag"]')).toHaveAttribute('data-state', 'right');
  // accepted in another tab of the lab, it clears this tab's cards and contents as well
  const other = await context.newPage();
  await openLab(other, `${LESSON}&lang=en`);
  other.once('dialog', (d) => void d.accept());
  await other.getByRole('navigation', { name: 'Contents' }).getByRole('button', { name: 'Start over' }).click();
  for (const p of [other, page]) {
    await expect(p.locator('section.exercise[data-exercise="sag"]')).toHaveAttribute('data-state', 'open');
    await expect(p.locator('section.exercise[data-exercise="sag"]').getByLabel('Your prediction')).toHaveValue('');
    await expect(p.locator('section.exercise[data-exercise="implicit"]')).toHaveAttribute('data-state', 'open');
    await expect(p.locator('.toc-progress [aria-hidden="true"]')).toHaveText(['0/1', '0/1']);
    await expect(p.locator('.lesson-progress')).toHaveText('Exercises: 0 of 2 right');
    await expect(p.getByRole('navigation', { name: 'Contents' }).getByRole('button', { name: 'Start over' })).toBeHidden();
  }
});

test('a broken lesson lists its mistakes with file and line, and shows what could be read', async ({ page }) => {
  // e2e/fixtures/lessons/lab-broken: an exercise names a scene that does not exist
  await openLab(page, '?lesson=lab-broken&lang=en');
  const box = page.locator('.lesson-errors');
  await expect(box).toBeVisible();
  await expect(box.locator('li')).toHaveText(["exercises.toml:4: 'fall': unknown scene 'dorp'"]);
  await expect(page.getByRole('heading', { level: 2, name: 'Section one' })).toBeVisible();
  await expect(page.locator('figure.scene-card')).toContainText('A falling ball');
});

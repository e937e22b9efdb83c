import AxeBuilder from '@axe-core/playwright';
import { test, type Page } from '@playwright/test';
import { canvasColours, expect, fixture, loadSandbox, openLab, settle, waitFrames } from './lab';

async function openEverything(page: Page): Promise<void> {
  for (const cls of ['inspector', 'plots', 'sandbox']) {
    const d = page.locator(`details.${cls}`);
    if (!(await d.evaluate((e) => (e as HTMLDetailsElement).open))) await d.locator('summary').click();
  }
  await page.locator('details.inspector select').selectOption('flexvert_xpos');
  await expect(page.locator('details.inspector table.fields tbody tr').first()).toBeVisible();
}

async function seriousViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

for (const lang of ['en', 'zh']) {
  test(`axe finds no serious or critical violation (${lang})`, async ({ page }) => {
    await openLab(page, `?lang=${lang}&scene=sandbox`);
    expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
    await openEverything(page);
    // a compile error on show, too
    expect((await loadSandbox(page, fixture('rejected.xml'))).ok).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
  });
}

for (const query of ['?lesson=lab-test&lang=en', '?lesson=lab-test', '?lang=en']) {
  test(`axe finds no serious or critical violation on a lesson page (${query})`, async ({ page }) => {
    await openLab(page, query);
    await waitFrames(page, 2);
    // an exercise answered (feedback on show) and the parameter panel open
    const ex = page.locator('section.exercise').first();
    const radio = ex.locator('input[type="radio"]').first();
    if (await radio.count()) await radio.check();
    else await ex.locator('input[type="number"]').fill('0.3');
    await ex.locator('button.primary').click();
    await expect(ex).toHaveAttribute('data-state', /wrong|right|open/, { timeout: 30_000 });
    await expect(ex.locator('.feedback')).not.toHaveText(/Measuring|测量/, { timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);
  });
}

test('exercise buttons have their English names', async ({ page }) => {
  await openLab(page, '?lesson=lab-test&lang=en');
  const ex = page.locator('section.exercise[data-exercise="sag"]');
  await expect(ex.getByRole('button', { name: 'Check', exact: true })).toBeVisible();
  await ex.getByLabel('Your prediction').fill('1');
  await ex.getByLabel('Your prediction').press('Enter');
  await expect(ex.getByRole('button', { name: 'Try again', exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(ex.getByRole('button', { name: 'Show answer', exact: true })).toBeVisible();
});

test('transport controls have their English names and work from the keyboard', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  const bar = page.getByRole('toolbar', { name: 'Simulation controls' });
  for (const name of ['Play', 'Pause', 'Step', 'Reset']) await expect(bar.getByRole('button', { name, exact: true })).toBeVisible();
  await expect(bar.getByRole('combobox', { name: 'Speed' })).toBeVisible();

  // Tab from the top of the page reaches Pause, and Enter presses it
  await page.locator('body').focus();
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.textContent === 'Pause');
  }
  expect(reached).toBe(true);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__flexlab.state.stats?.running === false);
  // Shift+Tab back to Play, Space runs
  await page.keyboard.press('Shift+Tab');
  await expect(page.locator(':focus')).toHaveText('Play');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => window.__flexlab.state.stats?.running === true);
  // the scene itself takes keys when focused: space pauses, → steps
  await page.locator('canvas.view').focus();
  await page.keyboard.press(' ');
  await page.waitForFunction(() => window.__flexlab.state.stats?.running === false);
  const s0 = await page.evaluate(() => window.__flexlab.state.stats!.steps);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((s) => window.__flexlab.state.stats!.steps === s + 1, s0);

  // every button, input and select has an accessible name
  const unnamed = await page.evaluate(() => {
    const out: string[] = [];
    for (const e of Array.from(document.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]'))) {
      if (e.closest('[hidden]') || (e as HTMLInputElement).type === 'hidden') continue;
      const id = e.id;
      const labelled = e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (id && document.querySelector(`label[for="${id}"]`)) || e.closest('label') || (e.textContent ?? '').trim();
      if (!labelled) out.push(e.outerHTML.slice(0, 80));
    }
    return out;
  });
  expect(unnamed).toEqual([]);
});

test('the canvas is drawn (non-blank) in Chromium with SwiftShader, and toggles change it', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('box.xml'))).ok).toBe(true);
  await waitFrames(page, 5);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  expect(await canvasColours(page)).toBeGreaterThan(50);
  await settle(page);
  const f0 = await page.evaluate(() => window.__flexlab.state.frames);
  await page.waitForFunction((n) => window.__flexlab.state.frames > n, f0);
  const img0 = await page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
  await page.getByRole('checkbox', { name: 'Edges' }).check();
  // the toggle's handler has run; the next drawn frame shows it
  const f1 = await page.evaluate(() => window.__flexlab.state.frames);
  await page.waitForFunction((n) => window.__flexlab.state.frames > n, f1);
  const img1 = await page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
  expect(img1).not.toBe(img0);
});

for (const [w, h] of [[1280, 800], [1024, 768], [820, 1180]]) {
  test(`the lesson and the bench fit a ${w}×${h} screen`, async ({ page }) => {
    await page.setViewportSize({ width: w, height: h });
    await openLab(page, '?lesson=lab-test&lang=en');
    await waitFrames(page, 2);
    // nothing runs off the side of the page
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(w);
    const canvas = (await page.locator('canvas.view').boundingBox())!;
    const lesson = (await page.locator('.lesson-view').boundingBox())!;
    expect(canvas.width).toBeGreaterThan(300);
    expect(canvas.x + canvas.width).toBeLessThanOrEqual(w);
    expect(lesson.x + lesson.width).toBeLessThanOrEqual(w);
    if (w >= 1200) expect(lesson.x + lesson.width).toBeLessThanOrEqual(canvas.x); // side by side
    else expect(canvas.y + canvas.height).toBeLessThanOrEqual(lesson.y); // bench above the text
    await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeInViewport();
  });
}

import { test } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, waitFrames } from './lab';

test('a copied link restores the model, camera, view toggles and language', async ({ page, context }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  const xml = fixture('cable.xml');
  expect((await loadSandbox(page, xml)).ok).toBe(true);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  // the student changes what they see: toggles, and the camera (orbit by dragging empty space)
  await page.getByRole('checkbox', { name: 'Edges' }).check();
  await page.getByRole('checkbox', { name: 'Vertices' }).check();
  await page.getByRole('checkbox', { name: 'Pins' }).uncheck();
  const box = (await page.locator('canvas.view').boundingBox())!;
  const cam0 = await page.evaluate(() => window.__flexlab.bench.viewer.cameraState());
  await page.mouse.move(box.x + 20, box.y + box.height - 20);
  await page.mouse.down();
  await page.mouse.move(box.x + 140, box.y + box.height - 60, { steps: 8 });
  await page.mouse.up();
  const cam1 = await page.evaluate(() => window.__flexlab.bench.viewer.cameraState());
  expect(cam1).not.toEqual(cam0);
  await page.waitForFunction((c) => new URL(location.href).searchParams.get('cam') === c.join(','), cam1);

  // "Copy link" puts the address on the clipboard; the address is the state
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Link copied' })).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toBe(page.url());
  const u = new URL(link);
  expect(u.searchParams.get('scene')).toBe('sandbox');
  expect(u.searchParams.get('show')).toBe('edges,vertices');
  expect(u.searchParams.get('mjcf')).toBeTruthy();

  // a fresh page (its own storage, so the model must come from the link) shows the same
  const other = await context.browser()!.newContext();
  const p2 = await other.newPage();
  await p2.goto(link);
  await waitFrames(p2, 2);
  expect(await p2.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-cable');
  expect(await p2.getByLabel('MJCF text').inputValue()).toBe(xml);
  const cam2 = await p2.evaluate(() => window.__flexlab.bench.viewer.cameraState());
  cam2.forEach((x, i) => expect(x).toBeCloseTo(cam1[i], 3));
  await expect(p2.getByRole('checkbox', { name: 'Edges' })).toBeChecked();
  await expect(p2.getByRole('checkbox', { name: 'Vertices' })).toBeChecked();
  await expect(p2.getByRole('checkbox', { name: 'Pins' })).not.toBeChecked();
  expect(await p2.evaluate(() => document.documentElement.lang)).toBe('en');

  // the language toggle keeps the state and switches to Chinese
  await p2.getByRole('link', { name: /Switch to Chinese/ }).click();
  await waitFrames(p2, 2);
  expect(await p2.evaluate(() => document.documentElement.lang)).toBe('zh-Hans');
  await expect(p2.getByRole('button', { name: '运行 Play' })).toBeVisible();
  const cam3 = await p2.evaluate(() => window.__flexlab.bench.viewer.cameraState());
  cam3.forEach((x, i) => expect(x).toBeCloseTo(cam1[i], 3));
  expect(await p2.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-cable');
  await other.close();
});

test('a link naming a scene the lesson does not have opens the lesson and its first scene, and says so', async ({ page }) => {
  for (const query of ['?lang=en&scene=drape-bal', '?lang=en&lesson=b6-flex&scene=drape-bal']) {
    await openLab(page, query);
    await waitFrames(page, 2);
    await expect(page.getByRole('heading', { level: 2, name: /^B6 Flex/ })).toBeVisible();
    // the lesson's first scene is on the bench, and the address now names it
    const first = await page.locator('figure.scene-card').first().getAttribute('data-scene');
    await expect(page.locator('figure.scene-card.active').first()).toHaveAttribute('data-scene', first!);
    await page.waitForFunction((id) => new URL(location.href).searchParams.get('scene') === id, first);
    await expect(page.getByRole('alert')).toContainText('scene “drape-bal” that this lesson does not have');
  }
});

test('a link naming a lesson that does not exist opens the first lesson, and says so', async ({ page }) => {
  await openLab(page, '?lang=en&lesson=b7-nope');
  await waitFrames(page, 2);
  await expect(page.getByRole('note')).toHaveText('There is no lesson “b7-nope” (mistyped or outdated link?).');
  await expect(page.getByRole('heading', { level: 2, name: /^B6 Flex/ })).toBeVisible();
});

test('a link to a section the lesson does not have shows the lesson from the start, and says so', async ({ page }) => {
  await openLab(page, '?lang=en#09-ipc');
  await waitFrames(page, 2);
  await expect(page.getByRole('note')).toHaveText('This lesson has no section “09-ipc” (mistyped or outdated link?); it is shown from the start.');
  await expect(page.getByRole('heading', { level: 2, name: /^B6 Flex/ })).toBeInViewport();
  // the skip link's target is a place on the page, not a missing section
  await openLab(page, '?lang=en#bench');
  await waitFrames(page, 2);
  await expect(page.getByRole('note')).toHaveCount(0);
});

test('a sandbox link whose model is cut short says so and offers the lessons', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox&mjcf=AbCd');
  await expect(page.getByRole('alert')).toContainText('The model in this link could not be read (is the link complete?)');
  await expect(page.getByRole('status').filter({ hasText: 'No scene loaded' })).toBeVisible();
  await page.getByRole('link', { name: /^B6 Flex/ }).click();
  await waitFrames(page, 2);
  expect(new URL(page.url()).searchParams.get('lesson')).toBe('b6-flex');
  await expect(page.getByRole('heading', { level: 2, name: /^B6 Flex/ })).toBeVisible();
});

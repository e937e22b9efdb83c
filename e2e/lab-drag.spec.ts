import { test } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, pauseAndReset, stepAndWait } from './lab';

/** Grab the free end of the rope, pull it up on screen, step; compare with the same steps untouched. */
test('dragging a vertex pulls it with a spring (MuJoCo simulate perturbation)', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  await pauseAndReset(page);
  const tip = 15;

  // untouched: 300 steps of falling
  await stepAndWait(page, 300);
  const free = await page.evaluate((v) => window.__flexlab.bench.vertex(v), tip);
  await pauseAndReset(page);

  // grabbed: press on the tip vertex and pull the pointer 120 px up, then take the same steps
  const at = await page.evaluate((v) => window.__flexlab.bench.vertexOnScreen(v), tip);
  expect(at).not.toBeNull();
  await page.mouse.move(at!.x, at!.y);
  await page.mouse.down();
  await page.mouse.move(at!.x, at!.y - 60, { steps: 4 });
  await page.mouse.move(at!.x, at!.y - 120, { steps: 4 });
  await stepAndWait(page, 300);
  const pulled = await page.evaluate((v) => window.__flexlab.bench.vertex(v), tip);
  await page.mouse.up();

  expect(free).not.toBeNull();
  expect(pulled).not.toBeNull();
  // the free tip fell; the pulled one was held up by the spring (z is up in MuJoCo)
  expect(pulled![2]).toBeGreaterThan(free![2] + 0.03);
  // and the pinned vertex 0 did not move in either run
  const pin = await page.evaluate(() => window.__flexlab.bench.vertex(0));
  expect(pin![2]).toBeCloseTo(0.3, 5);
});

test('dragging a body pulls the body', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('box.xml'))).ok).toBe(true);
  await pauseAndReset(page);
  const boxAt = async () => (await page.evaluate(() => window.__flexlab.bench.geom(0)))!;
  const start = await boxAt();
  const c = await page.evaluate((p) => window.__flexlab.bench.onScreen(p), start);
  await page.mouse.move(c.x, c.y);
  await page.mouse.down();
  await page.mouse.move(c.x - 80, c.y, { steps: 5 });
  await stepAndWait(page, 200);
  await page.mouse.up();
  const end = await boxAt();
  const moved = Math.hypot(end[0] - start[0], end[1] - start[1], end[2] - start[2]);
  expect(moved).toBeGreaterThan(0.02);
});

test('interpolation nodes are drawn on request and can be grabbed', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('interp.xml'))).ok).toBe(true);
  expect(await page.evaluate(() => window.__flexlab.state.info!.sizes.nflexnode)).toBe(8);
  await pauseAndReset(page);
  const img0 = await page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
  await page.getByRole('checkbox', { name: 'Interpolation nodes' }).check();
  await page.waitForFunction((b) => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL() !== b, img0);

  // with nodes shown, pressing on a node grabs its body; the box follows (zero gravity)
  const corner = 7;
  const start = (await page.evaluate((n) => window.__flexlab.bench.node(n), corner))!;
  const at = await page.evaluate((p) => window.__flexlab.bench.onScreen(p), start);
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  await page.mouse.move(at.x + 60, at.y - 60, { steps: 5 });
  await stepAndWait(page, 200);
  await page.mouse.up();
  const end = (await page.evaluate((n) => window.__flexlab.bench.node(n), corner))!;
  expect(Math.hypot(end[0] - start[0], end[1] - start[1], end[2] - start[2])).toBeGreaterThan(0.01);
});

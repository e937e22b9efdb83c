import AxeBuilder from '@axe-core/playwright';
import { test, type Page } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, pauseAndReset, settle, stepAndWait } from './lab';

/** A data field as the worker holds it now (after every command sent so far). */
async function field(page: Page, name: string): Promise<number[]> {
  await settle(page);
  return page.evaluate(async (n) => Array.from((await window.__flexlab.bench.sim.field(n)).values ?? []), name);
}

// e2e/fixtures/models/actuated.xml: a cart on slide joint `slide` driven by position actuator
// `push` (kp 40, ctrlrange ±0.2), a wheel on a hinge driven by an unnamed motor without
// ctrlrange; keyframe 0 sets push's control to 0.05. No gravity.

test('the Controls panel drives a position actuator on a slide joint', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('actuated.xml'))).ok).toBe(true);
  const panel = page.getByRole('region', { name: 'Controls' });
  await expect(panel).toBeVisible();
  const push = panel.getByRole('slider', { name: 'push' });
  const motor = panel.getByRole('slider', { name: 'actuator 1' });
  // ctrlrange when ctrllimited, else simulate's [-1, 1]; keyframe 0's control on show
  await expect(push).toHaveAttribute('min', '-0.2');
  await expect(push).toHaveAttribute('max', '0.2');
  await expect(motor).toHaveAttribute('min', '-1');
  await expect(motor).toHaveAttribute('max', '1');
  await expect(push).toHaveAttribute('aria-valuetext', '0.050');
  await expect(panel.locator('.control[data-actuator="0"] output')).toHaveText('0.050');
  await expect(panel.locator('.control[data-actuator="0"] .control-meta')).toHaveText('joint slide · ctrlrange [-0.2, 0.2]');
  await expect(panel.locator('.control[data-actuator="1"] .control-meta')).toContainText('joint spin');

  // untouched: the position servo brings the cart to keyframe 0's target, 0.05
  await pauseAndReset(page);
  expect(await field(page, 'ctrl')).toEqual([0.05, 0]);
  await stepAndWait(page, 1000);
  const kept = (await field(page, 'qpos'))[0];
  expect(kept).toBeCloseTo(0.05, 2);

  // from the keyboard: Home puts push at its lower limit; the worker's ctrl follows, and the
  // same steps bring the cart to the new target instead
  await pauseAndReset(page);
  await push.focus();
  await page.keyboard.press('Home');
  await expect(push).toHaveAttribute('aria-valuetext', '-0.200');
  expect(await field(page, 'ctrl')).toEqual([-0.2, 0]);
  await stepAndWait(page, 1000);
  const q = await field(page, 'qpos');
  expect(q[0]).toBeCloseTo(-0.2, 2);
  // the actuator acts through actuator_force and qfrc_actuator (gear 1 on a slide: the same)
  const force = (await field(page, 'actuator_force'))[0];
  expect((await field(page, 'qfrc_actuator'))[0]).toBeCloseTo(force, 12);

  const insp = page.locator('details.inspector');
  await insp.locator('summary').click();
  await page.getByLabel('Filter by name').fill('actuator_');
  await page.getByLabel('Field', { exact: true }).selectOption('actuator_ctrlrange');
  await expect(insp.locator('.meta')).toContainText('mjModel.actuator_ctrlrange · 2 rows × 2');
  await expect(insp.locator('table.fields tbody td')).toHaveText(['-0.2', '0.2', '0', '0']);
  await page.getByLabel('Field', { exact: true }).selectOption('actuator_force');
  await expect(insp.locator('.meta')).toContainText('mjData.actuator_force · 2 rows × 1');
  await page.getByLabel('Filter by name').fill('ctrl');
  await page.getByLabel('Field', { exact: true }).selectOption('ctrl');
  await expect(insp.locator('.meta')).toContainText('mjData.ctrl · 2 rows × 1');
  await expect(insp.locator('table.fields tbody td')).toHaveText(['-0.2', '0']);

  // Reset restores keyframe 0's controls, and the slider shows it
  await page.getByRole('toolbar').getByRole('button', { name: 'Reset', exact: true }).click();
  await expect(push).toHaveAttribute('aria-valuetext', '0.050');
  expect(await field(page, 'ctrl')).toEqual([0.05, 0]);

  // the pointer: pressing near the right end of the motor's slider sets a large positive
  // control; running, the wheel spins up toward its steady speed (torque 0.05 u against
  // damping 0.05: u rad/s)
  const box = (await motor.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.95, box.y + box.height / 2);
  const u = (await field(page, 'ctrl'))[1];
  expect(u).toBeGreaterThan(0.5);
  expect(await page.evaluate(() => window.__flexlab.app.controls.current[1])).toBe(u);
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(async () => (await field(page, 'qvel'))[1], { timeout: 30_000 }).toBeGreaterThan(u / 2);

  // Clear zeroes every control (the worker's too)
  await page.getByRole('button', { name: 'Clear all controls' }).click();
  await expect(push).toHaveAttribute('aria-valuetext', '0.000');
  await expect(motor).toHaveAttribute('aria-valuetext', '0.00');
  expect(await field(page, 'ctrl')).toEqual([0, 0]);

  // the address still holds just the model; a fresh page restores it with its controls
  const link = page.url();
  const url = new URL(link);
  expect(url.searchParams.get('scene')).toBe('sandbox');
  expect(url.searchParams.get('mjcf')).toBeTruthy();
  const other = await page.context().browser()!.newContext();
  const p2 = await other.newPage();
  await p2.goto(link);
  await p2.waitForFunction(() => window.__flexlab?.state.loaded && window.__flexlab.state.received > 0);
  expect(await p2.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-actuated');
  await expect(p2.getByRole('slider', { name: 'push' })).toHaveAttribute('aria-valuetext', '0.050');
  await other.close();
});

test('a control set while paused shows in the data at once; a model without actuators has no Controls panel', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('actuated.xml'))).ok).toBe(true);
  await pauseAndReset(page);
  const push = page.getByRole('slider', { name: 'push' });
  await push.focus();
  await page.keyboard.press('End');
  await expect(push).toHaveAttribute('aria-valuetext', '0.200');
  // paused, the worker recomputes the forward pass (as simulate does): force = kp (ctrl − qpos)
  const force = (await field(page, 'actuator_force'))[0];
  expect(force).toBeCloseTo(40 * 0.2, 9);
  expect((await field(page, 'qpos'))[0]).toBe(0);

  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  await expect(page.locator('section.controls')).toBeHidden();
  await expect(page.getByRole('slider')).toHaveCount(0);
});

for (const lang of ['en', 'zh']) {
  test(`the Controls panel is named and passes axe (${lang})`, async ({ page }) => {
    await openLab(page, `?lang=${lang}&scene=sandbox`);
    expect((await loadSandbox(page, fixture('actuated.xml'))).ok).toBe(true);
    const panel = page.locator('section.controls');
    await expect(panel).toBeVisible();
    const names = lang === 'en'
      ? { region: 'Controls', clear: 'Clear all controls', unnamed: 'actuator 1' }
      : { region: '控制 controls', clear: '全部控制清空 Clear all controls', unnamed: '执行器 actuator 1' };
    await expect(page.getByRole('region', { name: names.region })).toBeVisible();
    await expect(panel.getByRole('button', { name: names.clear })).toBeVisible();
    await expect(panel.getByRole('slider', { name: names.unnamed })).toBeVisible();
    const r = await new AxeBuilder({ page }).include('section.controls').analyze();
    expect(r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  });
}

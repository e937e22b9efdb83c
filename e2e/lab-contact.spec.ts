import { test } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, pauseAndReset, settle, stepAndWait } from './lab';

test('contacts and constraint rows show in the status, inspector, plots and scene', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('drop.xml'))).ok).toBe(true);
  await pauseAndReset(page);
  await stepAndWait(page, 100); // 0.2 s: the cloth has fallen onto the floor
  const s = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(s.ncon).toBeGreaterThan(0);
  expect(s.nefc).toBeGreaterThan(0);
  await expect(page.locator('.bench .status')).toContainText(`ncon ${s.ncon} · nefc ${s.nefc}`);
  expect(s.probe.penetration).toBeGreaterThan(0);
  expect(s.probe.contactForce).toBeGreaterThan(0);

  // the inspector lists every contact and every efc row
  await page.locator('details.inspector summary').click();
  const field = page.getByLabel('Field', { exact: true });
  await field.selectOption('contact');
  const meta = page.locator('details.inspector .meta');
  await expect(meta).toContainText(`mjData.contact · ${s.ncon} rows × 19`);
  await expect(page.locator('details.inspector thead th')).toContainText(['#', 'dist', 'pos.x']);
  await field.selectOption('efc_force');
  await expect(meta).toContainText(`mjData.efc_force · ${s.nefc} rows × 1`);
  // 108 dofs: MuJoCo keeps efc_J sparse, one row per nonzero, and the inspector says so
  await field.selectOption('efc_J');
  await expect(meta).toContainText('mjData.efc_J ·');
  await expect(meta).toContainText('MuJoCo keeps efc_J sparse (CSR) for this model');
  await expect(page.locator('details.inspector').getByRole('button', { name: /^efc_J\[0\]/ })).toHaveCount(0);

  // selecting a contact highlights its flex vertex in the scene
  await field.selectOption('contact');
  await settle(page);
  const img0 = await page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
  await page.locator('details.inspector').getByRole('button', { name: /^contact\[0\]/ }).click();
  await page.waitForFunction((b) => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL() !== b, img0);

  // contact points and normals, and force arrows, are drawn on request
  const img1 = await page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
  await page.getByRole('checkbox', { name: 'Contacts and normals' }).check();
  await page.getByRole('checkbox', { name: 'Force arrows' }).check();
  await page.waitForFunction((b) => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL() !== b, img1);
});

test('an adhesive contact pulls: the ceiling holds a box, and the net contact force is minus its weight', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('adhesion.xml'))).ok).toBe(true);
  await pauseAndReset(page);
  await stepAndWait(page, 250); // 0.5 s: the box hangs, still
  const s = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(s.ncon).toBe(4);
  // mj_contactForce's normal: the solver's cone force less the adhesion, negative while pulling;
  // the four hold the 1 kg box against gravity (9.81 N)
  expect(s.probe.contactForce).toBeCloseTo(-9.81, 2);

  // the inspector lists each contact's adhesion
  await page.locator('details.inspector summary').click();
  await page.getByLabel('Field', { exact: true }).selectOption('contact');
  await expect(page.locator('details.inspector thead th')).toContainText(['adhesion']);
  await expect(page.locator('details.inspector tbody tr').first()).toContainText('10');
});

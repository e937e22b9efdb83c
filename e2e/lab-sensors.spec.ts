import { readFileSync } from 'node:fs';
import { test, type Page } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, pauseAndReset, stepAndWait } from './lab';

/** Resets, clears the plots, steps `batches` × 10 times and returns the exported CSV's lines. */
async function recordCsv(page: Page, batches: number): Promise<string[]> {
  await pauseAndReset(page);
  await page.getByRole('button', { name: 'Clear' }).click();
  for (let i = 0; i < batches; i++) await stepAndWait(page, 10);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  return readFileSync(await (await download).path(), 'utf8').trim().split('\n');
}

test("the sensor chart follows a model's sensordata", async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  await page.locator('details.plots summary').click();
  const chart = page.getByRole('group', { name: 'Sensors: sensordata (the model’s <sensor>)' });

  // a model without sensors has no sensor chart
  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  await expect(chart).toBeHidden();

  expect((await loadSandbox(page, fixture('sensors.xml'))).ok).toBe(true);
  await expect(chart).toBeVisible();
  // one series per value: the sensor's name, or its element and id, with the component
  for (const label of ['angle', 'speed', 'framepos 2[0]', 'framepos 2[2]', 'clock 3']) {
    await expect(chart.locator('.u-legend .u-label', { hasText: label })).toHaveCount(1);
  }

  const lines = await recordCsv(page, 5);
  const header = lines[0].split(',');
  expect(header.slice(-6)).toEqual(['sensordata[0]', 'sensordata[1]', 'sensordata[2]', 'sensordata[3]', 'sensordata[4]', 'sensordata[5]']);
  const last = lines[lines.length - 1].split(',').map(Number);
  const time = last[0];
  const [angle, speed, x, , z, clock] = last.slice(-6);
  // MuJoCo computes sensors in the forward pass at the start of a step: the clock reads the
  // time before the step (timestep 1 ms)
  expect(time).toBeCloseTo(0.05, 9);
  expect(clock).toBeCloseTo(time - 0.001, 12);
  // the arm swings down (positive rotation about y lowers its tip), and the tip is where
  // the angle puts it
  expect(angle).toBeGreaterThan(0);
  expect(speed).toBeGreaterThan(0);
  expect(x).toBeCloseTo(0.2 * Math.cos(angle), 9);
  expect(z).toBeCloseTo(0.5 - 0.2 * Math.sin(angle), 9);
});

test('a model with more sensor values than one chart shows: the student picks where the chart starts', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  await page.locator('details.plots summary').click();
  const chart = page.getByRole('group', { name: 'Sensors: sensordata (the model’s <sensor>)' });
  const pick = chart.getByRole('combobox', { name: 'Plot 8 values from sensor' });

  // six values fit one chart: no picker
  expect((await loadSandbox(page, fixture('sensors.xml'))).ok).toBe(true);
  await expect(pick).toBeHidden();

  // fifteen do not: the chart starts at the first sensor, and the picker lists every sensor
  expect((await loadSandbox(page, fixture('sensors_many.xml'))).ok).toBe(true);
  await expect(pick).toBeVisible();
  await expect(pick.locator('option')).toHaveText([
    'angle (sensordata[0])', 'speed (sensordata[1])', 'framepos 2 (sensordata[2])', 'clock 3 (sensordata[5])',
    'pivot_force (sensordata[6])', 'pivot_torque (sensordata[9])', 'tip_acc (sensordata[12])',
  ]);
  await expect(chart.locator('.u-legend .u-label', { hasText: 'pivot_force[1]' })).toHaveCount(1);
  await expect(chart.locator('.u-legend .u-label', { hasText: 'tip_acc' })).toHaveCount(0);

  // from the accelerometer on: its three values, and the CSV names them by their index
  await pick.selectOption({ label: 'tip_acc (sensordata[12])' });
  for (const label of ['tip_acc[0]', 'tip_acc[1]', 'tip_acc[2]']) {
    await expect(chart.locator('.u-legend .u-label', { hasText: label })).toHaveCount(1);
  }
  await expect(chart.locator('.u-legend .u-label', { hasText: 'angle' })).toHaveCount(0);
  const lines = await recordCsv(page, 3);
  expect(lines[0].split(',').slice(-3)).toEqual(['sensordata[12]', 'sensordata[13]', 'sensordata[14]']);
  // an accelerometer reads at least gravity's share: the arm falls from rest, so |a − g| > 0
  const acc = lines[lines.length - 1].split(',').slice(-3).map(Number);
  expect(acc.every(Number.isFinite)).toBe(true);
  expect(Math.hypot(...acc)).toBeGreaterThan(1);

  // the inspector says which arrays only such sensors fill, and this model's are filled
  const insp = page.locator('details.inspector');
  await insp.locator('summary').click();
  await page.getByLabel('Filter by name').fill('cfrc_int');
  await page.getByLabel('Field', { exact: true }).selectOption('cfrc_int');
  await expect(insp.locator('.meta')).toContainText('mjData.cfrc_int · 2 rows × 6');
  await expect(insp.locator('.meta')).toContainText('computed only when a sensor of the model needs it');
  const arm = (await insp.locator('table.fields tbody tr').nth(1).locator('td').allTextContents()).slice(1).map(Number);
  expect(arm.some((v) => v !== 0)).toBe(true);
});

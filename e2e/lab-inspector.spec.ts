import { test } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, pauseAndReset } from './lab';

test('the inspector shows flex_vertadr and live data by MuJoCo name, and highlights a selected vertex', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  // two flexes, so flex_vertadr has two rows: 0 and the first flex's vertex count
  const xml = fixture('cable.xml').replace(
    '</worldbody>',
    `  <flexcomp name="second" type="grid" dim="1" count="5 1 1" spacing=".03 .03 .03" pos="0 .2 .3" radius=".006" mass="0.05">
        <pin id="0"/><edge stiffness="300"/><contact selfcollide="none"/>
      </flexcomp>
    </worldbody>`,
  );
  expect((await loadSandbox(page, xml)).ok).toBe(true);
  const sizes = await page.evaluate(() => window.__flexlab.state.info!.sizes);
  expect(sizes.nflex).toBe(2);

  const insp = page.locator('details.inspector');
  await insp.locator('summary').click();
  await page.getByLabel('Filter by name').fill('flex_vertadr');
  await page.getByLabel('Field', { exact: true }).selectOption('flex_vertadr');
  const table = insp.locator('table.fields');
  await expect(table.locator('caption')).toHaveText('flex_vertadr');
  await expect(insp.locator('.meta')).toContainText('mjModel.flex_vertadr · 2 rows × 1');
  const cells = table.locator('tbody td');
  await expect(cells).toHaveText(['0', '16']);

  // a data field by name, per vertex, rows selectable; selecting one highlights it in the scene
  await pauseAndReset(page);
  await page.getByLabel('Filter by name').fill('flexvert_xpos');
  await page.getByLabel('Field', { exact: true }).selectOption('flexvert_xpos');
  await expect(insp.locator('.meta')).toContainText(`mjData.flexvert_xpos · ${sizes.nflexvert} rows × 3`);
  await expect(table.locator('thead th')).toHaveText(['#', 'x', 'y', 'z']);
  await expect(table.locator('tbody tr').nth(15).locator('td').first()).toHaveText('0.45');
  const before = await page.evaluate(() => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL());
  await table.getByRole('button', { name: /flexvert_xpos\[15\]/ }).click();
  await expect(table.getByRole('button', { name: /flexvert_xpos\[15\]/ })).toHaveAttribute('aria-pressed', 'true');
  await page.waitForFunction((b) => (document.querySelector('canvas.view') as HTMLCanvasElement).toDataURL() !== b, before);

  // live updates while running keep keyboard focus where it is
  const row3 = table.getByRole('button', { name: /flexvert_xpos\[3\]/ });
  const cell = table.locator('tbody tr').nth(3).locator('td').nth(2);
  const z0 = await cell.textContent();
  await row3.focus();
  await page.evaluate(() => window.__flexlab.bench.play()); // run without moving focus
  await expect(cell).not.toHaveText(z0!);
  await expect(row3).toBeFocused();
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  // the edge list: selecting an edge is followed by the edge-length plot
  await page.getByLabel('Filter by name').fill('flexedge_length');
  await page.getByLabel('Field', { exact: true }).selectOption('flexedge_length');
  await expect(insp.locator('.meta')).toContainText(`${sizes.nflexedge} rows × 1`);
  await table.getByRole('button', { name: /flexedge_length\[3\]/ }).click();
  await page.waitForFunction(() => Number.isFinite(window.__flexlab.state.stats?.probe.edgeSel));

  // contacts and constraint rows are listed even when empty (ncon = 0 here)
  await page.getByLabel('Filter by name').fill('');
  await expect(page.getByLabel('Field', { exact: true }).locator('option[value="contact"]')).toHaveCount(1);
  await expect(page.getByLabel('Field', { exact: true }).locator('option[value="efc_force"]')).toHaveCount(1);
  await page.getByLabel('Field', { exact: true }).selectOption('contact');
  await expect(insp.locator('.meta')).toContainText('mjData.contact · 0 rows × 19');
});

test('on a wide screen the scene stays in view beside the inspector a field link opens', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openLab(page, '?lang=en');
  const link = page.locator('button.field-link').first();
  await link.scrollIntoViewIfNeeded();
  const name = (await link.textContent())!.trim();
  await link.click();
  const insp = page.locator('details.inspector');
  await expect(insp).toHaveAttribute('open', '');
  await expect(insp.locator('table.fields caption')).toHaveText(name);
  // the bench column scrolled to the inspector; the scene and its transport are still in view,
  // and the field's values (what the student came for) are in view below them, not under them
  const visible = async (sel: string) => {
    const pane = (await page.locator('.bench-pane').boundingBox())!;
    const box = (await page.locator(sel).first().boundingBox())!;
    return box.y >= pane.y - 1 && box.y + box.height <= pane.y + pane.height + 1;
  };
  await expect.poll(() => visible('.bench canvas.view')).toBe(true);
  expect(await visible('.bench .toolbar')).toBe(true);
  await expect.poll(() => visible('details.inspector .table-wrap')).toBe(true);
  const stage = (await page.locator('.bench .stage').boundingBox())!;
  const top = (await insp.locator('.table-wrap').boundingBox())!.y;
  expect(top).toBeGreaterThanOrEqual(stage.y + stage.height - 1);
  expect(await page.locator('.bench-pane').evaluate((p) => p.scrollTop)).toBeGreaterThan(0);
  // keyboard focus moving up the panels is not hidden behind the stage either
  await page.locator('.bench-pane').evaluate((p) => p.scrollTo(0, p.scrollHeight));
  const filter = page.getByLabel('Filter by name');
  await filter.focus();
  const stageNow = (await page.locator('.bench .stage').boundingBox())!;
  expect((await filter.boundingBox())!.y).toBeGreaterThanOrEqual(stageNow.y + stageNow.height - 1);
});

test('a field chosen while a live refresh is in flight is shown, not dropped', async ({ page }) => {
  await openLab(page, '?lang=en');
  const insp = page.locator('details.inspector');
  await insp.locator('summary').click();
  await page.getByLabel('Field', { exact: true }).selectOption('qpos');
  await expect(insp.locator('table.fields caption')).toHaveText('qpos');
  // a live refresh of qpos starts, and before it returns the student picks a model field (live
  // refreshes skip model fields, so a dropped read would leave qpos's values there for good)
  await page.evaluate(() => {
    const i = window.__flexlab.app.inspector as unknown as { read(live: boolean): Promise<void>; show(name: string): Promise<void> };
    void i.read(true);
    void i.show('flex_vertadr');
  });
  await expect(insp.locator('table.fields caption')).toHaveText('flex_vertadr');
  await expect(insp.locator('.meta')).toContainText('mjModel.flex_vertadr');
});

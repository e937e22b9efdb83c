import { readFileSync } from 'node:fs';
import { test, type Page } from '@playwright/test';
import { expect, fixture, loadSandbox, openLab, stepAndWait, waitFrames, waitSteps } from './lab';

/** Drops files on the sandbox as they are on disk, byte for byte (binary meshes included). */
async function dropBytes(page: Page, files: Array<[string, Buffer]>): Promise<void> {
  await page.locator('details.sandbox').evaluate((panel, list) => {
    const dt = new DataTransfer();
    for (const [name, bytes] of list) dt.items.add(new File([new Uint8Array(bytes)], name));
    panel.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map(([name, b]): [string, number[]] => [name, [...b]]));
}

test('a rejected configuration shows MuJoCo’s message and keeps the scene', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  expect((await loadSandbox(page, fixture('rejected.xml'))).ok).toBe(false);
  const alert = page.locator('.bench .stage > .message');
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('The model did not compile');
  await expect(alert).toContainText("flex elasticity is no longer integrated implicitly under integrator='implicit' and 'implicitfast': set integrator='discrete'");
  // the previous scene is still on the bench
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-cable');
  // a schema error names the attribute and the line
  expect((await loadSandbox(page, '<mujoco>\n<worldbody>\n<geom type="sphere" sise="1"/>\n</worldbody>\n</mujoco>')).ok).toBe(false);
  await expect(alert).toContainText("unrecognized attribute: 'sise'");
  await expect(alert).toContainText('line 3');
});

test('a model MuJoCo warns about loads, with MuJoCo’s warning beside it until the next model', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  // a cloth with neither edge stiffness, damping, bending nor equality: MuJoCo 3.15.0 warns
  const bare = `<mujoco>
<worldbody>
<geom type="plane" size="1 1 .1"/>
<flexcomp name="sheet" type="grid" dim="2" count="4 4 1" spacing=".05 .05 .05" pos="0 0 .3" radius=".005" mass=".1">
<contact selfcollide="none"/>
</flexcomp>
</worldbody>
</mujoco>`;
  expect((await loadSandbox(page, bare)).ok).toBe(true);
  const alert = page.locator('.bench .stage > .message');
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('The model loaded with compile warnings');
  await expect(alert).toContainText("flex 'sheet' is not rigid and has no equality constraints or passive forces");
  await expect(alert).toContainText("Element 'flex', name 'sheet', line 4");
  // it runs, and the warning stays through a reset
  await waitSteps(page, 5);
  await page.getByRole('toolbar').getByRole('button', { name: 'Reset', exact: true }).click();
  await expect(alert).toContainText("flex 'sheet' is not rigid");
  // edge damping is a passive force: no warning, and the box goes
  expect((await loadSandbox(page, bare.replace('<contact', '<edge damping="0.01"/>\n<contact'))).ok).toBe(true);
  await expect(alert).toBeHidden();
});

test('a diverging simulation pauses with a message and recovers after Reset', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('diverging.xml'))).ok).toBe(true);
  // it autoplays; explicit Euler blows up within a second of simulated time
  const alert = page.getByRole('alert').filter({ hasText: 'diverged' });
  await expect(alert).toBeVisible({ timeout: 30_000 });
  await expect(alert).toContainText('mjWARN_BADQACC');
  const stats = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(stats.running).toBe(false);
  // Play does nothing while diverged; the alert's own Reset button recovers
  await alert.getByRole('button', { name: 'Reset' }).click();
  await expect(alert).toBeHidden();
  await page.waitForFunction(() => window.__flexlab.state.stats!.time === 0 && window.__flexlab.state.stats!.diverged === null);
  const sample = await page.evaluate(() => window.__flexlab.state.sample.slice());
  expect(sample.every(Number.isFinite)).toBe(true);
  await stepAndWait(page, 20);
  const after = await page.evaluate(() => window.__flexlab.state.stats!);
  expect(after.time).toBeCloseTo(0.08, 9);
  expect(after.diverged).toBeNull();
  await expect(page.getByRole('alert').filter({ hasText: 'diverged' })).toBeHidden();
});

test('a wasm failure shows a message and a Reset button, and the engine comes back', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('cable.xml'))).ok).toBe(true);
  const loads = await page.evaluate(() => window.__flexlab.state.loads);
  await page.evaluate(() => window.__flexlab.bench.sim.selftestCrash());
  const alert = page.getByRole('alert').filter({ hasText: 'engine failed' });
  await expect(alert).toBeVisible();
  await expect(alert.getByRole('button', { name: 'Reset' })).toBeVisible();
  // the worker was restarted and the same model compiled again
  await page.waitForFunction(() => window.__flexlab.state.crashes === 1 && window.__flexlab.state.received > 0);
  await alert.getByRole('button', { name: 'Reset' }).click();
  await expect(alert).toBeHidden();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => (window.__flexlab.state.stats?.time ?? 0) > 0.02);
  expect(await page.evaluate(() => window.__flexlab.state.loads)).toBe(loads);
});

test('the page stays responsive while a heavy scene steps', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  expect((await loadSandbox(page, fixture('heavy.xml'))).ok).toBe(true);
  await waitSteps(page, 2);
  // the worker cannot keep up with real time, and says so
  await page.waitForFunction(() => {
    const s = window.__flexlab.state.stats;
    return !!s && s.running && s.realtime > 0 && s.realtime < 1;
  }, null, { timeout: 60_000 });
  await expect(page.getByRole('status').filter({ hasText: 'heavy scene' })).toBeVisible();
  // input is handled meanwhile: a toggle, typing, a select, and the physics keeps stepping
  const steps0 = await page.evaluate(() => window.__flexlab.state.stats!.steps);
  const edges = page.getByRole('checkbox', { name: 'Edges' });
  await edges.check();
  await expect(edges).toBeChecked();
  await page.locator('details.inspector summary').click();
  await page.getByLabel('Filter by name').fill('flexedge');
  await expect(page.getByLabel('Field', { exact: true }).locator('option')).not.toHaveCount(0);
  await page.getByLabel('Field', { exact: true }).selectOption('flexedge_length');
  await expect(page.locator('details.inspector .meta')).toContainText('flexedge_length');
  await waitSteps(page, steps0 + 2);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.waitForFunction(() => window.__flexlab.state.stats?.running === false);
});

test('an oversized model is refused before it reaches the engine', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  await expect(page.getByLabel('MJCF text')).toBeVisible();
  // 600 KB of text (set directly: typing it would take minutes)
  await page.getByLabel('MJCF text').evaluate((t) => {
    (t as HTMLTextAreaElement).value = `<mujoco><!-- ${'x'.repeat(600 * 1024)} --></mujoco>`;
  });
  await page.getByRole('button', { name: 'Load model' }).click();
  await expect(page.locator('details.sandbox .note')).toContainText('too large');
  expect(await page.evaluate(() => window.__flexlab.state.loads)).toBe(0);
});

test('a dropped .xml file is loaded into the sandbox', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  const xml = fixture('cable.xml');
  await page.locator('details.sandbox').evaluate((panel, text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'rope.xml', { type: 'text/xml' }));
    panel.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    panel.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, xml);
  await page.waitForFunction(() => window.__flexlab.state.loads === 1);
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-cable');
  await expect(page.getByLabel('MJCF text')).toHaveValue(xml);
});

test('a model dropped with the files it includes and reads is loaded; alone, it says what is missing', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  const dir = new URL('./fixtures/models/multi/', import.meta.url);
  const files = [['tent.xml', 'tent.xml'], ['floor.xml', 'floor.xml'], ['tent.obj', 'asset/tent.obj']].map(([name, path]) => ({
    name,
    text: readFileSync(new URL(path, dir), 'utf8'),
  }));
  const drop = (list: Array<{ name: string; text: string }>) =>
    page.locator('details.sandbox').evaluate((panel, l) => {
      const dt = new DataTransfer();
      for (const f of l) dt.items.add(new File([f.text], f.name));
      panel.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, list);

  // the model alone: MuJoCo's message names the included file, and the sandbox says what to do
  await drop(files.slice(0, 1));
  await page.waitForFunction(() => window.__flexlab.state.errors === 1);
  await expect(page.getByRole('alert')).toContainText("Error opening file 'floor.xml'");
  await expect(page.getByRole('alert')).not.toContainText(", file '"); // the pasted text has no file name
  await expect(page.locator('details.sandbox').getByRole('status')).toHaveText(/files it includes or reads/);

  // all three, in any order: the model is the file no other includes; the mesh is found under meshdir
  await drop([files[2], files[1], files[0]]);
  await page.waitForFunction(() => window.__flexlab.state.loads === 1);
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('lab-multi');
  expect(await page.evaluate(() => window.__flexlab.state.info!.sizes.ngeom)).toBe(2);
  await expect(page.getByLabel('MJCF text')).toHaveValue(files[0].text);
  await expect(page.getByText('Beside tent.xml: tent.obj, floor.xml')).toBeVisible();

  // the files stay beside the model text for the next load, until forgotten
  await page.getByRole('button', { name: 'Load model' }).click();
  await page.waitForFunction(() => window.__flexlab.state.loads === 2);
  await page.getByRole('button', { name: 'Forget these files' }).click();
  await page.getByRole('button', { name: 'Load model' }).click();
  await page.waitForFunction(() => window.__flexlab.state.errors === 2);
});

// MuJoCo's own examples, read from ../shared as the compatibility tests read them (never copied)
test('MuJoCo’s bunny example loads when dropped with scene.xml and asset/bunny.obj', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  const dir = new URL('../../shared/oracle/mujoco-examples/', import.meta.url);
  const files = ['scene.xml', 'asset/bunny.obj', 'bunny.xml'].map((path) => ({
    name: path.split('/').pop()!,
    text: readFileSync(new URL(path, dir), 'utf8'),
  }));
  await page.locator('details.sandbox').evaluate((panel, l) => {
    const dt = new DataTransfer();
    for (const f of l) dt.items.add(new File([f.text], f.name));
    panel.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
  await page.waitForFunction(() => window.__flexlab.state.loads === 1 || window.__flexlab.state.errors > 0);
  expect(await page.evaluate(() => window.__flexlab.state.error)).toBeNull();
  const model = /<mujoco model="([^"]+)"/.exec(files[2].text)![1];
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe(model);
  expect(await page.evaluate(() => window.__flexlab.state.info!.sizes.nflexvert)).toBeGreaterThan(100);
  await waitFrames(page, 2);
});

test('a model dropped with its binary STL mesh loads, the mesh read byte for byte', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  const dir = new URL('../crate/tests/models/', import.meta.url);
  // the STL is binary (not UTF-8): its bytes must reach the engine unchanged
  await dropBytes(
    page,
    ['mesh_stl.xml', 'gem.stl'].map((f): [string, Buffer] => [f, readFileSync(new URL(f, dir))]),
  );
  await page.waitForFunction(() => window.__flexlab.state.loads === 1 || window.__flexlab.state.errors > 0);
  expect(await page.evaluate(() => window.__flexlab.state.error)).toBeNull();
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('mesh_stl');
  // MuJoCo's decoder merges the 24 corners of the 8 triangles into 6 vertices
  const sizes = await page.evaluate(() => window.__flexlab.state.info!.sizes);
  expect([sizes.nmesh, sizes.nmeshvert, sizes.nmeshface]).toEqual([1, 6, 8]);
  await waitFrames(page, 2);
});

test('a flexcomp dropped with its binary GMSH tetrahedra loads and steps', async ({ page }) => {
  await openLab(page, '?lang=en&scene=sandbox');
  const dir = new URL('../crate/tests/models/', import.meta.url);
  // the mesh first: the model is found by what it reads, not by its place in the drop
  await dropBytes(
    page,
    ['gmsh_block41_binary.msh', 'gmsh_block_binary.xml'].map((f): [string, Buffer] => [f, readFileSync(new URL(f, dir))]),
  );
  await page.waitForFunction(() => window.__flexlab.state.loads === 1 || window.__flexlab.state.errors > 0);
  expect(await page.evaluate(() => window.__flexlab.state.error)).toBeNull();
  expect(await page.evaluate(() => window.__flexlab.state.info!.name)).toBe('gmsh_block_binary');
  // the 36 nodes and 72 tetrahedra of the file (scripts/oracle/gmsh-fixtures.py)
  const sizes = await page.evaluate(() => window.__flexlab.state.info!.sizes);
  expect([sizes.nflexvert, sizes.nflexelem]).toEqual([36, 72]);
  await waitFrames(page, 2);
});

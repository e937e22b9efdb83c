/**
 * Lesson B6 walked through as a student: every section reached through the contents and by a
 * deep link, and each of the nine exercises answered once wrongly, then rightly.
 *
 * Everything the spec answers comes from the lesson's own files: the section order from
 * lesson.toml, titles and scene cards from the English text, and for each exercise its kind,
 * choices, `expect`, tolerance and feedback from exercises.toml. A wrong number is derived to lie
 * far outside the tolerance; a wrong choice is a choice other than `expect`. The engine measures
 * and judges in the lesson worker, so the waits are on the exercise's `data-state` and text.
 */
import { readFileSync } from 'node:fs';
import { test, type Page } from '@playwright/test';
import { expect, openLab, waitFrames } from './lab';

const LESSON_ID = 'b6-flex';
const LESSON = `?lesson=${LESSON_ID}&lang=en`;

function lessonFile(path: string): string {
  return readFileSync(new URL(`../lessons/${LESSON_ID}/${path}`, import.meta.url), 'utf8');
}

/** A TOML basic string literal's value (the lesson files use only \" escapes). */
function unquote(s: string): string {
  return JSON.parse(s) as string;
}

// ---------------------------------------------------------------- the lesson's data

const sections: string[] = (() => {
  const m = /sections\s*=\s*\[([^\]]*)\]/.exec(lessonFile('lesson.toml'));
  if (!m) throw new Error('lesson.toml: no sections');
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
})();

interface Section {
  id: string;
  title: string;
  firstScene: string | null;
}

const sectionInfo: Section[] = sections.map((id) => {
  const md = lessonFile(`text/${id}.en.md`);
  const title = /^# (.+)$/m.exec(md)?.[1].trim() ?? id;
  const firstScene = /^::: scene (\S+)\s*$/m.exec(md)?.[1] ?? null;
  return { id, title, firstScene };
});

interface Exercise {
  id: string;
  section: string;
  kind: 'number' | 'choice';
  choices: { id: string; en: string }[];
  expect: string | number;
  tolerance: { relative?: number; absolute?: number };
  right: string;
  wrong: string;
}

/** The `[[exercise]]` blocks of exercises.toml, read for the fields this spec needs. */
const exercises: Exercise[] = (() => {
  const text = lessonFile('exercises.toml').split(/^\[\[measurement\]\]/m)[0];
  const blocks = text.split(/^\[\[exercise\]\]\s*$/m).slice(1);
  const STR = '("(?:[^"\\\\]|\\\\.)*")';
  const field = (b: string, key: string): string | undefined =>
    new RegExp(`^${key}\\s*=\\s*${STR}`, 'm').exec(b)?.[1];
  const en = (b: string, key: string): string => {
    const m = new RegExp(`^${key}\\s*=\\s*\\{.*\\ben\\s*=\\s*${STR}`, 'm').exec(b);
    if (!m) throw new Error(`exercises.toml: no ${key}.en`);
    return unquote(m[1]);
  };
  return blocks.map((b) => {
    const id = unquote(field(b, 'id')!);
    const kind = unquote(field(b, 'kind')!) as Exercise['kind'];
    const choices = [...b.matchAll(new RegExp(`\\{\\s*id\\s*=\\s*${STR}.*\\ben\\s*=\\s*${STR}\\s*\\}`, 'g'))].map(
      (m) => ({ id: unquote(m[1]), en: unquote(m[2]) }),
    );
    const answer = b.split(/^\[exercise\.answer\]\s*$/m)[1]?.split(/^\[/m)[0] ?? '';
    const ex = /^expect\s*=\s*(.+)$/m.exec(answer)?.[1].trim();
    if (ex === undefined) throw new Error(`exercises.toml: ${id} has no expect`);
    const tol = /^tolerance\s*=\s*\{\s*(relative|absolute)\s*=\s*([-\d.eE+]+)\s*\}/m.exec(answer);
    return {
      id,
      section: unquote(field(b, 'section')!),
      kind,
      choices: kind === 'choice' ? choices : [],
      expect: ex.startsWith('"') ? unquote(ex) : Number(ex),
      tolerance: tol ? { [tol[1]]: Number(tol[2]) } : {},
      right: en(b, 'right'),
      wrong: en(b, 'wrong'),
    };
  });
})();

/** Whether a number would be accepted for a numeric exercise with this expect and tolerance. */
function within(ex: Exercise, v: number): boolean {
  const e = ex.expect as number;
  const tol = ex.tolerance.absolute ?? (ex.tolerance.relative ?? 0) * Math.abs(e);
  return Math.abs(v - e) <= tol;
}

/** A wrong prediction: for a number, a quarter of the expected value (or far above it). */
function wrongAnswer(ex: Exercise): string {
  if (ex.kind === 'choice') {
    const other = ex.choices.find((c) => c.id !== ex.expect);
    if (!other) throw new Error(`${ex.id}: no wrong choice`);
    return other.id;
  }
  const e = ex.expect as number;
  const v = e !== 0 ? e / 4 : 10 * (ex.tolerance.absolute ?? 1) + 1;
  if (within(ex, v)) throw new Error(`${ex.id}: ${v} is not outside the tolerance`);
  return String(v);
}

/** A feedback text as it appears on the page, up to its first inline-Markdown mark. */
function visible(text: string): string {
  return text.split(/["`*_]/)[0].trim();
}

// ---------------------------------------------------------------- the student's actions

async function answer(page: Page, ex: Exercise, prediction: string): Promise<void> {
  const card = page.locator(`section.exercise[data-exercise="${ex.id}"]`);
  if (ex.kind === 'number') {
    await card.getByLabel('Your prediction').fill(prediction);
  } else {
    const c = ex.choices.find((x) => x.id === prediction)!;
    await card.getByLabel(c.en, { exact: true }).check();
  }
  await card.getByRole('button', { name: 'Check', exact: true }).click();
}

/** The measured check runs in the lesson worker (several simulated runs under SwiftShader). */
const CHECK_TIMEOUT = 150_000;

// ---------------------------------------------------------------- the tests

test('the lesson data this spec reads is complete', () => {
  expect(sections).toHaveLength(8);
  expect(exercises).toHaveLength(9);
  for (const ex of exercises) {
    expect(sections).toContain(ex.section);
    if (ex.kind === 'choice') {
      expect(ex.choices.length).toBeGreaterThanOrEqual(2);
      expect(ex.choices.map((c) => c.id)).toContain(ex.expect);
    } else {
      expect(typeof ex.expect).toBe('number');
      expect(Object.keys(ex.tolerance)).toHaveLength(1);
    }
  }
});

test('every section is listed in the contents and reached through it', async ({ page }) => {
  test.setTimeout(180_000);
  await openLab(page, LESSON);
  const nav = page.getByRole('navigation', { name: 'Contents' });
  await expect(nav.getByRole('link')).toHaveText(sectionInfo.map((s) => s.title));
  // the titles carry their numbers ("1. …"): the list does not number them a second time
  expect(sectionInfo.every((s) => /^\d+\./.test(s.title))).toBe(true);
  expect(await nav.locator('ol').evaluate((e) => getComputedStyle(e).listStyleType)).toBe('none');
  // visit them from the last to the first, so every click moves somewhere new
  for (const s of [...sectionInfo].reverse()) {
    await nav.getByRole('link', { name: s.title, exact: true }).click();
    const sec = page.locator(`section[data-section="${s.id}"]`);
    const heading = sec.getByRole('heading', { level: 2 }).first();
    await expect(heading).toHaveText(s.title);
    await expect(heading).toBeInViewport();
    await expect(sec).toBeFocused();
    if (s.firstScene) {
      await expect(sec.locator(`figure.scene-card[data-scene="${s.firstScene}"]`)).toHaveClass(/active/, { timeout: 60_000 });
      await waitFrames(page, 1);
    }
  }
});

for (const s of sectionInfo) {
  test(`a contents click on ${s.id} puts #${s.id} in the address bar`, async ({ page }) => {
    test.setTimeout(90_000);
    // start from another section, so the click moves somewhere new
    const from = s.id === sections[0] ? sections[sections.length - 1] : sections[0];
    await openLab(page, `${LESSON}#${from}`);
    await expect(page.locator(`section[data-section="${from}"]`)).toBeFocused();
    await page.getByRole('navigation', { name: 'Contents' }).getByRole('link', { name: s.title, exact: true }).click();
    const sec = page.locator(`section[data-section="${s.id}"]`);
    await expect(sec).toBeFocused();
    if (s.firstScene) {
      await expect(sec.locator(`figure.scene-card[data-scene="${s.firstScene}"]`)).toHaveClass(/active/, { timeout: 60_000 });
      await waitFrames(page, 1);
    }
    // the address bar holds the state once the bench has settled on the section's scene
    await expect.poll(() => new URL(page.url()).hash).toBe(`#${s.id}`);
  });
}

for (const s of sectionInfo) {
  test(`deep link #${s.id} opens that section and its scene`, async ({ page }) => {
    test.setTimeout(90_000);
    await openLab(page, `${LESSON}#${s.id}`);
    const sec = page.locator(`section[data-section="${s.id}"]`);
    await expect(sec).toBeInViewport();
    await expect(sec.getByRole('heading', { level: 2 }).first()).toHaveText(s.title);
    for (const ex of exercises.filter((e) => e.section === s.id)) {
      await expect(sec.locator(`section.exercise[data-exercise="${ex.id}"]`)).toBeVisible();
    }
    if (s.firstScene) {
      await expect(sec.locator(`figure.scene-card[data-scene="${s.firstScene}"]`)).toHaveClass(/active/, { timeout: 60_000 });
      await waitFrames(page, 1);
    }
  });
}

for (const ex of exercises) {
  test(`exercise ${ex.id} (${ex.kind}): a wrong answer, then the right one`, async ({ page }) => {
    test.setTimeout(2 * CHECK_TIMEOUT + 60_000);
    await openLab(page, `${LESSON}#${ex.section}`);
    const card = page.locator(`section.exercise[data-exercise="${ex.id}"]`);
    await expect(card).toHaveAttribute('data-state', 'open');
    const status = card.getByRole('status');

    // wrong
    const wrong = wrongAnswer(ex);
    await answer(page, ex, wrong);
    await expect(card).toHaveAttribute('data-state', 'wrong', { timeout: CHECK_TIMEOUT });
    await expect(status).toContainText('✗ Not quite');
    await expect(status).toContainText(visible(ex.wrong));
    await expect(card.locator('.committed')).toContainText(wrong);
    await expect(card.getByRole('button', { name: 'Show answer' })).toBeVisible();

    // right
    await card.getByRole('button', { name: 'Try again' }).click();
    await expect(card).toHaveAttribute('data-state', 'open');
    const right = String(ex.expect);
    await answer(page, ex, right);
    await expect(card).toHaveAttribute('data-state', 'right', { timeout: CHECK_TIMEOUT });
    await expect(status).toContainText('✓ Right');
    await expect(status).toContainText(visible(ex.right));
    await expect(card.locator('.committed')).toContainText(right);
    // the engine's measurement is shown with the explanation; a number meets the answer
    const measured = card.locator('.explain .measured strong');
    await expect(measured).toBeVisible();
    if (ex.kind === 'number') {
      const v = Number.parseFloat((await measured.textContent()) ?? '');
      expect(within(ex, v), `measured ${v} against expect ${ex.expect}`).toBe(true);
    }
    await expect(card.getByRole('button', { name: 'Try again' })).toBeHidden();
  });
}

test('section 7: Euler at 2 ms diverges and pauses; a smaller step, the student’s fix, runs again', async ({ page }) => {
  test.setTimeout(120_000);
  await openLab(page, `${LESSON}#07-integrators`);
  await expect(page.locator('figure.scene-card[data-scene="integrator-block"]')).toHaveClass(/active/, { timeout: 60_000 });
  await page.getByLabel('integrator', { exact: true }).selectOption('Euler');
  const alert = page.getByRole('alert').filter({ hasText: 'diverged' });
  await expect(alert).toBeVisible({ timeout: 60_000 });
  expect(await page.evaluate(() => window.__flexlab.state.running)).toBe(false);
  // the pause was the divergence's, not the student's: the recompiled scene plays
  const loads = await page.evaluate(() => window.__flexlab.state.loads);
  await page.getByLabel('timestep (s)').fill('0.0001');
  await page.getByLabel('timestep (s)').press('Enter');
  await page.waitForFunction((n) => window.__flexlab.state.loads > n && !window.__flexlab.state.loading, loads);
  await expect(alert).toBeHidden();
  expect(await page.evaluate(() => window.__flexlab.state.running)).toBe(true);
  await page.waitForFunction(() => (window.__flexlab.state.stats?.time ?? 0) > 0.05, null, { timeout: 60_000 });
  expect(await page.evaluate(() => window.__flexlab.state.stats!.diverged)).toBeNull();
});

/**
 * The lesson files shipped with the page: every lesson folder under `lessons/` (and the lab's
 * own test lesson under `e2e/fixtures/lessons/`), as raw text, grouped by folder. Vite inlines
 * them at build time and reloads the page when one changes during development.
 */
import type { LessonFiles } from './types';

const raw = import.meta.glob(['../../../lessons/*/**/*.{toml,md,xml}', '../../../e2e/fixtures/lessons/*/**/*.{toml,md,xml}'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

/** Lessons used only by the lab's own tests: loadable by id, not listed. */
const HIDDEN_ROOT = 'e2e/fixtures/lessons/';

export interface LessonBundle {
  id: string;
  files: LessonFiles;
  hidden: boolean;
}

function group(): Map<string, LessonBundle> {
  const out = new Map<string, LessonBundle>();
  for (const [key, text] of Object.entries(raw)) {
    const path = key.replace(/^(\.\.\/)+/, '');
    const m = /^(lessons|e2e\/fixtures\/lessons)\/([^/]+)\/(.+)$/.exec(path);
    if (!m) continue;
    const [, root, id, rel] = m;
    let b = out.get(id);
    if (!b) {
      b = { id, files: [], hidden: `${root}/` === HIDDEN_ROOT };
      out.set(id, b);
    }
    b.files.push([rel, text]);
  }
  for (const b of out.values()) b.files.sort((a, c) => a[0].localeCompare(c[0]));
  return out;
}

const bundles = group();

/** Lesson folders that hold a `lesson.toml`, listed ones first. */
export function lessonIds(includeHidden = false): string[] {
  return [...bundles.values()].filter((b) => b.files.some(([p]) => p === 'lesson.toml') && (includeHidden || !b.hidden)).map((b) => b.id);
}

export function lessonBundle(id: string): LessonBundle | undefined {
  return bundles.get(id);
}

/** A scene file by its path from the repository root (`lessons/b6-flex/scenes/cable.xml`). */
export function sceneFile(path: string): string | undefined {
  const clean = path.replace(/^\/+/, '');
  const full = clean.startsWith('lessons/') || clean.startsWith('e2e/') ? clean : `lessons/${clean}`;
  const m = /^(lessons|e2e\/fixtures\/lessons)\/([^/]+)\/(.+)$/.exec(full);
  if (!m) return undefined;
  return bundles.get(m[2])?.files.find(([p]) => p === m[3])?.[1];
}

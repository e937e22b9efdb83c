/**
 * The lessons shipped with the page: every lesson folder under `lessons/` (and the lab's own
 * test lessons under `e2e/fixtures/lessons/`), compiled when the page is built by
 * `flexlab lessons bundle` (web/lessons-plugin.ts). Each one is what the lesson reader made of
 * the folder, errors included, as JSON for the engine's `Lesson` constructor.
 */
import compiledLessons from 'virtual:flexlab-lessons';
import type { LessonFiles } from './types';

export interface LessonBundle {
  id: string;
  /** The compiled lesson (JSON text), for the lesson worker. */
  compiled: string;
  /** The lesson folder's files, path relative to the folder → text. */
  readonly files: LessonFiles;
  hidden: boolean;
}

const filesOf = new Map<string, LessonFiles>();

function bundle(id: string): LessonBundle | undefined {
  const entry = Object.hasOwn(compiledLessons, id) ? compiledLessons[id] : undefined;
  if (!entry) return undefined;
  return {
    id,
    compiled: entry.compiled,
    hidden: entry.hidden,
    get files(): LessonFiles {
      let f = filesOf.get(id);
      if (!f) {
        const parsed = JSON.parse(entry.compiled) as { files?: Record<string, string> };
        f = Object.entries(parsed.files ?? {}).sort((a, c) => a[0].localeCompare(c[0]));
        filesOf.set(id, f);
      }
      return f;
    },
  };
}

/** Lesson folders (each holds a `lesson.toml`), listed ones first. */
export function lessonIds(includeHidden = false): string[] {
  const ids = Object.keys(compiledLessons).filter((id) => includeHidden || !compiledLessons[id].hidden);
  return ids.sort((a, c) => Number(compiledLessons[a].hidden) - Number(compiledLessons[c].hidden) || a.localeCompare(c));
}

/** A lesson's title (both languages), without reading the compiled lesson. */
export function lessonTitle(id: string): { zh?: string; en?: string } | undefined {
  return Object.hasOwn(compiledLessons, id) ? compiledLessons[id].title : undefined;
}

export function lessonBundle(id: string): LessonBundle | undefined {
  return bundle(id);
}

/** A scene file by its path from the repository root (`lessons/b6-flex/scenes/cable.xml`). */
export function sceneFile(path: string): string | undefined {
  const clean = path.replace(/^\/+/, '');
  const full = clean.startsWith('lessons/') || clean.startsWith('e2e/') ? clean : `lessons/${clean}`;
  const m = /^(lessons|e2e\/fixtures\/lessons)\/([^/]+)\/(.+)$/.exec(full);
  if (!m) return undefined;
  return bundle(m[2])?.files.find(([p]) => p === m[3])?.[1];
}

/**
 * Compiles the lessons when the page is built: `flexlab lessons bundle` (the native CLI, the
 * same lesson reader as `flexlab lessons check`) reads every lesson folder under `lessons/` and
 * the lab's own test lessons under `e2e/fixtures/lessons/`, and the page imports the result as
 * the module `virtual:flexlab-lessons`. The browser's engine then only reads compiled lessons
 * (crate/src/lessons/wire.rs) and never parses TOML, which keeps the TOML parser and the lesson
 * validator out of the wasm.
 *
 * The CLI runs through `cargo run`, so the compiled form always comes from the same sources as
 * the wasm that reads it. During `vite` (dev), any change under a lesson folder recompiles the
 * lessons and reloads the page.
 */
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Plugin, ViteDevServer } from 'vite';

const ID = 'virtual:flexlab-lessons';
const RESOLVED = `\0${ID}`;

/** Lesson roots, relative to the repository; hidden lessons load by id but are not listed. */
const ROOTS = [
  { dir: 'lessons', hidden: false },
  { dir: 'e2e/fixtures/lessons', hidden: true },
];

export interface CompiledLessonEntry {
  hidden: boolean;
  /** The lesson's title, for links to it (the compiled lesson's `title`). */
  title: { zh?: string; en?: string };
  /** The compiled lesson, JSON text for the wasm `Lesson` constructor. */
  compiled: string;
}

function compileRoot(repo: string, dir: string, quiet: boolean): Record<string, unknown> {
  const cargoHome = process.env.CARGO_HOME ?? join(homedir(), '.cargo');
  const args = ['run', '--release', '--quiet', '-p', 'flexlab', '--bin', 'flexlab', '--', 'lessons', 'bundle', dir];
  const r = spawnSync('cargo', args, {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    env: { ...process.env, PATH: `${join(cargoHome, 'bin')}:${process.env.PATH ?? ''}` },
  });
  if (r.error) throw new Error(`flexlab lessons bundle ${dir}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`flexlab lessons bundle ${dir} failed:\n${r.stderr}`);
  // a lesson's own errors travel in its compiled form (the page lists them); say so here too,
  // except for the lab's test lessons, some of which are broken on purpose
  if (!quiet && r.stderr.trim()) console.warn(`Lesson errors (the page lists them too):\n${r.stderr.trimEnd()}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function compileAll(repo: string): Record<string, CompiledLessonEntry> {
  const all: Record<string, CompiledLessonEntry> = {};
  for (const root of ROOTS) {
    for (const [name, compiled] of Object.entries(compileRoot(repo, root.dir, root.hidden))) {
      // the first root wins a folder name that is in both
      const title = (compiled as { title?: { zh?: string; en?: string } }).title ?? {};
      all[name] ??= { hidden: root.hidden, title, compiled: JSON.stringify(compiled) };
    }
  }
  return all;
}

export function lessonsPlugin(repo: string): Plugin {
  let server: ViteDevServer | undefined;
  return {
    name: 'flexlab-lessons',
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load(id) {
      if (id !== RESOLVED) return undefined;
      return `export default ${JSON.stringify(compileAll(repo))};`;
    },
    configureServer(s) {
      server = s;
      const dirs = ROOTS.map((r) => resolve(repo, r.dir));
      s.watcher.add(dirs);
      const changed = (file: string): void => {
        if (!dirs.some((d) => file.startsWith(`${d}/`))) return;
        const mod = server?.moduleGraph.getModuleById(RESOLVED);
        if (mod) server?.moduleGraph.invalidateModule(mod);
        server?.ws.send({ type: 'full-reload' });
      };
      s.watcher.on('add', changed);
      s.watcher.on('change', changed);
      s.watcher.on('unlink', changed);
    },
  };
}

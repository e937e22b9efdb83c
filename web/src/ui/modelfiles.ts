/**
 * A model chosen or dropped as several files at once: a model with the files it includes or
 * reads (MuJoCo's own examples include `scene.xml` and read meshes from `asset/`). Finds which
 * file is the model, and the names the engine will ask for the others by: a browser's selection
 * of files carries no folders, so each file is also offered under every path the models name it
 * by (`file="asset/bunny.obj"`, or `file="bunny.obj"` under `meshdir="asset"`).
 */
import type { ModelFiles } from '../engine/flexlab';

/** Most files beside the model, and their total size (bytes): untrusted input stays bounded. */
export const MAX_EXTRA_FILES = 64;
export const MAX_EXTRA_BYTES = 16 << 20;

export interface PickedFile {
  name: string;
  bytes: Uint8Array;
}

export type Picked =
  | {
      ok: true;
      /** The model's file name and text. */
      main: string;
      text: string;
      /** The other files, under each name the engine may ask for. */
      files: ModelFiles;
      /** The other files' own names. */
      extra: string[];
    }
  | { ok: false; why: 'noXml' | 'tooMany' | 'tooLarge' | 'notText' };

const ATTR = /\b(file|meshdir|texturedir|assetdir)\s*=\s*(["'])(.*?)\2/g;

function baseName(path: string): string {
  return path.slice(path.replace(/\\/g, '/').lastIndexOf('/') + 1);
}

function clean(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** The `file` paths and the asset folders an MJCF text names. */
function references(text: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  for (const m of text.matchAll(ATTR)) (m[1] === 'file' ? files : dirs).push(clean(m[3]));
  return { files, dirs };
}

/**
 * The model among `picked` and the files beside it. A single file is the model, whatever its
 * name; among several, the model is the XML file that no other picked XML file names (the
 * others are its includes); of several such, the first.
 */
export function pickModel(picked: PickedFile[]): Picked {
  const xml = picked.length === 1 ? picked : picked.filter((f) => f.name.toLowerCase().endsWith('.xml'));
  if (!xml.length) return { ok: false, why: 'noXml' };
  if (picked.length - 1 > MAX_EXTRA_FILES) return { ok: false, why: 'tooMany' };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const texts = new Map<PickedFile, string>();
  for (const f of xml) {
    try {
      texts.set(f, decoder.decode(f.bytes));
    } catch {
      return { ok: false, why: 'notText' };
    }
  }
  const refs = xml.map((f) => references(texts.get(f)!));
  const named = (f: PickedFile) => xml.some((g, i) => g !== f && refs[i].files.some((p) => baseName(p) === f.name));
  const main = xml.find((f) => !named(f)) ?? xml[0];
  const others = picked.filter((f) => f !== main);
  if (others.reduce((n, f) => n + f.bytes.length, 0) > MAX_EXTRA_BYTES) return { ok: false, why: 'tooLarge' };
  const paths = refs.flatMap((r) => r.files);
  const dirs = [...new Set(refs.flatMap((r) => r.dirs).filter(Boolean))];
  const files: ModelFiles = [];
  for (const f of others) {
    const names = new Set([f.name]);
    for (const p of paths) {
      if (baseName(p) !== f.name || p.startsWith('/')) continue;
      names.add(p);
      for (const d of dirs) names.add(`${d.replace(/\/+$/, '')}/${p}`);
    }
    for (const n of names) files.push([n, f.bytes]);
  }
  return { ok: true, main: main.name, text: texts.get(main)!, files, extra: others.map((f) => f.name) };
}

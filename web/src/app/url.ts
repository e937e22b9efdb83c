/**
 * What a copied link carries, so that opening it shows what the student saw: language, lesson,
 * section (the hash), scene, parameter values, camera, view toggles, and for the sandbox the
 * model itself (deflated) when it is small enough.
 */
import type { Lang } from '../ui/i18n';

export interface UrlState {
  lang: Lang;
  lesson: string | null;
  section: string | null;
  scene: string | null;
  /** Scene parameters by name, as text (the lesson's params say how to read them). */
  params: Record<string, string>;
  /** Camera target and position, 6 numbers. */
  cam: number[] | null;
  /** View toggles that are on. */
  show: string[] | null;
  /** A sandbox model, deflate-raw + base64url. */
  mjcf: string | null;
}

const PARAM_PREFIX = 'p.';

export function parseUrl(href: string): UrlState {
  const u = new URL(href);
  const q = u.searchParams;
  const params: Record<string, string> = {};
  for (const [k, v] of q) if (k.startsWith(PARAM_PREFIX) && k.length > PARAM_PREFIX.length) params[k.slice(PARAM_PREFIX.length)] = v;
  const cam = q.get('cam')?.split(',').map(Number) ?? null;
  const hash = decodeURIComponent(u.hash.replace(/^#/, ''));
  return {
    lang: q.get('lang') === 'en' ? 'en' : 'zh',
    lesson: q.get('lesson'),
    section: hash || q.get('section'),
    scene: q.get('scene'),
    params,
    cam: cam && cam.length === 6 && cam.every(Number.isFinite) ? cam : null,
    show: q.has('show') ? (q.get('show') ?? '').split(',').filter(Boolean) : null,
    mjcf: q.get('mjcf'),
  };
}

/** The URL (relative to `base`) for a state; parameters keep their insertion order. */
export function formatUrl(s: UrlState, base: string): string {
  const u = new URL(base);
  u.search = '';
  u.hash = '';
  const q = u.searchParams;
  if (s.lang === 'en') q.set('lang', 'en');
  if (s.lesson) q.set('lesson', s.lesson);
  if (s.scene) q.set('scene', s.scene);
  for (const [k, v] of Object.entries(s.params)) q.set(PARAM_PREFIX + k, v);
  if (s.cam) q.set('cam', s.cam.join(','));
  if (s.show) q.set('show', s.show.join(','));
  if (s.mjcf) q.set('mjcf', s.mjcf);
  if (s.section) u.hash = encodeURIComponent(s.section);
  return u.toString();
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): Uint8Array {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const blob = new Blob([bytes as BlobPart]);
  const out = await new Response(blob.stream().pipeThrough(stream)).arrayBuffer();
  return new Uint8Array(out);
}

/** Deflates text into a URL-safe string. */
export async function packText(text: string): Promise<string> {
  return toBase64Url(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')));
}

/** Inflates a string made by [[packText]], stopping once the output passes `maxBytes`. */
export async function unpackText(s: string, maxBytes: number): Promise<string> {
  const blob = new Blob([fromBase64Url(s) as BlobPart]);
  const reader = blob.stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new Error(`model larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return new TextDecoder().decode(out);
}

/** The URL carries the state: parse ∘ format is the identity, and packed models round-trip. */
import { describe, expect, it } from 'vitest';
import { formatUrl, packText, parseUrl, unpackText, type UrlState } from '../src/app/url';

const base = 'http://127.0.0.1:4173/';

describe('URL state', () => {
  it('round-trips lesson, section, scene, parameters, camera and toggles', () => {
    const s: UrlState = {
      lang: 'en',
      lesson: 'b6-flex',
      section: '04-shells',
      scene: 'shell-thickness',
      params: { thickness: '0.004', integrator: 'RK4', snh: 'true' },
      cam: [0, 0, 0.3, 1.1, -0.9, 0.7],
      show: ['edges', 'pins'],
      mjcf: null,
    };
    const href = formatUrl(s, base);
    expect(href).toContain('p.thickness=0.004');
    expect(href).toContain('#04-shells');
    expect(parseUrl(href)).toEqual(s);
  });

  it('defaults to Chinese and ignores a malformed camera', () => {
    const s = parseUrl(`${base}?cam=1,2,x&show=`);
    expect(s.lang).toBe('zh');
    expect(s.cam).toBeNull();
    expect(s.show).toEqual([]);
    expect(formatUrl({ ...s, show: null }, base)).toBe(base);
  });

  it('packs a model into a URL-safe string and unpacks it within a size bound', async () => {
    const xml = '<mujoco model="m"><worldbody><geom type="sphere" size=".1"/></worldbody></mujoco>'.repeat(20);
    const p = await packText(xml);
    expect(p).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(p.length).toBeLessThan(xml.length / 4);
    expect(await unpackText(p, 1 << 20)).toBe(xml);
    await expect(unpackText(p, 100)).rejects.toThrow(/larger than 100 bytes/);
  });
});

import { expect, type Page } from '@playwright/test';

/** Waits until the bench has compiled a scene and drawn at least `frames` frames. */
export async function waitForScene(page: Page, frames = 3): Promise<void> {
  await page.waitForFunction((n) => {
    const s = window.__flexlab?.state;
    return !!s && s.loaded && s.frames >= n;
  }, frames, { timeout: 30_000 });
}

/** Number of distinct colours in the WebGL canvas (blank canvases have one or two). */
export async function canvasColours(page: Page): Promise<number> {
  return page.evaluate(() => {
    const src = document.querySelector('canvas.view') as HTMLCanvasElement;
    const c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height;
    const ctx = c.getContext('2d') as CanvasRenderingContext2D;
    ctx.drawImage(src, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < data.length; i += 16) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  });
}

export async function sample(page: Page): Promise<number[]> {
  return page.evaluate(() => window.__flexlab.state.sample.slice());
}

export { expect };

import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { lessonsPlugin } from './lessons-plugin.ts';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [lessonsPlugin(fileURLToPath(new URL('..', import.meta.url)))],
  server: { fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] } },
  preview: { host: '127.0.0.1' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    // the lab, and the benchmark page of `npm run bench` (flexlab wasm beside @mujoco/mujoco)
    rolldownOptions: { input: { main: `${here}index.html`, bench: `${here}bench.html` } },
  },
  worker: { format: 'es' },
  test: { root: here, include: ['unit/**/*.test.ts'], environment: 'node' },
});

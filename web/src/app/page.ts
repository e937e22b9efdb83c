/**
 * The lab's page, started by main.ts once this (large) part of the bundle has loaded.
 */
import { App } from './app';
import type { Bench } from '../ui/bench';

declare global {
  interface Window {
    /** The running page, for the e2e tests and the curious (no eval anywhere). */
    __flexlab: { app: App; bench: Bench; state: Bench['state'] };
  }
}

/** Builds the page in `root` and opens what the address names. */
export function startPage(root: HTMLElement): void {
  performance.mark('flexlab:main');
  const app = new App(root);
  window.__flexlab = { app, bench: app.bench, state: app.bench.state };
  performance.mark('flexlab:app');
  void app.start();
}

/**
 * flexlab's page: the lesson beside a live bench. This entry only starts the app; each piece
 * lives in its own module (app/, lesson/, ui/, view/, sim/).
 */
import 'katex/dist/katex.min.css';
import './style.css';
import { App } from './app/app';
import type { Bench } from './ui/bench';

declare global {
  interface Window {
    /** The running page, for the e2e tests and the curious (no eval anywhere). */
    __flexlab: { app: App; bench: Bench; state: Bench['state'] };
  }
}

const app = new App(document.getElementById('app') as HTMLElement);
window.__flexlab = { app, bench: app.bench, state: app.bench.state };
void app.start();

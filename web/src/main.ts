/**
 * flexlab's page. This entry is small on purpose: it starts the workers (boot.ts) and then
 * loads the rest of the page (app/page.ts) as a second script, so the workers start while that
 * script downloads instead of after it has run (see boot.ts).
 */
import 'katex/dist/katex.min.css';
import './style.css';
import './boot';

const root = document.getElementById('app') as HTMLElement;
import('./app/page')
  .then((page) => page.startPage(root))
  .catch((e: unknown) => {
    const p = document.createElement('p');
    p.className = 'notice';
    p.textContent = `flexlab could not load: ${e instanceof Error ? e.message : String(e)}`;
    root.replaceChildren(p);
  });

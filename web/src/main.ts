/**
 * flexlab's page: the lesson beside a live bench. This entry wires the pieces; each lives in
 * its own module.
 */
import './style.css';
import { Bench } from './ui/bench';
import { setLang, t, type Lang } from './ui/i18n';

const scenes = import.meta.glob('../../lessons/**/*.xml', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

function sceneText(path: string): string | undefined {
  return scenes[`../../lessons/${path}`];
}

const params = new URLSearchParams(location.search);
const lang: Lang = params.get('lang') === 'en' ? 'en' : 'zh';
setLang(lang);

const app = document.getElementById('app') as HTMLElement;
const header = document.createElement('header');
header.className = 'top';
const title = document.createElement('h1');
title.textContent = lang === 'zh' ? 'flexlab · MuJoCo 3.15.0 可变形体实验室' : 'flexlab · MuJoCo 3.15.0 deformables lab';
const langLink = document.createElement('a');
langLink.href = `?lang=${lang === 'zh' ? 'en' : 'zh'}`;
langLink.textContent = t('language');
langLink.className = 'lang';
header.append(title, langLink);
const main = document.createElement('main');
main.className = 'layout';
const lessonPane = document.createElement('article');
lessonPane.className = 'lesson';
const benchPane = document.createElement('div');
benchPane.className = 'bench-pane';
main.append(lessonPane, benchPane);
app.append(header, main);

const bench = new Bench(benchPane);

declare global {
  interface Window {
    __flexlab: { bench: Bench; state: Bench['state'] };
  }
}
window.__flexlab = { bench, state: bench.state };

const scenePath = params.get('scene') ?? 'b6-flex/scenes/cable.xml';
const xml = sceneText(scenePath);
if (xml) {
  void bench.load(xml);
} else {
  bench.showMessage(`unknown scene '${scenePath}'`, 'error');
}

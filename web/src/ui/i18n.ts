/** Interface strings in the lab's two languages (Chinese by default, English with ?lang=en). */

export type Lang = 'zh' | 'en';

const STRINGS = {
  play: { zh: '运行', en: 'Play' },
  pause: { zh: '暂停', en: 'Pause' },
  step: { zh: '单步', en: 'Step' },
  reset: { zh: '重置', en: 'Reset' },
  speed: { zh: '速度', en: 'Speed' },
  loading: { zh: '正在加载引擎…', en: 'Loading the engine…' },
  compileError: { zh: '模型编译失败', en: 'The model did not compile' },
  crashed: { zh: '仿真出错，已重启引擎', en: 'The simulation failed; the engine was restarted' },
  diverged: { zh: '仿真发散（MuJoCo 警告）：状态已重置', en: 'The simulation diverged (MuJoCo warning): state was reset' },
  realtime: { zh: '实时倍率', en: 'real-time factor' },
  slow: { zh: '场景较重，低于实时', en: 'heavy scene: slower than real time' },
  edges: { zh: '边', en: 'Edges' },
  vertices: { zh: '顶点', en: 'Vertices' },
  pins: { zh: '固定点', en: 'Pins' },
  language: { zh: 'English', en: '中文' },
  contents: { zh: '目录', en: 'Contents' },
  scene: { zh: '场景', en: 'Scene' },
  openScene: { zh: '在实验台打开', en: 'Open on the bench' },
  inspector: { zh: '字段检查器', en: 'Field inspector' },
  field: { zh: '字段', en: 'Field' },
  check: { zh: '检查', en: 'Check' },
  tryAgain: { zh: '再试一次', en: 'Try again' },
  showAnswer: { zh: '显示答案', en: 'Show answer' },
  parameters: { zh: '参数', en: 'Parameters' },
  sandbox: { zh: '自己的模型', en: 'Your own model' },
  loadModel: { zh: '载入模型', en: 'Load model' },
  copyLink: { zh: '复制链接', en: 'Copy link' },
  plots: { zh: '曲线', en: 'Plots' },
  exportCsv: { zh: '导出 CSV', en: 'Export CSV' },
} as const;

export type StringKey = keyof typeof STRINGS;

let current: Lang = 'zh';

export function setLang(l: Lang): void {
  current = l;
  document.documentElement.lang = l === 'zh' ? 'zh-Hans' : 'en';
}

export function lang(): Lang {
  return current;
}

/** The interface string for `key` in the current language. */
export function t(key: StringKey): string {
  return STRINGS[key][current];
}

/**
 * Interface strings in the lab's two languages: Chinese with English terms by default, English
 * with `?lang=en` or the language toggle. Lesson text comes from the lesson files, not from here.
 */

export type Lang = 'zh' | 'en';

const STRINGS = {
  appTitle: { zh: 'flexlab · MuJoCo 3.15.0 可变形体 (flex) 实验室', en: 'flexlab · MuJoCo 3.15.0 deformables (flex) lab' },
  play: { zh: '运行 Play', en: 'Play' },
  pause: { zh: '暂停 Pause', en: 'Pause' },
  step: { zh: '单步 Step', en: 'Step' },
  reset: { zh: '重置 Reset', en: 'Reset' },
  speed: { zh: '速度 speed', en: 'Speed' },
  transport: { zh: '仿真控制', en: 'Simulation controls' },
  show: { zh: '显示', en: 'Show' },
  loading: { zh: '正在加载引擎…', en: 'Loading the engine…' },
  compiling: { zh: '正在编译模型…', en: 'Compiling the model…' },
  compileError: { zh: '模型编译失败（MuJoCo 的报错原文）', en: 'The model did not compile (MuJoCo’s message)' },
  compileWarning: { zh: '模型已加载，但有编译警告', en: 'The model loaded with compile warnings' },
  crashed: { zh: '引擎出错（wasm panic），已重新启动引擎并重新载入场景', en: 'The engine failed (wasm panic); it was restarted and the scene reloaded' },
  diverged: { zh: '仿真发散，已暂停。按“重置 Reset”回到初始状态。', en: 'The simulation diverged and was paused. Press Reset to go back to the start.' },
  realtime: { zh: '实时倍率', en: 'real-time factor' },
  slow: { zh: '场景较重，低于实时', en: 'heavy scene: slower than real time' },
  edges: { zh: '边 edges', en: 'Edges' },
  vertices: { zh: '顶点 vertices', en: 'Vertices' },
  pins: { zh: '固定点 pins', en: 'Pins' },
  nodes: { zh: '插值节点 nodes', en: 'Interpolation nodes' },
  contacts: { zh: '接触点与法向 contacts', en: 'Contacts and normals' },
  forces: { zh: '力箭头 forces', en: 'Force arrows' },
  language: { zh: 'English', en: '中文' },
  languageName: { zh: '切换到英文 Switch to English', en: 'Switch to Chinese 切换到中文' },
  contents: { zh: '目录', en: 'Contents' },
  scene: { zh: '场景', en: 'Scene' },
  sceneView: { zh: '三维场景：拖动顶点或物体施加弹簧力，拖动空白处旋转视角', en: '3D scene: drag a vertex or body to pull it with a spring; drag elsewhere to orbit' },
  openScene: { zh: '在实验台打开', en: 'Open on the bench' },
  onBench: { zh: '正在实验台上', en: 'On the bench' },
  inspector: { zh: '字段检查器 inspector', en: 'Field inspector' },
  field: { zh: '字段 field', en: 'Field' },
  values: { zh: '数值 values', en: 'Values' },
  openField: { zh: '在字段检查器中打开', en: 'open in the field inspector' },
  fieldFilter: { zh: '按名称筛选', en: 'Filter by name' },
  rows: { zh: '行', en: 'rows' },
  row: { zh: '行', en: 'row' },
  refresh: { zh: '刷新', en: 'Refresh' },
  live: { zh: '实时更新', en: 'Live' },
  noRows: { zh: '（当前为空，例如没有接触时 ncon = 0）', en: '(empty now, e.g. ncon = 0 when nothing touches)' },
  flexlabOnly: { zh: 'flexlab 自己的数组（MuJoCo 没有）', en: 'flexlab’s own arrays (not in MuJoCo)' },
  jacobianDense: {
    zh: 'MuJoCo 把这个模型的 efc_J 存成稠密矩阵：nefc 行 × nv 列（mj_isSparse = 0：jacobian="dense"，或 "auto" 且 nv < 60），efc_J_rownnz、efc_J_rowadr、efc_J_colind 不用（MuJoCo 不填写它们，这里显示为 0）',
    en: 'MuJoCo keeps efc_J dense for this model: nefc rows × nv columns (mj_isSparse = 0: jacobian="dense", or "auto" with nv < 60); efc_J_rownnz, efc_J_rowadr and efc_J_colind are unused (MuJoCo leaves them unset; shown as 0)',
  },
  jacobianSparse: {
    zh: 'MuJoCo 把这个模型的 efc_J 存成稀疏（CSR）：约束行 i 的非零元是 efc_J[efc_J_rowadr[i] …]，共 efc_J_rownnz[i] 个，所在的 DOF 在 efc_J_colind 里',
    en: 'MuJoCo keeps efc_J sparse (CSR) for this model: constraint row i has efc_J_rownnz[i] nonzeros from efc_J[efc_J_rowadr[i]], their DOFs in efc_J_colind',
  },
  moreRows: { zh: '仅显示前 {n} 行', en: 'showing the first {n} rows' },
  onDemand: {
    zh: '只在模型有需要它的传感器时计算（与 MuJoCo 相同：subtree 速度见 mj_subtreeVel，cacc / cfrc_* 见 mj_rnePostConstraint），否则为 0',
    en: 'computed only when a sensor of the model needs it, as in MuJoCo (subtree velocities: mj_subtreeVel; cacc and cfrc_*: mj_rnePostConstraint); 0 otherwise',
  },
  selectRow: { zh: '选中此行，在场景中高亮', en: 'Select this row and highlight it in the scene' },
  check: { zh: '检查 Check', en: 'Check' },
  tryAgain: { zh: '再试一次 Try again', en: 'Try again' },
  showAnswer: { zh: '显示答案 Show answer', en: 'Show answer' },
  prediction: { zh: '你的预测', en: 'Your prediction' },
  committed: { zh: '已提交的预测：', en: 'Committed prediction: ' },
  measuring: { zh: '正在用引擎测量…', en: 'Measuring with the engine…' },
  measured: { zh: 'MuJoCo 3.15.0（本引擎）测得', en: 'MuJoCo 3.15.0 (this engine) measures' },
  right: { zh: '正确', en: 'Right' },
  wrong: { zh: '不对', en: 'Not quite' },
  attempts: { zh: '尝试次数', en: 'attempts' },
  exercise: { zh: '练习', en: 'Exercise' },
  exerciseN: { zh: '练习 {n}', en: 'Exercise {n}' },
  lessonProgress: { zh: '练习：{total} 题中答对 {right} 题', en: 'Exercises: {right} of {total} right' },
  answersShown: { zh: '；看过答案：{shown} 题', en: '; answers shown: {shown}' },
  sectionProgress: { zh: '本节练习：{total} 题中答对 {right} 题', en: '{right} of {total} exercises right' },
  startOver: { zh: '重新开始 Start over', en: 'Start over' },
  startOverConfirm: { zh: '清除本课所有练习的答案，从头开始？', en: 'Clear your answers to every exercise of this lesson and start over?' },
  measure: { zh: '测量', en: 'Measurement' },
  equation: { zh: '公式（可横向滚动）', en: 'Equation (scrolls sideways)' },
  table: { zh: '表格（可横向滚动）', en: 'Table (scrolls sideways)' },
  textbook: { zh: '教科书', en: 'Textbook' },
  pending: { zh: '这个检查要等引擎支持', en: 'This check waits for an engine feature' },
  lessonProblems: { zh: '课程文件中的问题', en: 'Problems in the lesson files' },
  parameters: { zh: '参数 parameters', en: 'Parameters' },
  paramHint: { zh: '改变参数会用 MuJoCo 的编译器重新编译场景', en: 'Changing a parameter recompiles the scene with the compiler' },
  sandbox: { zh: '自己的模型 sandbox', en: 'Your own model' },
  sandboxHint: {
    zh: '粘贴 MJCF，或把 .xml 文件拖到这里（最大 {n} KB）；模型 include 或读取其它文件时（如 MuJoCo 示例的 scene.xml、网格），把它们一起选中或拖入',
    en: 'Paste MJCF, or drop an .xml file here (at most {n} KB); with a model that includes or reads other files (MuJoCo’s examples: scene.xml, meshes), choose or drop them all at once',
  },
  missingFiles: {
    zh: '模型需要的文件不在这里：把模型和它 include 或读取的文件一起选中或拖入。',
    en: 'A file the model needs is missing: choose or drop the model together with the files it includes or reads.',
  },
  forgetFiles: { zh: '移除这些文件', en: 'Forget these files' },
  besideModel: { zh: '{main} 旁的文件：{files}（复制的链接不包含它们）', en: 'Beside {main}: {files} (a copied link does not carry them)' },
  filesNoXml: { zh: '所选文件中没有 .xml 模型', en: 'None of these files is an .xml model' },
  filesNotText: { zh: '有一个 .xml 文件不是 UTF-8 文本', en: 'An .xml file among these is not UTF-8 text' },
  filesTooLarge: { zh: '文件太多或太大：模型旁最多 {files} 个文件、共 {mb} MB', en: 'Too many or too large files: at most {files} files, {mb} MB in all, beside the model' },
  sandboxLabel: { zh: 'MJCF 文本', en: 'MJCF text' },
  loadModel: { zh: '载入模型', en: 'Load model' },
  chooseFile: { zh: '选择文件', en: 'Choose files' },
  tooLarge: { zh: '模型太大：{size} KB，上限 {n} KB', en: 'The model is too large: {size} KB, the limit is {n} KB' },
  copyLink: { zh: '复制链接', en: 'Copy link' },
  copied: { zh: '链接已复制', en: 'Link copied' },
  plots: { zh: '曲线 plots', en: 'Plots' },
  exportCsv: { zh: '导出 CSV', en: 'Export CSV' },
  clear: { zh: '清空', en: 'Clear' },
  controls: { zh: '控制 controls', en: 'Controls' },
  controlsHint: { zh: '每个滑块写入一个执行器的 mjData.ctrl[i]；重置 Reset 恢复关键帧 0 的控制值', en: 'Each slider writes one actuator’s mjData.ctrl[i]; Reset restores keyframe 0’s controls' },
  clearControls: { zh: '全部控制清空 Clear all controls', en: 'Clear all controls' },
  unnamedActuator: { zh: '执行器 actuator {i}', en: 'actuator {i}' },
  onJoint: { zh: '关节 joint {name}', en: 'joint {name}' },
  onTendon: { zh: '肌腱 tendon {name}', en: 'tendon {name}' },
  onSite: { zh: '站点 site {name}', en: 'site {name}' },
  ctrlDefault: { zh: '{range}（无 ctrlrange，默认）', en: '{range} (default: no ctrlrange)' },
  ctrlOpen: { zh: 'ctrlrange {ctrl}（滑块 {range}）', en: 'ctrlrange {ctrl} (slider {range})' },
  energyPlot: { zh: '能量 energy (J)', en: 'Energy (J)' },
  edgePlot: { zh: '边长 flexedge_length (m)', en: 'Edge length flexedge_length (m)' },
  contactPlot: { zh: '接触 contact：穿透 (m) 与法向力 (N)', en: 'Contact: penetration (m) and normal force (N)' },
  sensorPlot: { zh: '传感器 sensordata（模型的 <sensor>）', en: 'Sensors: sensordata (the model’s <sensor>)' },
  sensorFrom: { zh: '从这个传感器起画 {n} 个值', en: 'Plot {n} values from sensor' },
  lesson: { zh: '课程', en: 'Lesson' },
  noLessons: {
    zh: '这个页面没有课程。实验台可以直接使用：拖动顶点或物体施加弹簧力，在“字段检查器”里按 MuJoCo 的名字查看 mjModel / mjData，在“自己的模型”里粘贴 MJCF。',
    en: 'No lesson on this page. The bench works on its own: drag a vertex or a body to pull it with a spring, read mjModel / mjData by MuJoCo’s names in the field inspector, and paste your own MJCF under “Your own model”.',
  },
  lessonEngineMissing: {
    zh: '本版本的引擎还不能读取课程（缺少 wasm Lesson 接口）；实验台照常可用。',
    en: 'This engine build cannot read lessons yet (no wasm Lesson API); the bench works as usual.',
  },
  lessonError: { zh: '课程无法载入', en: 'The lesson could not be loaded' },
  unknownScene: { zh: '未知场景', en: 'unknown scene' },
  unknownSceneShown: {
    zh: '链接中的场景 “{scene}” 在本课中不存在（链接可能输错或已过时），这里显示的是本节的场景。',
    en: 'The link names a scene “{scene}” that this lesson does not have (mistyped or outdated?); the bench shows the section’s scene instead.',
  },
  unknownLesson: {
    zh: '没有名为 “{lesson}” 的课程（链接可能输错或已过时）。',
    en: 'There is no lesson “{lesson}” (mistyped or outdated link?).',
  },
  unknownSection: {
    zh: '本课没有名为 “{section}” 的小节（链接可能输错或已过时），这里从头显示。',
    en: 'This lesson has no section “{section}” (mistyped or outdated link?); it is shown from the start.',
  },
  lessonsHere: { zh: '可用的课程：', en: 'The lessons here:' },
  noScene: { zh: '没有载入场景', en: 'No scene loaded' },
  badLinkModel: {
    zh: '无法读取链接中的模型（链接可能不完整）',
    en: 'The model in this link could not be read (is the link complete?)',
  },
  skip: { zh: '跳到实验台', en: 'Skip to the bench' },
  units: { zh: '单位', en: 'unit' },
  choices: { zh: '选项', en: 'Choices' },
  yes: { zh: '开', en: 'on' },
  no: { zh: '关', en: 'off' },
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

/** The interface string for `key` in the current language, with `{name}` filled from `vars`. */
export function t(key: StringKey, vars: Record<string, string | number> = {}): string {
  return STRINGS[key][current].replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? `{${k}}`));
}

/** A `{zh, en}` text from lesson files in the current language (falling back to the other). */
export function pick(text: { zh?: string; en?: string } | string | undefined): string {
  if (text === undefined) return '';
  if (typeof text === 'string') return text;
  return (current === 'zh' ? text.zh ?? text.en : text.en ?? text.zh) ?? '';
}

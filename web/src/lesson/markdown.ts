/**
 * Lesson Markdown to HTML: CommonMark (markdown-it, raw HTML off), `$…$` and `$$…$$` math typeset
 * by KaTeX (HTML + MathML, so screen readers get the math), and the lesson directives
 * `::: scene|exercise|measure <id>` turned into placeholders the lesson view fills with live
 * components. The page sanitizes the result with DOMPurify before it touches the DOM.
 */
import katex from 'katex';
import markdownIt, { type MarkdownIt, type StateBlock, type StateInline } from 'markdown-it';

export type DirectiveKind = 'scene' | 'exercise' | 'measure';

export interface Directive {
  kind: DirectiveKind;
  id: string;
}

const DIRECTIVE = /^::: *(scene|exercise|measure) +([A-Za-z0-9_.-]+) *$/;

function tex(src: string, display: boolean): string {
  return katex.renderToString(src, { displayMode: display, throwOnError: false, output: 'htmlAndMathml', strict: 'ignore', trust: false });
}

function mathInline(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x24 /* $ */) return false;
  const display = src.charCodeAt(start + 1) === 0x24;
  const open = display ? 2 : 1;
  if (!display) {
    const next = src.charCodeAt(start + 1);
    // "$5 and $6" is money, not math: no space right after the opening dollar
    if (next === 0x20 || next === 0x09 || Number.isNaN(next)) return false;
  }
  let end = start + open;
  for (;;) {
    end = src.indexOf(display ? '$$' : '$', end);
    if (end < 0) return false;
    if (src.charCodeAt(end - 1) === 0x5c /* \ */) {
      end += 1;
      continue;
    }
    break;
  }
  const content = src.slice(start + open, end);
  if (!content.trim()) return false;
  if (!display && /\s$/.test(content)) return false;
  if (!silent) {
    const tok = state.push(display ? 'math_display_inline' : 'math_inline', 'math', 0);
    tok.content = content;
  }
  state.pos = end + open;
  return true;
}

function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const lineText = (l: number) => state.src.slice(state.bMarks[l] + state.tShift[l], state.eMarks[l]);
  const first = lineText(startLine);
  if (!first.startsWith('$$')) return false;
  let body = first.slice(2);
  let line = startLine;
  let closed = false;
  if (body.trimEnd().endsWith('$$') && body.trim().length >= 2) {
    body = body.trimEnd().slice(0, -2);
    closed = true;
  }
  while (!closed) {
    line++;
    if (line >= endLine) return false;
    const t = lineText(line);
    if (t.trimEnd().endsWith('$$')) {
      body += '\n' + t.trimEnd().slice(0, -2);
      closed = true;
    } else {
      body += '\n' + t;
    }
  }
  if (silent) return true;
  const tok = state.push('math_block', 'math', 0);
  tok.content = body;
  tok.block = true;
  tok.map = [startLine, line + 1];
  state.line = line + 1;
  return true;
}

function directiveBlock(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  const text = state.src.slice(state.bMarks[startLine] + state.tShift[startLine], state.eMarks[startLine]);
  const m = DIRECTIVE.exec(text);
  if (!m) return false;
  if (silent) return true;
  const tok = state.push('flexlab_directive', 'div', 0);
  const d: Directive = { kind: m[1] as DirectiveKind, id: m[2] };
  tok.meta = { ...d };
  tok.block = true;
  tok.map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** A markdown-it instance configured for lesson text. */
export function lessonMarkdown(): MarkdownIt {
  const md = markdownIt({ html: false, linkify: false, typographer: false });
  md.inline.ruler.after('escape', 'math_inline', mathInline);
  md.block.ruler.before('fence', 'math_block', mathBlock, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.block.ruler.before('math_block', 'flexlab_directive', directiveBlock, { alt: ['paragraph'] });
  md.renderer.rules.math_inline = (tokens, i) => tex(tokens[i].content, false);
  md.renderer.rules.math_display_inline = (tokens, i) => tex(tokens[i].content, true);
  md.renderer.rules.math_block = (tokens, i) => `<div class="math-display">${tex(tokens[i].content, true)}</div>\n`;
  md.renderer.rules.flexlab_directive = (tokens, i) => {
    const d = tokens[i].meta as unknown as Directive;
    return `<div class="directive" data-directive="${escapeAttr(d.kind)}" data-id="${escapeAttr(d.id)}"></div>\n`;
  };
  // the page has its own h1; a section's "# Title" becomes h2, and so on down
  md.renderer.rules.heading_open = (tokens, i) => {
    const level = Math.min(6, Number(tokens[i].tag.slice(1)) + 1);
    return `<h${level}>`;
  };
  md.renderer.rules.heading_close = (tokens, i) => {
    const level = Math.min(6, Number(tokens[i].tag.slice(1)) + 1);
    return `</h${level}>\n`;
  };
  return md;
}

let shared: MarkdownIt | null = null;

/** Renders lesson Markdown to (unsanitized) HTML. */
export function renderMarkdown(src: string): string {
  shared ??= lessonMarkdown();
  return shared.render(src);
}

/** The section title: the text of the first `# ` heading. */
export function sectionTitle(src: string): string | null {
  const m = /^# +(.+?) *#* *$/m.exec(src);
  return m ? m[1] : null;
}

/** The directives of a text, in order. */
export function directives(src: string): Directive[] {
  const out: Directive[] = [];
  for (const line of src.split('\n')) {
    const m = DIRECTIVE.exec(line.trim());
    if (m) out.push({ kind: m[1] as DirectiveKind, id: m[2] });
  }
  return out;
}

/** Renders one paragraph's worth of Markdown without the paragraph (prompts, feedback). */
export function renderInlineMarkdown(src: string): string {
  shared ??= lessonMarkdown();
  return shared.renderInline(src);
}

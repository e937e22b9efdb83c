/** Lesson Markdown: math, directives, headings and raw HTML. */
import { describe, expect, it } from 'vitest';
import { directives, renderMarkdown, sectionTitle } from '../src/lesson/markdown';

describe('lesson markdown', () => {
  it('typesets inline and display math with KaTeX (HTML and MathML)', () => {
    const html = renderMarkdown('Energy $E = \\tfrac12 k x^2$ and\n\n$$\nD = \\frac{E t^3}{12(1-\\nu^2)}\n$$\n');
    expect(html).toContain('class="katex"');
    expect(html).toContain('<math');
    expect(html).toContain('class="math-display"');
    expect(html).toContain('katex-display');
  });

  it('leaves money alone', () => {
    const html = renderMarkdown('costs $5 and $6 today');
    expect(html).not.toContain('katex');
    expect(html).toContain('$5 and $6');
  });

  it('turns directives into placeholders, only alone on a line', () => {
    const src = 'Text\n\n::: scene shell-thickness\n\n::: exercise thickness-cubed\n\nsay ::: scene no\n';
    const html = renderMarkdown(src);
    expect(html).toContain('<div class="directive" data-directive="scene" data-id="shell-thickness"></div>');
    expect(html).toContain('data-directive="exercise" data-id="thickness-cubed"');
    expect(html).toContain('say ::: scene no');
    expect(directives(src)).toEqual([
      { kind: 'scene', id: 'shell-thickness' },
      { kind: 'exercise', id: 'thickness-cubed' },
    ]);
  });

  it('does not render raw HTML and shifts headings below the page title', () => {
    const html = renderMarkdown('# 壳 shells\n\n<script>alert(1)</script>\n\n## detail\n');
    expect(html).toContain('<h2>壳 shells</h2>');
    expect(html).toContain('<h3>detail</h3>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(sectionTitle('intro\n# 壳 shells\n')).toBe('壳 shells');
  });

  it('does not let bad TeX throw', () => {
    expect(() => renderMarkdown('$\\frac{1}{$ and $\\notacommand$')).not.toThrow();
  });
});

/** Every piece of lesson HTML passes DOMPurify before it reaches the page. */
import DOMPurify from 'dompurify';
import { renderInlineMarkdown, renderMarkdown } from './markdown';

// KaTeX draws stretchy accents and radicals (\widehat, \sqrt, \overrightarrow) as inline SVG
// paths; DOMPurify's svg profile keeps those and still drops scripts, handlers and foreignObject.
const CONFIG = { USE_PROFILES: { html: true, mathMl: true, svg: true }, ADD_ATTR: ['data-directive', 'data-id'] };

/** Sanitized HTML of lesson Markdown, as a fragment. */
export function markdownFragment(src: string): DocumentFragment {
  return DOMPurify.sanitize(renderMarkdown(src), { ...CONFIG, RETURN_DOM_FRAGMENT: true });
}

/** Sets an element's content to sanitized inline Markdown (prompts, feedback). */
export function setInlineMarkdown(target: HTMLElement, src: string): void {
  target.replaceChildren(DOMPurify.sanitize(renderInlineMarkdown(src), { ...CONFIG, RETURN_DOM_FRAGMENT: true }));
}

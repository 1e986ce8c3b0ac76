import { parentPort } from 'node:worker_threads';
import createDOMPurify, { type Config } from 'dompurify';
import { JSDOM } from 'jsdom';

/**
 * The SVG cleaner's thread (program.logo-svg.ts): DOMPurify, a well-kept sanitiser, over jsdom's
 * DOM. Scripts, event attributes, `foreignObject` and every reference outside the file itself
 * (`href` other than `#…`) are removed. Loading jsdom and cleaning a large file take a while:
 * here, they hold no request of the server.
 */

const OPTIONS: Config = {
  USE_PROFILES: { svg: true, svgFilters: true },
  // Parsed as XML in the SVG namespace, so an SVG's own case (`viewBox`, `linearGradient`) stays.
  NAMESPACE: 'http://www.w3.org/2000/svg',
};

const purify = createDOMPurify(new JSDOM('').window);
purify.addHook('uponSanitizeAttribute', (_node, data) => {
  if ((data.attrName === 'href' || data.attrName === 'xlink:href') && !data.attrValue.startsWith('#'))
    data.keepAttr = false;
});

export interface CleanRequest {
  id: number;
  svg: string;
}

export interface CleanAnswer {
  id: number;
  /** The cleaned SVG; undefined when no `<svg>` root is left. */
  clean: string | undefined;
}

parentPort?.on('message', ({ id, svg }: CleanRequest) => {
  // The XML declaration is left out: the answer's Content-Type says what the text is.
  const body = svg.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '').trim();
  const clean = purify.sanitize(body, OPTIONS).trim();
  const answer: CleanAnswer = { id, clean: /^<svg[\s>]/.test(clean) ? clean : undefined };
  parentPort?.postMessage(answer);
});

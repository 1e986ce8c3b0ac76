import type { Config, DOMPurify } from 'dompurify';

/**
 * SVG logos are cleaned by DOMPurify (a well-kept sanitiser) over jsdom's DOM: scripts, event
 * attributes, `foreignObject`, and every reference outside the file itself (`href` other than
 * `#…`) are removed. Loaded on first use: only an upload needs it, and jsdom takes a while to load.
 */

const OPTIONS: Config = {
  USE_PROFILES: { svg: true, svgFilters: true },
  // Parsed as XML in the SVG namespace, so an SVG's own case (`viewBox`, `linearGradient`) stays.
  NAMESPACE: 'http://www.w3.org/2000/svg',
};

let purifier: Promise<DOMPurify> | undefined;

async function loadPurifier(): Promise<DOMPurify> {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
  const purify = createDOMPurify(new JSDOM('').window);
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    if ((data.attrName === 'href' || data.attrName === 'xlink:href') && !data.attrValue.startsWith('#'))
      data.keepAttr = false;
  });
  return purify;
}

/** The SVG text without anything that runs or loads; undefined when no `<svg>` root is left. */
export async function sanitizeSvg(svg: string): Promise<string | undefined> {
  purifier ??= loadPurifier();
  const purify = await purifier;
  // The XML declaration is left out: the answer's Content-Type says what the text is.
  const body = svg.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '').trim();
  const clean = purify.sanitize(body, OPTIONS).trim();
  return /^<svg[\s>]/.test(clean) ? clean : undefined;
}

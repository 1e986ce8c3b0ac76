import { jsxEscape, jsxTemplate } from 'preact/jsx-runtime';
import { renderToString } from 'preact-render-to-string';

/**
 * Parts of a page rendered once and reused across requests (e.g. what every reader of a program
 * sees alike). `renderPart` escapes text and attributes as any page render does; `Rendered` places
 * its result in a page as it is, with no element around it, so the page is the same as if the part
 * had been rendered in place. Only ever give `Rendered` what `renderPart` returned.
 */
export const renderPart = (tree: preact.VNode): string => renderToString(tree);

export function Rendered(props: { html: string }) {
  return jsxTemplate([props.html]);
}

/**
 * Text escaped exactly as the renderer escapes text and attribute values (`"`, `&`, `<`), for a
 * value placed into a part rendered once (e.g. inside an attribute's quotes).
 */
export const escapeText = (text: string): string => jsxEscape(text) as string;

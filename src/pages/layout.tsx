import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { accentStylesheetPath, type Brand } from '../core/branding.ts';
import { assets } from './assets.ts';

export interface LayoutProps {
  /** The document's title; the page's one `h1` is its own. */
  title: string;
  /** Shown above the page, e.g. the program's name. */
  site?: string;
  /** A program's page: its name and logo above, its colour for accents, its terms below. */
  brand?: Brand;
  /** Whether the page needs the copy button's script. */
  copyScript?: boolean;
  /** A wider page (dashboards with tables and a chart). */
  wide?: boolean;
  /** Shown in the header after the site's name: a signed-in person's navigation. */
  nav?: ComponentChildren;
  children: ComponentChildren;
}

/**
 * The document every page shares: language, viewport for phones, the stylesheet, a skip link,
 * one `main`. Pages render their own single `h1`. Readable without CSS: plain semantic HTML.
 */
export function Layout(props: LayoutProps) {
  const { brand } = props;
  const site = brand?.name ?? props.site;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{site ? `${props.title} · ${site}` : props.title}</title>
        <link rel="stylesheet" href={assets.stylesheet} />
        {brand?.accent ? <link rel="stylesheet" href={accentStylesheetPath(brand.accent)} /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        {site ? (
          <header class={props.wide ? 'site wide' : 'site'}>
            <div class="bar">
              <p class={brand ? 'brand' : undefined}>
                {brand?.logoUrl ? <img src={brand.logoUrl} alt="" /> : null}
                <span>{site}</span>
              </p>
              {props.nav ?? null}
            </div>
          </header>
        ) : null}
        <main id="main" class={props.wide ? 'wide' : undefined}>
          {props.children}
        </main>
        <footer class={props.wide ? 'site wide' : 'site'}>
          {brand ? (
            <p>
              {brand.name}
              {brand.termsUrl ? (
                <>
                  {' · '}
                  <a href={brand.termsUrl}>Terms</a>
                </>
              ) : null}
            </p>
          ) : (
            <p>Referrals by Vouch.</p>
          )}
        </footer>
        {props.copyScript ? <script src={assets.copyScript} defer /> : null}
      </body>
    </html>
  );
}

/** The HTML text of a page: a doctype and the rendered tree (text and attributes escaped). */
export function renderDocument(tree: preact.VNode): string {
  return `<!doctype html>${renderToString(tree)}`;
}

/** Where `documentShell` splits; a NUL never comes out of a rendered page's own text. */
const CONTENT_PLACE = '\u0000content\u0000';

/**
 * A layout's document split around its content: `before + content + after` is exactly the
 * `renderDocument` of that layout with that (rendered) content. For pages whose layout is the same
 * across many requests, so it is rendered once. The split is at the last mark: the props' own text
 * (title, site) comes before `main`, and nothing of theirs after it.
 */
export function documentShell(props: Omit<LayoutProps, 'children'>): { before: string; after: string } {
  const html = renderDocument(<Layout {...props}>{CONTENT_PLACE}</Layout>);
  const at = html.lastIndexOf(CONTENT_PLACE);
  return { before: html.slice(0, at), after: html.slice(at + CONTENT_PLACE.length) };
}

import type { FieldProblem } from './messages.ts';

/**
 * A program's branding (issue 30): its logo (uploaded, or an https URL), a brand colour for the
 * accents of its pages and e-mails, and the URL of its terms. Pure rules: what a logo's bytes are,
 * whether a colour keeps white text readable, what a page and an e-mail show.
 */

export const defaultBrandingSettings = {
  brand_color: null,
  logo_url: null,
  terms_url: null,
} as const;

/** Largest logo accepted, in bytes. */
export const LOGO_MAX_BYTES = 512 * 1024;

/** WCAG 2 AA for normal text: white text on the brand colour (buttons) needs at least this. */
export const MIN_CONTRAST = 4.5;

export const logoTypes = ['image/png', 'image/jpeg', 'image/svg+xml'] as const;
export type LogoType = (typeof logoTypes)[number];

export const isLogoType = (type: string): type is LogoType => (logoTypes as readonly string[]).includes(type);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Text before an SVG's root element: a byte-order mark, an XML declaration, comments, space, and a
 * document type (sniffed as SVG so that it is refused as such).
 */
const SVG_START =
  /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>\s*)*<svg[\s>/]/i;

/** What the bytes of an upload are, by their content (never by the name or the declared type). */
export function sniffLogo(bytes: Uint8Array): LogoType | undefined {
  if (PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 4096));
  return SVG_START.test(head) ? 'image/svg+xml' : undefined;
}

/** An SVG that declares a document type or entities is refused (entity expansion, external ones). */
export const declaresDocumentType = (svg: string) => /<!(DOCTYPE|ENTITY)/i.test(svg);

const HEX = /^#([0-9a-fA-F]{6})$/;

/** WCAG 2 relative luminance of a `#rrggbb` colour. */
export function relativeLuminance(hex: string): number {
  const match = HEX.exec(hex);
  if (!match?.[1]) throw new Error(`not a #rrggbb colour: ${hex}`);
  const value = Number.parseInt(match[1], 16);
  const channel = (shift: number) => {
    const c = ((value >> shift) & 0xff) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0);
}

/** The contrast ratio of white against a `#rrggbb` colour (1 to 21). */
export const contrastWithWhite = (hex: string) => 1.05 / (relativeLuminance(hex) + 0.05);

/** The ratio as a person reads it: rounded down to two decimals, so 4.499 never shows as 4.5. */
export const ratioInWords = (ratio: number) => (Math.floor(ratio * 100) / 100).toFixed(2);

const isHttps = (url: string) => {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * The problems of branding settings a PUT gives (their shape already checked by the schema): a
 * colour white text is not readable on, a URL that is not https.
 */
export function brandingProblems(
  given: Record<string, unknown>,
  prefix = 'program_settings.',
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const color = given.brand_color;
  if (typeof color === 'string' && HEX.test(color)) {
    const ratio = contrastWithWhite(color);
    if (ratio < MIN_CONTRAST)
      problems.push({
        field: `${prefix}brand_color`,
        rule: 'contrast',
        params: [ratioInWords(ratio), String(MIN_CONTRAST)],
      });
  }
  for (const key of ['logo_url', 'terms_url'] as const) {
    const url = given[key];
    if (typeof url === 'string' && !isHttps(url))
      problems.push({ field: `${prefix}${key}`, rule: 'https', params: [] });
  }
  return problems;
}

/** What a page or an e-mail shows of a program: its name, logo, accent colour and terms. */
export interface Brand {
  name: string;
  /** The logo's URL (Vouch's own path for an upload), or null. */
  logoUrl: string | null;
  /** The brand colour (`#rrggbb`, lower case), or null for Vouch's own accent. */
  accent: string | null;
  termsUrl: string | null;
}

/** Where Vouch serves an uploaded logo: the digest changes with the file, so it is cached for good. */
export const logoPath = (publicId: string, digest: string) => `/logos/${publicId}/${digest}`;

/** The stylesheet that sets a brand colour: named by the colour itself, so it needs no lookup. */
export const accentStylesheetPath = (accent: string) => `/assets/accent/${accent.slice(1)}.css`;

/** A `#rrggbb` colour from a stylesheet's file name (`1d4ed8.css`), or undefined. */
export function accentOfFileName(name: string): string | undefined {
  const match = /^([0-9a-f]{6})\.css$/.exec(name);
  return match ? `#${match[1]}` : undefined;
}

/**
 * The brand colour's stylesheet: links, buttons, focus rings and bars take it. The colour keeps
 * 4.5:1 with white, so white text on it and it as text on white are both readable; links on the
 * page's grey background (the footer) keep the muted text colour instead.
 */
export const accentStylesheet = (accent: string) =>
  `:root { --accent: ${accent}; --accent-ink: #ffffff; }\nfooter.site a { color: var(--muted); }\n`;

/**
 * A program's brand from its row and settings: an uploaded logo wins over a logo URL; a stored
 * colour that no longer passes (stored before the rule) is not used.
 */
export function brandOf(
  program: { name: string; public_id: string; logo_digest: string | null },
  settings: Record<string, unknown>,
): Brand {
  const color = typeof settings.brand_color === 'string' ? settings.brand_color.toLowerCase() : null;
  const url = (value: unknown) => (typeof value === 'string' && isHttps(value) ? value : null);
  return {
    name: program.name,
    logoUrl: program.logo_digest ? logoPath(program.public_id, program.logo_digest) : url(settings.logo_url),
    accent: color && HEX.test(color) && contrastWithWhite(color) >= MIN_CONTRAST ? color : null,
    termsUrl: url(settings.terms_url),
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A logo path made absolute for an e-mail (which has no page to be relative to); null without a base. */
function absolute(url: string, baseUrl: string | undefined): string | null {
  if (/^https:\/\//.test(url)) return url;
  return baseUrl ? `${baseUrl}${url}` : null;
}

/**
 * An e-mail's HTML in the program's brand: its logo (or name) above, a bar in its colour, the
 * message, and a footer with the name and the terms link. Inline styles only: e-mail clients drop
 * stylesheets. `fragment` is the message's own HTML, already escaped where it was written.
 */
export function brandedEmailHtml(brand: Brand, fragment: string, baseUrl: string | undefined): string {
  const accent = brand.accent ?? '#1d4ed8';
  const name = escapeHtml(brand.name);
  const logo = brand.logoUrl ? absolute(brand.logoUrl, baseUrl) : null;
  const head = logo
    ? `<img src="${escapeHtml(logo)}" alt="${name}" height="40" style="height:40px;max-width:240px;border:0">`
    : `<strong style="font-size:18px">${name}</strong>`;
  const terms = brand.termsUrl
    ? ` · <a href="${escapeHtml(brand.termsUrl)}" style="color:#4a5260">Terms</a>`
    : '';
  return [
    '<!doctype html><html><body style="margin:0;background:#f6f7f9">',
    '<div style="max-width:560px;margin:0 auto;padding:24px 16px;font-family:system-ui,Arial,sans-serif;color:#1b1f24">',
    `<div data-brand="header" style="padding:0 0 12px;border-bottom:4px solid ${accent}">${head}</div>`,
    `<div style="background:#ffffff;padding:16px;line-height:1.5">${fragment}</div>`,
    `<p data-brand="footer" style="color:#4a5260;font-size:13px">${name}${terms}</p>`,
    '</div></body></html>',
  ].join('');
}

import { Type } from 'typebox';
import { MIN_CONTRAST } from '../../core/branding.ts';

/** The branding settings (issue 30, core/branding.ts) of every program type. */

const HttpsUrl = (description: string) =>
  Type.Union([Type.String({ format: 'http-url', maxLength: 2000 }), Type.Null()], { description });

export const brandingSettingsSchema = {
  brand_color: Type.Union(
    [Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', examples: ['#1d4ed8'] }), Type.Null()],
    {
      description: `The accent of the program's pages and e-mails (buttons, links), as \`#rrggbb\`; white text on it must reach ${MIN_CONTRAST}:1 (WCAG AA), else 422. Null: Vouch's blue (a Vouch extension)`,
    },
  ),
  logo_url: HttpsUrl(
    "An https URL of the program's logo for its pages and e-mails; an uploaded logo (`PUT /v1/program/logo`) is shown instead while there is one. Null: none (a Vouch extension)",
  ),
  terms_url: HttpsUrl(
    "An https URL of the program's terms: the partner sign-up's terms checkbox links to it, and pages and e-mails show it. Null: none (a Vouch extension)",
  ),
};

import { readFileSync } from 'node:fs';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

/**
 * `/docs`: the API reference rendered from the OpenAPI document by swagger-ui's files, which
 * @fastify/swagger-ui serves from the package (nothing from a CDN). Branded as Vouch: the
 * standalone layout's top bar (the framework's logo and a URL box) is left out, and a script of
 * ours puts a Vouch header above the reference. The page's policy allows only this origin; no
 * inline style or script is needed, so none is allowed (the top bar's logo carried one).
 */
const logo = readFileSync(new URL('../../public/vouch-logo.svg', import.meta.url));
const PREFIX = '/docs';

const css = `
body { margin: 0; }
.vouch-header { display: flex; align-items: center; gap: 0.75rem; padding: 0.75rem 1.25rem;
  background: #1b1f24; color: #ffffff; font-family: system-ui, sans-serif; }
.vouch-header img { width: 32px; height: 32px; }
.vouch-header a { display: flex; align-items: center; gap: 0.5rem; color: inherit; text-decoration: none;
  font-weight: 600; font-size: 1.125rem; }
.vouch-header span { color: #d0d5dd; }
.swagger-ui .info .title small.version-stamp { background-color: #1d4ed8; }
`;

// A script file rather than markup: the page's HTML is @fastify/swagger-ui's own.
const header = `
(function () {
  function addHeader() {
    if (document.querySelector('.vouch-header')) return;
    var header = document.createElement('header');
    header.className = 'vouch-header';
    var link = document.createElement('a');
    link.href = '${PREFIX}';
    var img = document.createElement('img');
    img.src = '${PREFIX}/static/theme/vouch-logo.svg';
    img.alt = '';
    link.appendChild(img);
    link.appendChild(document.createTextNode('Vouch'));
    var label = document.createElement('span');
    label.textContent = 'API reference';
    header.appendChild(link);
    header.appendChild(label);
    document.body.insertBefore(header, document.body.firstChild);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', addHeader);
  else addHeader();
})();
`;

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
  "form-action 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
].join('; ');

export const docsPage: FastifySwaggerUiOptions = {
  routePrefix: PREFIX,
  staticCSP: CONTENT_SECURITY_POLICY,
  // swagger-ui would send the document to an online validator for its badge.
  validatorUrl: false,
  uiConfig: { layout: 'BaseLayout', deepLinking: true, docExpansion: 'list', validatorUrl: null },
  theme: {
    title: 'Vouch API reference',
    css: [{ filename: 'vouch.css', content: css }],
    js: [{ filename: 'vouch-header.js', content: header }],
    favicon: [
      { filename: 'vouch-logo.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: logo },
    ],
  },
};

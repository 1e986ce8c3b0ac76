import assert from 'node:assert/strict';
import type { Reply, TestServer } from './harness.ts';

/**
 * A browser as far as the portal's HTTP tests need one: it keeps the cookies the server sets
 * (per path, as a browser would), sends them back, and posts forms with the CSRF token of the
 * last page it read. Redirects are not followed; tests follow them when they mean to.
 */
export class PageClient {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  /** The CSRF token of the last page that had a form. */
  csrf = '';

  /** `host`: the Host header every request carries (a program's portal host); else the server's. */
  constructor(
    private readonly server: () => TestServer,
    private readonly host?: string,
  ) {}

  cookie(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  setCookie(name: string, value: string, path = '/') {
    this.cookies.set(name, { value, path });
  }

  private hostHeader(): Record<string, string> {
    return this.host ? { host: this.host } : {};
  }

  private cookieHeader(path: string): string {
    return [...this.cookies]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  private remember(reply: Reply) {
    const header = reply.headers.get('set-cookie');
    if (header) {
      // Headers joins several Set-Cookie values with ", "; cookie values here never hold a comma.
      for (const line of header.split(/, (?=[A-Za-z_]+=)/)) {
        const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
        const [name = '', value = ''] = pair.split('=');
        const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
        const expired = attributes.some((a) => /^expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
        if (expired) this.cookies.delete(name);
        else this.cookies.set(name, { value, path });
      }
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(reply.text)?.[1];
    if (token) this.csrf = token;
    return reply;
  }

  async get(path: string): Promise<Reply> {
    const headers: Record<string, string> = { accept: 'text/html', ...this.hostHeader() };
    const cookie = this.cookieHeader(path);
    if (cookie) headers.cookie = cookie;
    return this.remember(await this.server().request('GET', path, { headers }));
  }

  /** Posts a form with this client's CSRF token (unless `_csrf` is given) and cookies. */
  async post(path: string, fields: Record<string, string> = {}): Promise<Reply> {
    return this.postBody(path, new URLSearchParams({ _csrf: this.csrf, ...fields }));
  }

  /** Posts a form body as given (a field may repeat: the selected rows of a list), with the cookies. */
  async postBody(path: string, form: URLSearchParams): Promise<Reply> {
    const headers: Record<string, string> = {
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
      ...this.hostHeader(),
    };
    const cookie = this.cookieHeader(path);
    if (cookie) headers.cookie = cookie;
    return this.remember(await this.server().request('POST', path, { headers, body: form.toString() }));
  }

  /** Posts a multipart form (a file input's form) with this client's CSRF token and cookies. */
  async postMultipart(
    path: string,
    form: FormData,
  ): Promise<{ status: number; text: string; location: string }> {
    if (!form.has('_csrf')) form.set('_csrf', this.csrf);
    const headers: Record<string, string> = { accept: 'text/html', ...this.hostHeader() };
    const cookie = this.cookieHeader(path);
    if (cookie) headers.cookie = cookie;
    const res = await fetch(`${this.server().url}${path}`, {
      method: 'POST',
      headers,
      body: form,
      redirect: 'manual',
    });
    return { status: res.status, text: await res.text(), location: res.headers.get('location') ?? '' };
  }

  /** Opens a page with a form, then posts it: what a person does. */
  async submit(path: string, fields: Record<string, string>, formPath = path): Promise<Reply> {
    const page = await this.get(formPath);
    assert.equal(page.status, 200, page.text);
    return this.post(path, fields);
  }
}

/** The path of a redirect answer. */
export const locationOf = (reply: Reply) => reply.headers.get('location') ?? '';

/** The password the portal tests sign partners up with. */
export const PORTAL_PASSWORD = 'Secret123';

/**
 * Signs a new partner up through the portal's form at `base` (`/p/{program}`, or '' on the
 * program's own host, named by `host`): the client, signed in, and the form's reply, which sent
 * it to the dashboard.
 */
export async function signUpPartner(
  server: () => TestServer,
  base: string,
  email: string,
  options: { name?: string; host?: string } = {},
): Promise<{ client: PageClient; reply: Reply }> {
  const client = new PageClient(server, options.host);
  const reply = await client.submit(`${base}/sign-up`, {
    name: options.name ?? 'Jane',
    surname: 'Doe',
    email,
    password: PORTAL_PASSWORD,
    terms: 'yes',
  });
  assert.equal(reply.status, 303, reply.text);
  assert.equal(locationOf(reply), `${base}/dashboard`);
  return { client, reply };
}

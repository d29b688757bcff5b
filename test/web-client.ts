import type { FastifyInstance } from 'fastify';

export interface Page {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** Where a redirect points. */
  location?: string;
}

/**
 * A browser in miniature over app.inject: keeps cookies, reads the CSRF token of the last
 * page, posts url-encoded forms. For tests of the pages (sign-in, invitations, consent).
 */
export class Browser {
  readonly jar = new Map<string, string>();
  lastPage?: Page;

  constructor(
    readonly app: FastifyInstance,
    readonly opts: { remoteAddress?: string; lang?: string } = {},
  ) {}

  get cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** The Set-Cookie lines of an answer. */
  static setCookies(page: Page): string[] {
    const h = page.headers['set-cookie'];
    return h === undefined ? [] : [h].flat().map(String);
  }

  private keep(page: Page) {
    for (const line of Browser.setCookies(page)) {
      const [pair = ''] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      if (value === '' || /max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Page> {
    const res = await this.app.inject({
      method,
      url,
      remoteAddress: this.opts.remoteAddress,
      headers: {
        ...(this.jar.size ? { cookie: this.cookieHeader } : {}),
        ...(this.opts.lang ? { 'accept-language': this.opts.lang } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    const page: Page = {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      location: res.headers.location as string | undefined,
    };
    this.keep(page);
    if (method === 'GET') this.lastPage = page;
    return page;
  }

  get = (url: string, headers?: Record<string, string>) => this.request('GET', url, undefined, headers);

  /** The `_csrf` value of the last page fetched. */
  csrf(): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(this.lastPage?.body ?? '');
    if (!m) throw new Error('no CSRF token on the last page');
    return m[1]!;
  }

  /** Posts a form with the last page's CSRF token (unless `_csrf` is given, '' to leave it out). */
  post(url: string, form: Record<string, string> = {}, headers?: Record<string, string>): Promise<Page> {
    const withToken = '_csrf' in form ? form : { _csrf: this.csrf(), ...form };
    if (withToken._csrf === '') delete withToken._csrf;
    return this.request('POST', url, withToken, headers);
  }

  /** Opens the sign-in page and signs in. */
  async signIn(email: string, password: string, returnTo?: string): Promise<Page> {
    await this.get(returnTo ? `/signin?return_to=${encodeURIComponent(returnTo)}` : '/signin');
    return this.post('/signin', { email, password, ...(returnTo ? { return_to: returnTo } : {}) });
  }
}

/** The text of the page's error paragraph, if any. */
export const pageError = (page: Page): string | undefined =>
  /<p class="error" role="alert"[^>]*>([^<]*)<\/p>/.exec(page.body)?.[1];

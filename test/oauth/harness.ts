import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import { buildApp } from '../../src/app.js';
import type { DbHandle } from '../../src/db/index.js';
import { createIntegration } from '../../src/modules/integration/integration.service.js';
import type { OAuthOptions } from '../../src/modules/oauth/oauth.provider.js';
import { hashToken } from '../../src/plugins/auth.js';
import { insertSession } from '../../src/web/sessions.repository.js';
import { testConfig } from '../helpers.js';

/** A free port on loopback (the issuer, i.e. PUBLIC_URL, must be known before the app is built). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The service listening on a real port (OAuth client libraries speak HTTP, not inject). */
export async function listeningApp(handle: DbHandle, oauth: OAuthOptions = {}) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = await buildApp(testConfig({ publicUrl: origin }), { db: handle, logger: false, oauth });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, origin };
}

export const REDIRECT = 'http://127.0.0.1:9/callback';

export async function oauthClient(
  db: DbHandle['db'],
  userId: number,
  scopes: string,
  opts: { public?: boolean; redirectUris?: string[] } = {},
) {
  return createIntegration(db, {
    name: 'Time tracker',
    displayName: 'Acme Time Tracker',
    homepage: 'https://timetracker.example/',
    scopes: scopes.split(' '),
    userId,
    redirectUris: opts.redirectUris ?? [REDIRECT],
    public: opts.public,
  });
}

/** openid-client configured from our RFC 8414 metadata. */
export async function discover(origin: string, clientId: string, secret: string | null) {
  return oidc.discovery(
    new URL(origin),
    clientId,
    undefined,
    secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
    { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
  );
}

/** A browser's cookie jar, enough for one origin (paths ignored). */
export class Browser {
  cookies = new Map<string, string>();
  /** The browser's Accept-Language. */
  language = 'en-GB';
  constructor(readonly origin: string) {}

  /** Signs in by making a session row, as the sign-in page would (its own tests cover the page). */
  async signIn(app: FastifyInstance, userId: number) {
    const id = randomBytes(32).toString('base64url');
    const user = await app.db
      .selectFrom('users')
      .select('account_id')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const now = Date.now();
    await insertSession(app.db, {
      id_hash: hashToken(id),
      user_id: userId,
      account_id: user.account_id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 3600_000).toISOString(),
      ip: null,
      user_agent: null,
    });
    this.cookies.set('sid', id);
  }

  async fetch(url: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    headers.set('accept-language', this.language);
    const res = await fetch(new URL(url, this.origin), { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /**
   * Follows redirects from `url` until it leaves this origin (the app's redirect URI: returned)
   * or a page is shown (returned with its HTML).
   */
  async follow(url: string, init?: RequestInit): Promise<{ location?: URL; status: number; html?: string }> {
    let res = await this.fetch(url, init);
    for (let i = 0; i < 20; i++) {
      const loc = res.headers.get('location');
      if (!loc || res.status < 300 || res.status >= 400)
        return { status: res.status, html: await res.text() };
      const next = new URL(loc, this.origin);
      if (next.origin !== this.origin) return { location: next, status: res.status };
      res = await this.fetch(next.href);
    }
    throw new Error('redirect loop');
  }

  /** Approves (or denies) on the consent page shown as `html`. */
  async decide(html: string, decision: 'approve' | 'deny', csrf?: string) {
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!.replace(/&#x2F;|&#47;/g, '/');
    const token = csrf ?? /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    return this.follow(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin },
      body: new URLSearchParams({ _csrf: token, decision }).toString(),
    });
  }
}

export { oidc };

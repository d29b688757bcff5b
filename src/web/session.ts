import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.js';
import { hashToken } from '../shared/tokens.js';
import { clock, isoAt } from './clock.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import * as repo from './sessions.repository.js';

/**
 * Browser sessions: the public API of the sign-in for other pages (OAuth consent, console).
 *
 *   const user = await requireSession(req, reply);
 *   if (!user) return reply;            // redirected to /signin?return_to=…
 *   …render(req, reply, 'page', { csrf: csrfToken(req) }) … checkCsrf(req) on POST
 *
 * The cookie holds a random id; the database holds its SHA-256 with the user and account,
 * so every process sees the same sessions. The user's `active` flag and the account are
 * checked on every use: a deactivated user's sessions end at once.
 */
export interface SessionUser {
  userId: number;
  accountId: number;
  role: 'admin' | 'member';
  email: string;
  name: string;
}

export const SESSION_COOKIE = 'sid';
const ANON_COOKIE = 'csrf';
/** A session ends after this long without use… */
export const SESSION_IDLE_MS = 12 * 3600_000;
/** …and after this long in any case. */
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** last_seen_at is written at most this often (one write per page view would be wasted). */
const TOUCH_EVERY_MS = 60_000;

const known = new WeakMap<FastifyRequest, Promise<SessionUser | null>>();

async function lookup(req: FastifyRequest): Promise<SessionUser | null> {
  const id = readCookie(req, SESSION_COOKIE);
  if (!id) return null;
  const db = req.server.db;
  const idHash = hashToken(id);
  const row = await repo.findSession(db, idHash);
  if (!row) return null;
  const now = clock.now();
  if (
    !row.active ||
    Date.parse(row.expires_at) <= now ||
    Date.parse(row.created_at) + SESSION_MAX_MS <= now
  ) {
    await repo.deleteSession(db, idHash);
    return null;
  }
  if (now - Date.parse(row.last_seen_at) >= TOUCH_EVERY_MS) {
    const expires = Math.min(now + SESSION_IDLE_MS, Date.parse(row.created_at) + SESSION_MAX_MS);
    await repo.touchSession(db, idHash, isoAt(now), isoAt(expires));
  }
  return {
    userId: row.user_id,
    accountId: row.account_id,
    role: row.role === 'admin' ? 'admin' : 'member',
    email: row.email,
    name: `${row.first_name} ${row.last_name}`.trim(),
  };
}

/** The signed-in user of this request, or null. Looked up once per request. */
export function sessionUser(req: FastifyRequest): Promise<SessionUser | null> {
  let user = known.get(req);
  if (!user) {
    user = lookup(req);
    known.set(req, user);
  }
  return user;
}

/** Where a page that needs a session sends a visitor without one. */
export function signinUrl(returnTo: string): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}`;
}

/**
 * The signed-in user, or null after redirecting to the sign-in page, which comes back to
 * this URL (GET) afterwards. The caller returns `reply` when it gets null.
 */
export async function requireSession(req: FastifyRequest, reply: FastifyReply): Promise<SessionUser | null> {
  const user = await sessionUser(req);
  if (user) return user;
  reply.header('cache-control', 'no-store');
  await reply.redirect(signinUrl(req.method === 'GET' ? req.url : '/me'), 303);
  return null;
}

/**
 * Starts a session for the user with a new id (never the one the browser came with: no
 * session fixation), ending the session the request came with.
 */
export async function startSession(
  req: FastifyRequest,
  reply: FastifyReply,
  user: { userId: number; accountId: number },
): Promise<void> {
  const db = req.server.db;
  const old = readCookie(req, SESSION_COOKIE);
  if (old) await repo.deleteSession(db, hashToken(old));
  const id = randomBytes(32).toString('base64url');
  const now = clock.now();
  await repo.insertSession(db, {
    id_hash: hashToken(id),
    user_id: user.userId,
    account_id: user.accountId,
    created_at: isoAt(now),
    expires_at: isoAt(now + SESSION_IDLE_MS),
    ip: req.ip ?? null,
    user_agent: (req.headers['user-agent'] ?? '').slice(0, 500) || null,
  });
  // A session cookie (no Max-Age): it also ends when the browser closes.
  setCookie(req, reply, SESSION_COOKIE, id);
  clearCookie(req, reply, ANON_COOKIE);
  known.set(req, Promise.resolve(null));
  bindings.set(req, `s:${id}`);
  if (Math.random() < 0.05) await repo.deleteExpiredSessions(db, isoAt(now));
}

/** Ends the request's session (sign-out): the row is deleted, the cookie cleared. */
export async function endSession(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = readCookie(req, SESSION_COOKIE);
  if (id) await repo.deleteSession(req.server.db, hashToken(id));
  clearCookie(req, reply, SESSION_COOKIE);
  known.set(req, Promise.resolve(null));
  bindings.delete(req);
}

// --- CSRF -----------------------------------------------------------------------------------
// Synchronizer tokens without server state: the token is an HMAC (keyed from SECRET_KEY) of
// the session id, or for a visitor without a session (sign-in form, invitation) of a random
// value in an HttpOnly cookie. Another site can neither read the token nor make one. POSTs
// must also come from our origin when the browser says where they come from (Origin/Referer).

const bindings = new WeakMap<FastifyRequest, string>();
const minted = new WeakMap<FastifyRequest, string>();

function binding(req: FastifyRequest): string {
  let b = bindings.get(req);
  if (b) return b;
  const sid = readCookie(req, SESSION_COOKIE);
  const anon = readCookie(req, ANON_COOKIE);
  if (sid) b = `s:${sid}`;
  else if (anon) b = `a:${anon}`;
  else {
    const value = randomBytes(24).toString('base64url');
    minted.set(req, value);
    b = `a:${value}`;
  }
  bindings.set(req, b);
  return b;
}

const keys = new Map<string, Buffer>();
function csrfKey(req: FastifyRequest): Buffer {
  const secret = req.server.config.secretKey;
  let key = keys.get(secret);
  if (!key) {
    key = createHmac('sha256', secret).update('web-csrf').digest();
    keys.set(secret, key);
  }
  return key;
}

/** The token a form of this page must send back as `_csrf`. */
export function csrfToken(req: FastifyRequest): string {
  return createHmac('sha256', csrfKey(req)).update(binding(req)).digest('base64url');
}

/** Sets the cookie a token of this request was bound to, if it was new (render() calls it). */
export function commitCsrfCookie(req: FastifyRequest, reply: FastifyReply): void {
  const value = minted.get(req);
  if (value) setCookie(req, reply, ANON_COOKIE, value);
  minted.delete(req);
}

function sameOrigin(req: FastifyRequest, value: string): boolean {
  let origin: string;
  try {
    origin = new URL(value).origin;
  } catch {
    return false;
  }
  const own = new URL(req.server.config.publicUrl).origin;
  return origin === own || origin === `${req.protocol}://${req.host}`;
}

/** Refuses (403 `forbidden`) a POST without the right `_csrf` field or from another origin. */
export function checkCsrf(req: FastifyRequest): void {
  const origin = req.headers.origin;
  const referer = req.headers.referer;
  const fromElsewhere =
    origin !== undefined && origin !== 'null'
      ? !sameOrigin(req, origin)
      : origin === 'null' || (referer !== undefined && !sameOrigin(req, referer));
  const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
  const hasSession = Boolean(readCookie(req, SESSION_COOKIE) || readCookie(req, ANON_COOKIE));
  const expected = Buffer.from(csrfToken(req));
  const ok =
    !fromElsewhere &&
    hasSession &&
    typeof sent === 'string' &&
    sent.length === expected.length &&
    timingSafeEqual(Buffer.from(sent), expected);
  minted.delete(req);
  if (!ok) throw new AppError('forbidden', 'csrf');
}

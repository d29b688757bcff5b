import type { FastifyReply, FastifyRequest } from 'fastify';

// @fastify/cookie is registered without its hook (web.plugin.ts): it would parse the Cookie
// header of every request, the API's too, which never reads it. Pages parse it when asked.
const parsed = new WeakMap<FastifyRequest, Record<string, string>>();

export function cookies(req: FastifyRequest): Record<string, string> {
  const kept = parsed.get(req);
  if (kept) return kept;
  const c = req.headers.cookie ? req.server.parseCookie(req.headers.cookie) : {};
  parsed.set(req, c);
  return c;
}

/** Cookies go `Secure` (and take the `__Host-` prefix) when the service is reached over https. */
export function isSecure(req: FastifyRequest): boolean {
  return req.server.config.publicUrl.startsWith('https:') || req.protocol === 'https';
}

/** The name of a cookie as this request's scheme spells it. */
export const cookieName = (req: FastifyRequest, base: string) => (isSecure(req) ? `__Host-${base}` : base);

export function readCookie(req: FastifyRequest, base: string): string | undefined {
  const value = cookies(req)[cookieName(req, base)];
  return value && value.length <= 200 ? value : undefined;
}

export function setCookie(
  req: FastifyRequest,
  reply: FastifyReply,
  base: string,
  value: string,
  maxAgeSeconds?: number,
): void {
  reply.header(
    'set-cookie',
    req.server.serializeCookie(cookieName(req, base), value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: isSecure(req),
      path: '/',
      ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
    }),
  );
}

export const clearCookie = (req: FastifyRequest, reply: FastifyReply, base: string) =>
  setCookie(req, reply, base, '', 0);

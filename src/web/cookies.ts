import type { FastifyReply, FastifyRequest } from 'fastify';

// @fastify/cookie's parser and serializer, taken from a scope of its own (web.plugin.ts): as
// a plugin of the whole app it would add a hook and decorations to every request, the API's
// too, which never reads cookies. Pages parse the header when they ask.
type Parse = (header: string) => Record<string, string>;
type Serialize = (name: string, value: string, opts: Record<string, unknown>) => string;
let codec: { parse: Parse; serialize: Serialize } | undefined;

export function useCookieCodec(parse: Parse, serialize: Serialize): void {
  codec = { parse, serialize };
}

function cookieCodec() {
  if (!codec) throw new Error('cookies are read before the web plugin was registered');
  return codec;
}

const parsed = new WeakMap<FastifyRequest, Record<string, string>>();

export function cookies(req: FastifyRequest): Record<string, string> {
  const kept = parsed.get(req);
  if (kept) return kept;
  const c = req.headers.cookie ? cookieCodec().parse(req.headers.cookie) : {};
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
    cookieCodec().serialize(cookieName(req, base), value, {
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

import type { FastifyReply, FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import { AppError, invalidField } from './errors.js';

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name. */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Sends bytes as a download: Content-Type, Content-Disposition, a strong ETag (the SHA-256),
 * If-None-Match (304) and a single byte Range (206, or 416 when unsatisfiable).
 */
export function sendBytes(
  req: FastifyRequest,
  reply: FastifyReply,
  file: {
    data: Buffer;
    contentType: string;
    filename: string;
    sha256: string;
    disposition?: 'attachment' | 'inline';
  },
) {
  const etag = `"${file.sha256}"`;
  reply
    .header('content-type', file.contentType)
    .header('content-disposition', contentDisposition(file.filename, file.disposition))
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'private, max-age=0, must-revalidate')
    .header('x-content-type-options', 'nosniff');
  const inm = req.headers['if-none-match'];
  if (inm?.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return reply.code(304).send();
  const range = req.headers.range;
  const ifRange = req.headers['if-range'];
  if (range && (!ifRange || ifRange === etag)) {
    const ranges = rangeParser(file.data.length, range, { combine: true });
    if (ranges === -1) {
      throw new AppError(
        'range_not_satisfiable',
        `No byte of ${range} lies in the ${file.data.length} bytes`,
        {
          headers: { 'content-range': `bytes */${file.data.length}` },
        },
      );
    }
    if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
      const { start, end } = ranges[0]!;
      return reply
        .code(206)
        .header('content-range', `bytes ${start}-${end}/${file.data.length}`)
        .send(file.data.subarray(start, end + 1));
    }
  }
  return reply.send(file.data);
}

/**
 * The JSON of a multipart request's `data` part (a record's fields sent beside its file): the
 * one reader of it. Absent, it is `absent.default`, or a 422 naming `data` with
 * `absent.required` as the message; unparseable, a 422 "data: is not valid JSON". Validating
 * what it holds is the caller's (its schema, its field names).
 */
export function dataPart(
  raw: string | undefined,
  absent: { default: unknown } | { required: string },
): unknown {
  if (raw === undefined) {
    if ('required' in absent) throw invalidField('data', absent.required);
    return absent.default;
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw invalidField('data', 'is not valid JSON');
  }
}

/** A UTF-16 surrogate without its partner. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** A surrogate written as a JSON escape: the only way one reaches a parsed body. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** Every text in a parsed JSON value with each lone surrogate made U+FFFD, in place. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = wellFormed(value[i]);
  else if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const fixed = k.replace(LONE_SURROGATE, '\ufffd');
      const v = wellFormed(o[k]);
      if (fixed !== k) delete o[k];
      o[fixed] = v;
    }
  }
  return value;
}

type JsonParser = (
  req: FastifyRequest,
  body: string,
  done: (err: Error | null, value?: unknown) => void,
) => void;

/**
 * Fastify's JSON body parser, with a lone surrogate (`"\ud800"`) turned into U+FFFD: the databases
 * disagreed on it (SQLite kept its three-byte form, read back as three U+FFFD; PostgreSQL's JSON
 * parameters refused it with a 500). Bodies without a surrogate escape are passed on untouched.
 */
export const wellFormedJsonParser =
  (parse: JsonParser): JsonParser =>
  (req, body, done) =>
    parse(req, body, (err, value) =>
      err ? done(err) : done(null, SURROGATE_ESCAPE.test(body) ? wellFormed(value) : value),
    );

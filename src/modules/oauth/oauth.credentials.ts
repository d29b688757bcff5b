import { OAuthError } from './oauth.errors.js';

/** RFC 6749 Appendix A: client_id and client_secret are VSCHARs (printable ASCII). */
const VSCHARS = /^[\x20-\x7E]*$/;

function invalid(detail: string): OAuthError {
  return new OAuthError('invalid_client', `Malformed HTTP Basic credentials: ${detail}`);
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined for Basic. */
function formDecode(s: string, what: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw invalid(`${what} is not valid percent-encoding`);
  }
  if (!VSCHARS.test(decoded)) throw invalid(`${what} holds characters outside printable ASCII`);
  return decoded;
}

/**
 * The client's id and secret, from HTTP Basic or from the body (RFC 6749 §2.3.1) — not both,
 * since a client must use one method only. Anything malformed is `invalid_client`; nothing
 * here can throw anything else.
 */
export function clientCredentials(
  authorization: string | undefined,
  body: { client_id?: string; client_secret?: string },
): { id: string; secret: string } {
  if (authorization !== undefined) {
    const m = /^Basic(?:\s+(\S*))?\s*$/i.exec(authorization);
    if (!m) throw new OAuthError('invalid_client', 'Only HTTP Basic client authentication is supported here');
    if (body.client_id !== undefined || body.client_secret !== undefined)
      throw new OAuthError(
        'invalid_request',
        'Client credentials in both the Authorization header and the body',
      );
    const encoded = m[1] ?? '';
    if (!encoded || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
      throw invalid('not base64');
    const decoded = Buffer.from(encoded, 'base64').toString('latin1');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalid('no colon between client id and secret');
    const id = formDecode(decoded.slice(0, colon), 'client id');
    const secret = formDecode(decoded.slice(colon + 1), 'client secret');
    if (!id) throw invalid('empty client id');
    return { id, secret };
  }
  if (!body.client_id || body.client_secret === undefined)
    throw new OAuthError('invalid_client', 'Client authentication is missing');
  return { id: body.client_id, secret: body.client_secret };
}

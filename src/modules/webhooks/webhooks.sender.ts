import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { blockedReason, hostOf } from './webhooks.ssrf.js';

export interface SendResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

export interface SenderOptions {
  timeoutMs: number;
  /** Set when private addresses are not allowed: refuses them when connecting. */
  lookup?: LookupFunction;
}

const USER_AGENT = 'pm-invoicing-webhooks/1.0';

/** How much of a refusing receiver's answer is kept (in `last_error`). */
export const EXCERPT_BYTES = 200;

/** The start of an answer as one line of text: control characters and runs of space become one space. */
export function excerptOf(raw: Buffer): string {
  return raw
    .toString('utf8')
    .replace(/\uFFFD+$/, '') // a character cut in half at the end
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim();
}

/**
 * POSTs one webhook message with node:http(s) rather than fetch, because the connection's
 * address lookup has to be guarded (DNS may have changed since registration). Redirects are
 * not followed: a 3xx is a failed attempt, so a receiver cannot bounce us somewhere private.
 * The whole exchange, body included, is bounded by `timeoutMs`.
 */
export class Sender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly options: SenderOptions) {}

  send(rawUrl: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        resolve({ ok: false, status: null, latencyMs: 0, error: 'invalid URL' });
        return;
      }
      const host = hostOf(url);
      // A literal address never goes through `lookup`: check it here.
      const literalBlocked = this.options.lookup && isIP(host) ? blockedReason(host) : null;
      if (literalBlocked) {
        resolve({ ok: false, status: null, latencyMs: 0, error: `${host} ${literalBlocked}` });
        return;
      }
      const secure = url.protocol === 'https:';
      let settled = false;
      const finish = (r: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': USER_AGENT,
          ...headers,
        },
        ...(this.options.lookup ? { lookup: this.options.lookup } : {}),
      });
      const timer = setTimeout(() => {
        req.destroy(new Error(`timed out after ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const latencyMs = elapsed();
        // Drain the body (keeps the connection reusable), keeping only its start: a receiver's
        // refusal usually says why, and the console shows it beside the status.
        const head: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept >= EXCERPT_BYTES) return;
          head.push(chunk.subarray(0, EXCERPT_BYTES - kept));
          kept += Math.min(chunk.length, EXCERPT_BYTES - kept);
        });
        res.on('end', () => {
          const ok = status >= 200 && status < 300;
          const excerpt = ok ? '' : excerptOf(Buffer.concat(head));
          finish({
            ok,
            status,
            latencyMs,
            error: ok ? null : `receiver answered ${status}${excerpt ? `: ${excerpt}` : ''}`,
          });
        });
        res.on('error', (err) => finish({ ok: false, status, latencyMs, error: err.message }));
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish({
          ok: false,
          status: null,
          latencyMs: elapsed(),
          error: err.code ? `${err.code}: ${err.message}` : err.message,
        }),
      );
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

import nodemailer from 'nodemailer';
import type { MailConfig } from '../../config.js';
import { type SmtpVerdict, smtpVerdict } from './mail.domain.js';

/** One message as it goes to the relay. */
export interface OutgoingMail {
  from: string;
  replyTo: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

export type SendResult =
  | { ok: true; response: string; code: number | null }
  | { ok: false; verdict: SmtpVerdict; response: string | null; code: number | null; error: string };

export interface MailTransport {
  send(mail: OutgoingMail): Promise<SendResult>;
  close(): void;
}

/** The relay's status code at the start of its answer ("250 2.0.0 Ok"). */
const codeOf = (response: string | undefined): number | null => {
  const m = /^(\d{3})[ -]/.exec(response ?? '');
  return m ? Number(m[1]) : null;
};

/**
 * SMTP through nodemailer, configured by SMTP_URL: `smtp://` upgrades with STARTTLS when the
 * relay offers it (`?requireTLS=true` insists), `smtps://` speaks TLS from the start;
 * credentials in the URL's user and password; optional DKIM signing. Timeouts are short so an
 * attempt never outlives the worker's lease by much: a relay that does not answer is retried.
 */
export function smtpTransport(config: MailConfig): MailTransport {
  // The URL's own query parameters (`?requireTLS=true&tls.rejectUnauthorized=false`) win.
  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
    ...(config.dkim ? { dkim: config.dkim } : {}),
  });
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({
          from: mail.from,
          ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
          to: mail.to,
          cc: mail.cc,
          bcc: mail.bcc,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          attachments: mail.attachments,
        });
        const response = String(info.response ?? '');
        return { ok: true, response, code: codeOf(response) };
      } catch (err) {
        const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
        return {
          ok: false,
          verdict: smtpVerdict(e),
          response: e.response ?? null,
          code: e.responseCode ?? codeOf(e.response),
          error: e.message ?? String(err),
        };
      }
    },
    close: () => transport.close(),
  };
}

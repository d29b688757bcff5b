import { once } from 'node:events';
import { createServer } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** What the test relay got: the envelope and the parsed message. */
export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  mail: ParsedMail;
}

/** An answer to a message's DATA: null accepts it (250). */
export type Answer = { code: number; message: string } | null;

/** A free loopback port (taken and let go; the test then listens on it or leaves it closed). */
export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as { port: number };
  s.close();
  await once(s, 'close');
  return port;
}

/**
 * A real SMTP server (smtp-server) on loopback: it accepts messages and keeps them parsed,
 * or answers each DATA as `answer` says (451, 550 …). Without `tls` it offers no STARTTLS;
 * with `auth` it asks for that user and password, over STARTTLS with its own certificate.
 */
export class Relay {
  readonly accepted: Received[] = [];
  /** DATA commands seen, accepted or not. */
  attempts = 0;
  answer: (attempt: number) => Answer = () => null;
  private server: SMTPServer | undefined;

  constructor(private readonly opts: { auth?: { user: string; pass: string } } = {}) {}

  async start(port = 0): Promise<number> {
    const auth = this.opts.auth;
    const options: SMTPServerOptions = {
      logger: false,
      ...(auth
        ? {
            authMethods: ['PLAIN', 'LOGIN'],
            onAuth: (a, _session, cb) =>
              a.username === auth.user && a.password === auth.pass
                ? cb(null, { user: a.username })
                : cb(Object.assign(new Error('Invalid credentials'), { responseCode: 535 })),
          }
        : { authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'] }),
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const answer = this.answer(++this.attempts);
          if (answer) {
            cb(Object.assign(new Error(answer.message), { responseCode: answer.code }));
            return;
          }
          const raw = Buffer.concat(chunks);
          simpleParser(raw).then(
            (mail) => {
              this.accepted.push({
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
                raw,
                mail,
              });
              cb();
            },
            (err: Error) => cb(err),
          );
        });
      },
    };
    this.server = new SMTPServer(options);
    this.server.on('error', () => {});
    this.server.listen(port, '127.0.0.1');
    await once(this.server.server, 'listening');
    return (this.server.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

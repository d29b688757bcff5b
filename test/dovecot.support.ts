import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const DOVECOT = '/usr/sbin/dovecot';
export const hasDovecot = () => existsSync(DOVECOT);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A real IMAP server for tests: Debian's dovecot in the foreground, with its own config in a
 * temporary directory (users from a passwd-file, maildirs beside it, no TLS, loopback only).
 * Mail is run as `nobody` when the tests run as root (dovecot refuses uid 0 for mail).
 */
export class Dovecot {
  readonly dir = mkdtempSync(join(tmpdir(), 'dovecot-'));
  port = 0;
  private child: ChildProcess | undefined;
  private log = '';

  constructor(private readonly users: Record<string, string>) {}

  async start(): Promise<this> {
    this.port = await freePort();
    const root = process.getuid?.() === 0;
    const uid = root ? 65534 : process.getuid!();
    const gid = root ? 65534 : process.getgid!();
    const me = root ? 'root' : userInfo().username;
    mkdirSync(join(this.dir, 'mail'), { recursive: true });
    mkdirSync(join(this.dir, 'run'), { recursive: true });
    writeFileSync(
      join(this.dir, 'users'),
      Object.entries(this.users)
        .map(([u, p]) => `${u}:{PLAIN}${p}:${uid}:${gid}::${join(this.dir, 'mail', u)}::`)
        .join('\n'),
    );
    // Dovecot's own users (auth, mail as nobody) read the passwd-file and write the maildirs.
    chmodSync(this.dir, 0o755);
    if (root) chownSync(join(this.dir, 'mail'), uid, gid);
    const conf = `
protocols = imap
listen = 127.0.0.1
base_dir = ${join(this.dir, 'run')}
state_dir = ${join(this.dir, 'run')}
instance_name = dovecot-test-${this.port}
log_path = /dev/stderr
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${root ? 'dovecot' : me}
default_internal_group = ${root ? 'dovecot' : me}
default_login_user = ${root ? 'dovenull' : me}
first_valid_uid = ${uid}
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(this.dir, 'users')}
}
userdb {
  driver = passwd-file
  args = username_format=%u ${join(this.dir, 'users')}
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${this.port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`;
    writeFileSync(join(this.dir, 'dovecot.conf'), conf);
    // -F: in the foreground, ended with the tests.
    this.child = spawn(DOVECOT, ['-F', '-c', join(this.dir, 'dovecot.conf')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stderr!.on('data', (d) => {
      this.log += d.toString();
    });
    this.child.stdout!.on('data', (d) => {
      this.log += d.toString();
    });
    const until = Date.now() + 15_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`dovecot exited: ${this.log}`);
      if (await this.listening()) return this;
      if (Date.now() > until) throw new Error(`dovecot did not listen: ${this.log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private listening(): Promise<boolean> {
    return new Promise((resolve) => {
      const s = connect(this.port, '127.0.0.1');
      s.once('data', (d: Buffer) => {
        s.destroy();
        resolve(d.toString().startsWith('* OK'));
      });
      s.once('error', () => resolve(false));
    });
  }

  get output(): string {
    return this.log;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** An e-mail as sent: multipart/mixed with a text part and base64 attachments. */
export function mimeMessage(m: {
  from: string;
  to?: string;
  subject: string;
  messageId: string;
  attachments?: { name: string; type: string; data: Buffer }[];
  /** The body itself, when the message is one part (an e-invoice sent as the body). */
  body?: { type: string; data: Buffer };
}): string {
  const head = [
    `From: ${m.from}`,
    `To: ${m.to ?? 'invoices@example.com'}`,
    `Subject: ${m.subject}`,
    `Message-ID: <${m.messageId}>`,
    'Date: Mon, 07 Dec 2026 09:00:00 +0000',
    'MIME-Version: 1.0',
  ];
  const b64 = (d: Buffer) => d.toString('base64').replace(/.{76}/g, '$&\r\n');
  if (m.body)
    return [
      ...head,
      `Content-Type: ${m.body.type}`,
      'Content-Transfer-Encoding: base64',
      '',
      b64(m.body.data),
      '',
    ].join('\r\n');
  const boundary = 'b0undary-test';
  const parts = [
    [`--${boundary}`, 'Content-Type: text/plain; charset=utf-8', '', 'Please find our invoice attached.', ''],
    ...(m.attachments ?? []).map((a) => [
      `--${boundary}`,
      `Content-Type: ${a.type}; name="${a.name}"`,
      `Content-Disposition: attachment; filename="${a.name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      b64(a.data),
      '',
    ]),
  ];
  return [
    ...head,
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    ...parts.flat(),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

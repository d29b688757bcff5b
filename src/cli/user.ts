import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { loadConfig } from '../config.js';
import { inviteUser, setPassword, userByEmail } from '../modules/users/passwords.service.js';
import { type CliIo, type Command, positiveInt, UsageError } from './run.js';

/** Reads a password: prompted without echo on a terminal, else the whole of stdin (one trailing newline dropped). */
async function readPassword(io: CliIo): Promise<string> {
  const stdin = io.stdin ?? process.stdin;
  if (stdin.isTTY) {
    let muted = false;
    const output = new Writable({
      write(chunk, _enc, cb) {
        if (!muted) io.stderr.write(String(chunk));
        cb();
      },
    });
    const rl = createInterface({ input: stdin, output, terminal: true });
    const ask = (q: string) =>
      new Promise<string>((resolve) => {
        muted = false;
        rl.question(q, (answer) => {
          io.stderr.write('\n');
          resolve(answer);
        });
        muted = true;
      });
    try {
      const first = await ask('New password: ');
      const second = await ask('Repeat it: ');
      if (first !== second) throw new Error('the two passwords differ');
      return first;
    } finally {
      rl.close();
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function email(v: unknown): string {
  if (typeof v !== 'string' || !v) throw new UsageError('--email is required');
  return v;
}

export const userCommands: Command[] = [
  {
    name: 'user set-password',
    args: '--email E [--account ID]',
    summary: "set a user's password, read from stdin (asked twice on a terminal); ends their sessions",
    help: 'Never an argument: `printf %s "$PW" | npm run --silent cli -- user set-password --email E`.',
    options: { email: { type: 'string' }, account: { type: 'string' } },
    async run(ctx) {
      const e = email(ctx.values.email);
      const account = positiveInt('--account', ctx.values.account);
      const password = await readPassword(ctx.io);
      const user = await ctx.withDb(async ({ db }) => {
        const u = await userByEmail(db, e, account);
        await setPassword(db, u.id, password);
        return u;
      });
      // Never the password itself: only who it was set for.
      ctx.out(
        `password set for user ${user.id} (${user.email}, account ${user.account_id}); their sessions ended\n`,
      );
    },
  },
  {
    name: 'user invite',
    args: '--email E [--account ID] [--role member|admin] [--first-name F --last-name L] [--json]',
    summary: 'print a one-time link (72 h) where a user sets their password; creates the user if needed',
    help: 'A new link replaces older ones; only its hash is stored. A new user needs --first-name and --last-name.',
    options: {
      email: { type: 'string' },
      account: { type: 'string' },
      role: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(ctx) {
      const v = ctx.values;
      const e = email(v.email);
      if (v.role !== undefined && v.role !== 'admin' && v.role !== 'member')
        throw new UsageError('--role must be member or admin');
      const input = {
        email: e,
        accountId: positiveInt('--account', v.account),
        role: v.role as 'admin' | 'member' | undefined,
        firstName: v['first-name'] as string | undefined,
        lastName: v['last-name'] as string | undefined,
      };
      const publicUrl = loadConfig(ctx.io.env).publicUrl;
      const invitation = await ctx.withDb(({ db }) => inviteUser(db, input, publicUrl));
      if (v.json) return ctx.json(invitation);
      ctx.out(
        `${invitation.created_user ? 'created and invited' : 'invited'} user ${invitation.user_id} (${invitation.email}, account ${invitation.account_id})\n` +
          `link (once, until ${invitation.expires_at}): ${invitation.url}\n`,
      );
    },
  },
];

import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Db } from '../db/index.js';
import { inviteUser, setPassword, userByEmail } from '../modules/users/passwords.service.js';

export const USER_USAGE = `  user set-password --email E [--account ID]     reads the password from stdin (prompts on a terminal)
  user invite --email E [--account ID] [--role member|admin] [--first-name F --last-name L]
                                       prints a one-time link to set the password (72 h); creates the user if needed`;

/** Reads a password: prompted without echo on a terminal, else the whole of stdin (one trailing newline dropped). */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) {
    let muted = false;
    const output = new Writable({
      write(chunk, _enc, cb) {
        if (!muted) process.stderr.write(chunk);
        cb();
      },
    });
    const rl = createInterface({ input: process.stdin, output, terminal: true });
    const ask = (q: string) =>
      new Promise<string>((resolve) => {
        muted = false;
        rl.question(q, (answer) => {
          process.stderr.write('\n');
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
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export interface UserOptions {
  email?: string;
  account?: number;
  role?: string;
  firstName?: string;
  lastName?: string;
  json: boolean;
  publicUrl: string;
}

/** `user set-password` / `user invite`; a usage problem is returned as a message. */
export async function userCommand(
  sub: string | undefined,
  o: UserOptions,
  withDb: <T>(fn: (h: { db: Db }) => Promise<T>) => Promise<T>,
  usage: (message: string) => Error,
): Promise<void> {
  if (sub !== 'set-password' && sub !== 'invite') throw usage(`unknown command: user ${sub ?? ''}`);
  if (!o.email) throw usage('--email is required');
  const email = o.email;
  if (sub === 'set-password') {
    const password = await readPassword();
    const user = await withDb(async ({ db }) => {
      const u = await userByEmail(db, email, o.account);
      await setPassword(db, u.id, password);
      return u;
    });
    // Never the password itself: only who it was set for.
    process.stdout.write(
      `password set for user ${user.id} (${user.email}, account ${user.account_id}); their sessions ended\n`,
    );
    return;
  }
  if (o.role !== undefined && o.role !== 'admin' && o.role !== 'member')
    throw usage('--role must be member or admin');
  const invitation = await withDb(({ db }) =>
    inviteUser(
      db,
      {
        email,
        accountId: o.account,
        role: o.role as 'admin' | 'member' | undefined,
        firstName: o.firstName,
        lastName: o.lastName,
      },
      o.publicUrl,
    ),
  );
  if (o.json) process.stdout.write(`${JSON.stringify(invitation, null, 2)}\n`);
  else
    process.stdout.write(
      `${invitation.created_user ? 'created and invited' : 'invited'} user ${invitation.user_id} (${invitation.email}, account ${invitation.account_id})\n` +
        `link (once, until ${invitation.expires_at}): ${invitation.url}\n`,
    );
}

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createDb, type DbHandle } from '../db/index.js';
import { migrateToLatest } from '../db/migrator.js';
import { importData, importFileSchema } from '../import/index.js';
import {
  createIntegration,
  listIntegrations,
  revokeIntegration,
} from '../modules/integration/integration.service.js';
import { parseScopes } from '../plugins/auth.js';
import { AppError } from '../shared/errors.js';
import {
  INTEGRATION_OAUTH_USAGE,
  OAUTH_CLIENT_OPTIONS,
  oauthClientInput,
  updateIntegrationCommand,
} from './integration-oauth.js';
import { USER_USAGE, userCommand } from './user.js';

const USAGE = `Usage: npm run --silent cli -- <command>

  integration create --name NAME --scopes "s1 s2 …" [--user ID] [--account ID] [--ttl SECONDS] [--json]
${INTEGRATION_OAUTH_USAGE}
  integration list [--account ID] [--json]
  integration revoke ID
  import FILE.json [--account ID]      import users, groups, clients, projects … (see import-schema)
  import-schema                        print the JSON Schema of the import format
${USER_USAGE}
  migrate                              apply database migrations

The database is the server's: DATABASE_URL (default: ./data/app.sqlite).`;

class UsageError extends Error {}

function int(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

async function withDb<T>(fn: (h: DbHandle) => Promise<T>): Promise<T> {
  const handle = createDb(loadConfig().db);
  try {
    await migrateToLatest(handle.db);
    return await fn(handle);
  } finally {
    await handle.destroy();
  }
}

const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      user: { type: 'string' },
      account: { type: 'string' },
      ttl: { type: 'string' },
      json: { type: 'boolean', default: false },
      email: { type: 'string' },
      role: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      ...OAUTH_CLIENT_OPTIONS,
    },
  });
  const [cmd, sub, arg] = positionals;
  if (values.help || !cmd) {
    process.stdout.write(`${USAGE}\n`);
    if (!cmd && !values.help) process.exitCode = 2;
    return;
  }

  if (cmd === 'integration' && sub === 'create') {
    if (!values.name) throw new UsageError('--name is required');
    if (values.scopes === undefined) throw new UsageError('--scopes is required (use "" for none)');
    const created = await withDb(({ db }) =>
      createIntegration(db, {
        name: values.name!,
        scopes: parseScopes(values.scopes!),
        userId: int('user', values.user),
        accountId: int('account', values.account),
        ttlSeconds: int('ttl', values.ttl),
        ...oauthClientInput(values),
      }),
    );
    if (values.json) print(created);
    else {
      process.stdout.write(
        `integration ${created.id} "${created.name}" (account ${created.account_id}, user ${created.user_id})\n` +
          `access_token:  ${created.access_token}\nclient_id:     ${created.client_id}\nclient_secret: ${created.client_secret}\n` +
          `scopes:        ${created.scopes.join(' ') || '(none)'}\n` +
          `client_type:   ${created.client_type}\nredirect_uris: ${created.redirect_uris.join(' ') || '(none)'}\n`,
      );
    }
    return;
  }
  if (cmd === 'integration' && sub === 'list') {
    const rows = await withDb(({ db }) => listIntegrations(db, int('account', values.account)));
    if (values.json) print(rows);
    else
      for (const r of rows)
        process.stdout.write(
          `${r.id}\t${r.revoked_at ? 'revoked' : 'active'}\t${r.name}\t${r.scopes.join(' ')}\n`,
        );
    return;
  }
  if (cmd === 'integration' && sub === 'update') {
    const id = int('id', arg);
    if (id === undefined) throw new UsageError('integration update needs an ID');
    await withDb((h) => updateIntegrationCommand(h, id, values));
    process.stdout.write(`integration ${id} updated\n`);
    return;
  }
  if (cmd === 'integration' && sub === 'revoke') {
    const id = int('id', arg);
    if (id === undefined) throw new UsageError('integration revoke needs an ID');
    await withDb(({ db }) => revokeIntegration(db, id));
    process.stdout.write(`integration ${id} revoked\n`);
    return;
  }
  if (cmd === 'import') {
    if (!sub) throw new UsageError('import needs a FILE');
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(sub, 'utf8'));
    } catch (err) {
      throw new UsageError(`cannot read ${sub} as JSON: ${(err as Error).message}`);
    }
    const result = await withDb(({ db }) =>
      importData(db, doc, { accountId: int('account', values.account) }),
    );
    print(result);
    return;
  }
  if (cmd === 'user') {
    const o = { ...values, account: int('account', values.account), publicUrl: loadConfig().publicUrl };
    const names = { firstName: values['first-name'], lastName: values['last-name'] };
    await userCommand(sub, { ...o, ...names }, withDb, (m) => new UsageError(m));
    return;
  }
  if (cmd === 'import-schema') {
    print(importFileSchema());
    return;
  }
  if (cmd === 'migrate') {
    await withDb(async () => undefined);
    process.stdout.write('migrations applied\n');
    return;
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) {
    process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (err instanceof AppError) {
    process.stderr.write(`error (${err.code}): ${err.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
});

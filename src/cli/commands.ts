import { readFile } from 'node:fs/promises';
import { ALL_SCOPES, describeScope, USER_PROFILE_SCOPES } from '../shared/scopes.js';
import { accountProfileCommands } from './account-profile.js';
import { backupCommands } from './backup.js';
import { integrationCommands } from './integration.js';
import { type Command, positiveInt, UsageError } from './run.js';
import { userCommands } from './user.js';

const scopes: Command = {
  name: 'scopes',
  args: '[--json]',
  summary: 'list every scope an integration may hold, with its meaning',
  help: 'Give them to "integration create --scopes" separated by spaces, or "all" for every scope of the specification.',
  options: { json: { type: 'boolean' } },
  async run(ctx) {
    const list = [...ALL_SCOPES, ...USER_PROFILE_SCOPES].map((scope) => ({
      scope,
      meaning: describeScope(scope),
    }));
    if (ctx.values.json) return ctx.json(list);
    const width = Math.max(...list.map((s) => s.scope.length)) + 2;
    for (const s of list) ctx.out(`${s.scope.padEnd(width)}${s.meaning}\n`);
    ctx.out(`\n"all" stands for every scope above but the user-profile: ones.\n`);
  },
};

const importCommand: Command = {
  name: 'import',
  args: 'FILE.json [--account ID]',
  summary: 'import users, groups, clients, projects … from a file, all or nothing (see import-schema)',
  help: 'Without --account the file makes a new account from its "account" entry.',
  options: { account: { type: 'string' } },
  async run(ctx) {
    const [file, ...extra] = ctx.positionals;
    if (!file) throw new UsageError('import needs a FILE');
    if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`);
    const accountId = positiveInt('--account', ctx.values.account);
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      throw new UsageError(`cannot read ${file} as JSON: ${(err as Error).message}`);
    }
    const { importData } = await import('../import/index.js');
    ctx.json(await ctx.withDb(({ db }) => importData(db, doc, { accountId })));
  },
};

const importSchema: Command = {
  name: 'import-schema',
  args: '',
  summary: 'print the JSON Schema of the import format',
  options: {},
  async run(ctx) {
    const { importFileSchema } = await import('../import/index.js');
    ctx.json(importFileSchema());
  },
};

const migrate: Command = {
  name: 'migrate',
  args: '',
  summary: 'apply database migrations',
  options: {},
  async run(ctx) {
    await ctx.withDb(async () => undefined);
    ctx.out('migrations applied\n');
  },
};

/** Every command, in the order the help lists them. */
export const COMMANDS: Command[] = [
  scopes,
  ...integrationCommands,
  importCommand,
  importSchema,
  ...userCommands,
  ...accountProfileCommands,
  ...backupCommands,
  migrate,
];

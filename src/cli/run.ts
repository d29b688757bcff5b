import { type ParseArgsConfig, parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import type { DbHandle } from '../db/index.js';
import { AppError } from '../shared/errors.js';
import { describeStartupError } from '../startup.js';

/** Where a CLI run reads and writes: the process's own streams, or a test's. */
export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Read by `user set-password`; defaults to process.stdin. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** How the usage lines name the program; PROG unless run as the `pm-invoicing` bin. */
  prog?: string;
}

export const PROG = 'npm run --silent cli --';

/** A mistake in how the command was called: exit 2 with the command's usage line. */
export class UsageError extends Error {}

/** Refused for a reason the operator must act on (a file exists, wrong database): exit 1. */
export class Refused extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Ctx {
  io: CliIo;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** Opens the configured database (migrated), runs `fn`, closes it. */
  withDb<T>(fn: (h: DbHandle) => Promise<T>): Promise<T>;
  out(s: string): void;
  json(v: unknown): void;
}

export interface Command {
  /** One or two words: `migrate`, `integration create`. */
  name: string;
  /** What follows the name in the usage line. */
  args: string;
  /** One line for the command list. */
  summary: string;
  /** More, for `<command> --help`. */
  help?: string;
  options: Options;
  run(ctx: Ctx): Promise<void>;
}

export const usageLine = (c: Command, prog = PROG) => `usage: ${prog} ${c.name}${c.args ? ` ${c.args}` : ''}`;

export function positiveInt(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${name} must be a positive integer`);
  return n;
}

function topUsage(commands: Command[], prog: string): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `Usage: ${prog} <command> [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    `"${prog} <command> --help" shows a command's options.`,
    "The database is the server's: DATABASE_URL (default: ./data/app.sqlite).",
    'Exit codes: 0 done, 1 refused (bad data, unknown id, database error), 2 usage error.',
  ].join('\n');
}

function commandHelp(c: Command, prog: string): string {
  return `${usageLine(c, prog)}\n\n${c.summary}${c.help ? `\n\n${c.help}` : ''}\n`;
}

/** The command named by the first one or two arguments, and the arguments after it. */
function findCommand(
  commands: Command[],
  argv: string[],
): { command?: Command; rest: string[]; group?: string } {
  const [a, b] = argv;
  const two = commands.find((c) => c.name === `${a} ${b}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const one = commands.find((c) => c.name === a);
  if (one) return { command: one, rest: argv.slice(1) };
  const group = commands.some((c) => c.name.startsWith(`${a} `)) ? a : undefined;
  return { rest: argv, group };
}

/**
 * Runs one CLI command: the exit code it ends with (0 done, 1 refused, 2 usage). Never
 * exits the process, so tests call it in-process; src/cli/index.ts is the process around it.
 */
export async function runCommand(commands: Command[], argv: string[], io: CliIo): Promise<number> {
  const out = (s: string) => io.stdout.write(s);
  const err = (s: string) => io.stderr.write(s);
  const prog = io.prog ?? PROG;
  if (argv.length === 0) {
    err(`${topUsage(commands, prog)}\n`);
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h' || (argv[0] === 'help' && argv.length === 1)) {
    out(`${topUsage(commands, prog)}\n`);
    return 0;
  }
  const helpFor = argv[0] === 'help';
  const { command, rest, group } = findCommand(commands, helpFor ? argv.slice(1) : argv);
  if (!command) {
    const what = argv
      .filter((x) => !x.startsWith('-'))
      .slice(helpFor ? 1 : 0, group ? 2 : 1)
      .join(' ');
    const choices = group
      ? commands.filter((c) => c.name.startsWith(`${group} `)).map((c) => `  ${usageLine(c, prog)}`)
      : [`usage: ${prog} <command> [options]   ("${prog} --help" lists the commands)`];
    const rest = argv.slice(helpFor ? 2 : 1);
    // `integration --help` (or `help integration`): the group's commands, not an error.
    if (group && (helpFor || rest.every((x) => x === '--help' || x === '-h')) && (helpFor || rest.length)) {
      out(`${choices.join('\n')}\n`);
      return 0;
    }
    const problem =
      group && rest.length === 0 ? `${group} needs a subcommand` : `unknown command: ${what || argv[0]}`;
    err(`error: ${problem}\n${choices.join('\n')}\n`);
    return 2;
  }
  if (helpFor) {
    out(commandHelp(command, prog));
    return 0;
  }
  try {
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({
        args: rest,
        allowPositionals: true,
        strict: true,
        options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      });
    } catch (e) {
      // node:util's messages name the option ("Unknown option '--nmae'"); drop its advice
      // about `--` that does not fit here.
      throw new UsageError((e as Error).message.replace(/\. To specify a positional.*$/s, ''));
    }
    if (parsed.values.help) {
      out(commandHelp(command, prog));
      return 0;
    }
    await command.run({
      io,
      values: parsed.values as Ctx['values'],
      positionals: parsed.positionals,
      withDb: async (fn) => {
        // Loaded here, not on top: help and the commands without a database start faster.
        const [{ createDatabaseIfMissing }, { createDb }, { migrateToLatest }] = await Promise.all([
          import('../db/create-database.js'),
          import('../db/index.js'),
          import('../db/migrator.js'),
        ]);
        const config = loadConfig(io.env).db;
        const created = await createDatabaseIfMissing(config);
        if (created) io.stderr.write(`${created}\n`);
        const handle = createDb(config);
        try {
          await migrateToLatest(handle.db);
          return await fn(handle);
        } finally {
          await handle.destroy();
        }
      },
      out,
      json: (v) => out(`${JSON.stringify(v, null, 2)}\n`),
    });
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n${usageLine(command, prog)}\n("${prog} ${command.name} --help" for more)\n`);
      return 2;
    }
    if (e instanceof Refused) {
      err(`error: ${e.message}\n`);
      return 1;
    }
    if (e instanceof AppError) {
      const fields = e.errors?.map((f) => `\n  ${f.field}: ${f.message}`).join('') ?? '';
      err(`error (${e.code}): ${e.message}${fields}\n`);
      return 1;
    }
    // Configuration, database and file errors: one line that says what to change.
    err(`error: ${describeStartupError(e)}\n`);
    return 1;
  }
}

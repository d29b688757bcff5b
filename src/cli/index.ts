import { pathToFileURL } from 'node:url';
import { COMMANDS } from './commands.js';
import { type CliIo, runCommand } from './run.js';

/** `runCli(argv, io)`: one CLI run in this process, answering its exit code (tests call it). */
export const runCli = (argv: string[], io: CliIo): Promise<number> => runCommand(COMMANDS, argv, io);

/** The CLI as this process's program, on its own streams: `npm run cli` and bin/pm-invoicing.mjs. */
export async function main(argv: string[], prog?: string): Promise<void> {
  // `… | head` closing the pipe early is no error of the command.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
    prog,
  });
}

// Run as the program (`npm run cli`), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.slice(2));
}

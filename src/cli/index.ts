import { pathToFileURL } from 'node:url';
import { COMMANDS } from './commands.js';
import { type CliIo, runCommand } from './run.js';

/** `runCli(argv, io)`: one CLI run in this process, answering its exit code (tests call it). */
export const runCli = (argv: string[], io: CliIo): Promise<number> => runCommand(COMMANDS, argv, io);

// Run as the program (`npm run cli`), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `… | head` closing the pipe early is no error of the command.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
  });
}

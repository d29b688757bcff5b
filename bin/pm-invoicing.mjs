#!/usr/bin/env node
// The CLI as a command: `pm-invoicing <command>` (`npx pm-invoicing` in the repository, or on
// the PATH after `npm link`). The same program as `npm run --silent cli --`, started without
// npm and tsx in front of it: the TypeScript is loaded by scripts/ts-loader.mjs, whose cache
// keeps each file's transform.
import '../scripts/ts-loader.mjs';

const { main } = await import('../src/cli/index.ts');
await main(process.argv.slice(2), 'pm-invoicing');

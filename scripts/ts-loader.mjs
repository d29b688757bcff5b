// A lean TypeScript loader for the test processes: `node --import ./scripts/ts-loader.mjs`.
// It does what the tests need of tsx (TypeScript files of this repository, `.js` specifiers
// meaning `.ts`) and nothing else, so each of the hundred-odd test processes starts in about
// half the CPU time: no require() hook for the CommonJS dependencies, and each file
// transformed once per content (cache in node_modules/.cache/ts-loader). tsx stays the loader
// of `npm start`, the CLI and everything else.
import { register } from 'node:module';

register('./ts-loader.hooks.mjs', import.meta.url);
// Stack traces point into the TypeScript source, as under tsx.
process.setSourceMapsEnabled(true);

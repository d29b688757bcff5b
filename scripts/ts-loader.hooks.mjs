// Module hooks of scripts/ts-loader.mjs (they run on Node's loader thread). Only TypeScript
// files of this repository are touched: a `./x.js` import from a .ts file finds `./x.ts` (as
// TypeScript's NodeNext resolution reads it), and a .ts file is served as esbuild's transform
// of it, kept on disk by content hash so that a test run transforms each file once.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CACHE = join(ROOT, 'node_modules', '.cache', 'ts-loader');
const TSCONFIG = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
// esbuild as tsx has it (tsx depends on it; this repository does not directly).
const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
const ESBUILD_VERSION = fromTsx('esbuild/package.json').version;
/** Part of every source hash: a change of esbuild, of tsconfig or of the options below misses. */
const SALT = `${ESBUILD_VERSION} ${JSON.stringify(TSCONFIG.compilerOptions)} v1`;

let esbuild;
const tsOf = new Map();

/** The .ts file a `.js` specifier of a TypeScript module means, when there is one. */
function typescriptTarget(specifier, parentURL) {
  if (!parentURL?.endsWith('.ts') || !specifier.endsWith('.js')) return undefined;
  if (!(specifier.startsWith('./') || specifier.startsWith('../'))) return undefined;
  const url = new URL(`${specifier.slice(0, -3)}.ts`, parentURL).href;
  let found = tsOf.get(url);
  if (found === undefined) {
    found = existsSync(fileURLToPath(url));
    tsOf.set(url, found);
  }
  return found ? url : undefined;
}

export async function resolve(specifier, context, nextResolve) {
  const url = typescriptTarget(specifier, context.parentURL);
  if (url) return { url, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}

/**
 * One cache entry per source file (named by its path, so the cache never outgrows the
 * repository), whose first line is the hash of the source it was made from.
 */
async function transform(source, url) {
  const hash = createHash('sha1').update(SALT).update('\0').update(source).digest('hex');
  const file = join(CACHE, `${createHash('sha1').update(url).digest('hex')}.js`);
  const stamp = `// ${hash}\n`;
  try {
    const cached = readFileSync(file, 'utf8');
    if (cached.startsWith(stamp)) return cached.slice(stamp.length);
  } catch {
    // not transformed yet
  }
  esbuild ??= fromTsx('esbuild');
  const { code } = await esbuild.transform(source, {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: fileURLToPath(url),
    tsconfigRaw: { compilerOptions: TSCONFIG.compilerOptions },
  });
  // Several test processes may write the same entry at once: each writes a file of its own,
  // then renames it into place, so that a reader never sees half of one. A process that may
  // not write there (a server a test runs as another user) just goes without.
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(tmp, stamp + code);
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
  return code;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const source = readFileSync(fileURLToPath(url), 'utf8');
  return { format: 'module', source: await transform(source, url), shortCircuit: true };
}

/**
 * The project files an entry reaches through its imports, transitively (the files a request
 * through it touches). Measured with the edges of scripts/module-graph.ts:
 *
 *   node --import tsx scripts/import-closure.ts [--runtime] [--list] ENTRY.ts [ENTRY.ts …]
 *
 * Prints the count (and with --list the files). --runtime follows only imports that stay at
 * run time (type-only ones are erased).
 */
import { resolve } from 'node:path';
import { analyze } from './module-graph.js';

export function importClosure(entries: string[], runtimeOnly = false, root = process.cwd()): string[] {
  const graph = analyze(root);
  const next = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (runtimeOnly && e.typeOnly) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  const seen = new Set<string>();
  const todo = entries.map((e) => resolve(root, e).slice(resolve(root).length + 1));
  for (const e of todo) {
    if (!graph.files.includes(e)) throw new Error(`not a file under src/: ${e}`);
  }
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...(next.get(file) ?? []));
  }
  return [...seen].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const files = importClosure(
    args.filter((a) => !a.startsWith('--')),
    args.includes('--runtime'),
  );
  const modules = files.filter((f) => f.startsWith('src/modules/'));
  console.log(
    `${files.length} files (${modules.length} in src/modules, ${files.length - modules.length} elsewhere)`,
  );
  if (args.includes('--list')) for (const f of files) console.log(`  ${f}`);
}

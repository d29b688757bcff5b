import { randomBytes } from 'node:crypto';
import type { CompiledQuery, Kysely } from 'kysely';

interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

/**
 * A query built once and then run with new parameter values: Kysely builds and compiles a
 * query anew on every call, which on a hot path (the token lookup of every request, a read by
 * id) costs several times what running it costs.
 *
 * `build` receives stand-ins for the arguments and may only pass them on as values (no
 * arithmetic or string work on them); the compiled SQL is cached per database, because
 * SQLite and PostgreSQL spell it differently.
 */
// biome-ignore lint/suspicious/noExplicitAny: works for any database schema
export function prepared<Args extends readonly unknown[], Row, DB = any>(
  arity: Args['length'],
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
) {
  const cache = new WeakMap<Kysely<DB>, { query: CompiledQuery<Row>; slots: number[] }>();
  const tag = randomBytes(6).toString('hex');
  const standIns = Array.from({ length: arity }, (_, i) => `\u0000arg${i}:${tag}`);

  function compiledFor(db: Kysely<DB>) {
    let hit = cache.get(db);
    if (!hit) {
      const query = build(db, ...(standIns as unknown as Args)).compile();
      const slots = query.parameters.map((p) => standIns.indexOf(p as string));
      if (slots.includes(-1))
        throw new Error('prepared(): the query has a parameter that is not an argument');
      hit = { query, slots };
      cache.set(db, hit);
    }
    return hit;
  }

  return async (db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    const { query, slots } = compiledFor(db);
    const result = await db.executeQuery<Row>({ ...query, parameters: slots.map((i) => args[i]) });
    return result.rows;
  };
}

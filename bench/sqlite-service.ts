import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { benchToken, startService, stopChild } from './lib.js';

export interface SqliteService {
  /** The service's process (`npm start` with WORKERS=1 unless `env` says otherwise). */
  child: ChildProcess;
  /** The API's base URL, `…/api/v1`. */
  base: string;
  /** The bench token's authorization header. */
  headers: { authorization: string };
  /** The clients made before the start, in order. */
  clientIds: number[];
  /** Stops the service and removes its database. */
  stop(): Promise<void>;
}

/**
 * The service as `npm start` runs it on a new SQLite file in a folder of its own: an account
 * `Bench` with one admin, `clients` clients and a bench token holding `scopes`, with no rate
 * limit and logs from `error` up (the benches' uploads warn on purpose). `env` adds to or
 * overrides the service's environment.
 */
export async function startSqliteService(o: {
  name: string;
  clients: number;
  scopes: string[];
  env?: Record<string, string>;
}): Promise<SqliteService> {
  const dir = await mkdtemp(join(tmpdir(), `bench-${o.name}-`));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  try {
    const dbFile = join(dir, 'bench.sqlite');
    const handle = createDb(loadConfig({ DATABASE_URL: dbFile }).db);
    let clientIds: number[];
    let token: string;
    try {
      await migrateToLatest(handle.db);
      const { account_id } = await importData(handle.db, {
        account: { name: 'Bench' },
        users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
      });
      const clients = await handle.db
        .insertInto('clients')
        .values(Array.from({ length: o.clients }, (_, i) => ({ account_id, name: `Bench client ${i}` })))
        .returning('id')
        .execute();
      clientIds = clients.map((c) => c.id);
      token = await benchToken(handle.db, o.scopes);
    } finally {
      await handle.destroy();
    }
    const api = await startService({
      DATABASE_URL: dbFile,
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'error',
      ...o.env,
    });
    return {
      child: api.child,
      base: `http://127.0.0.1:${api.port}/api/v1`,
      headers: { authorization: `Bearer ${token}` },
      clientIds,
      async stop() {
        try {
          await stopChild(api.child);
        } finally {
          await removeDir();
        }
      },
    };
  } catch (err) {
    await removeDir();
    throw err;
  }
}

// Data for the read benchmarks: one account with clients, projects, tasks, companies,
// contacts and invoices, written the way the service writes them (so the kept counts, search
// columns and stored invoice totals are what a real database holds), then analysed.
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../src/db/index.js';
import { importData } from '../src/import/index.js';
import { companySearch } from '../src/modules/companies/companies.repository.js';
import { contactSearch } from '../src/modules/contacts/contacts.repository.js';

/** Inserts `count` rows made by `make(i)` in statements of 500. */
export async function insertMany(
  db: Db,
  table: 'clients' | 'projects' | 'tasks' | 'companies' | 'contacts',
  count: number,
  make: (i: number) => Record<string, unknown>,
  from = 0,
): Promise<void> {
  for (let i = from; i < from + count; i += 500) {
    const rows = Array.from({ length: Math.min(500, from + count - i) }, (_, j) => make(i + j));
    await db
      .insertInto(table)
      .values(rows as any)
      .execute();
  }
}

export const SEARCH_TERM = 'bergm';

/**
 * One account of `size` clients, tasks and contacts (a tenth of them named Bergmann, which
 * the contacts search finds), size/10 projects, 100 companies and `invoices` invoices of
 * three lines. Returns the account id.
 */
export async function seedAccount(db: Db, size: number, invoices: number): Promise<number> {
  const { account_id } = await importData(db, {
    account: { name: 'Bench' },
    users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
    outgoing_invoices: Array.from({ length: invoices }, (_, i) => ({
      title: `Invoice ${i}`,
      date: '2026-01-15',
      line_items: [
        { title: 'Design', quantity: 12.5, unit_price: 95, tax_rate: 19 },
        { title: 'Hosting', quantity: 1, unit_price: 49.99, tax_rate: 19 },
        { title: 'Books', quantity: 3, unit_price: 17.3, tax_rate: 7, discount: 5 },
      ],
    })),
  });
  const acc = { account_id };
  await insertMany(db, 'clients', size, (i) => ({
    ...acc,
    name: `Client ${i}`,
    email: `client${i}@bench.example`,
    city: 'Berlin',
    country_code: 'DE',
  }));
  const projects = Math.max(1, size / 10);
  await insertMany(db, 'projects', projects, (i) => ({
    ...acc,
    client_id: (i % size) + 1,
    name: `Project ${i}`,
  }));
  const firstProject = Number(
    (
      await db
        .selectFrom('projects')
        .select('id')
        .where('account_id', '=', account_id)
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id,
  );
  await insertMany(db, 'tasks', size, (i) => ({
    ...acc,
    project_id: firstProject + (i % projects),
    name: `Task ${i}`,
    due_date: `2026-0${(i % 9) + 1}-1${i % 10}`,
  }));
  await insertMany(db, 'companies', 100, (i) => ({
    ...acc,
    name: `Company ${i}`,
    ...companySearch({ name: `Company ${i}`, email: null }),
  }));
  const firstCompany = Number(
    (
      await db
        .selectFrom('companies')
        .select('id')
        .where('account_id', '=', account_id)
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id,
  );
  await insertMany(db, 'contacts', size, (i) => {
    const c = {
      first_name: `Anna${i}`,
      last_name: i % 10 === 0 ? `Bergmann ${i}` : `Schulz ${i}`,
      email: `c${i}@bench.example`,
    };
    return { ...acc, ...c, company_id: firstCompany + (i % 100), ...contactSearch(c) };
  });
  await sql`analyze`.execute(db);
  return account_id;
}

/** A fresh PostgreSQL database on the server of `url` (its path is ignored); drop() removes it. */
export async function freshPgDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const name = `bench_${process.pid}_${Date.now()}`;
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.href,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin.href });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

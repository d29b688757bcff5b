import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { type Migration, Migrator, sql } from 'kysely';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createTestDb, DB_KINDS } from './helpers.js';

const dir = new URL('../src/db/migrations/', import.meta.url);
/**
 * The oldest supported state: the first builds' schema, before the change feed and before
 * booked invoices froze their parties (2026_11_22_940_invoice_legal_fields).
 */
const OLDEST = '2026_11_22_930_oauth_server';

async function migrateTo(db: DbHandle['db'], name: string) {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
  const migrator = new Migrator({
    db,
    provider: {
      async getMigrations() {
        const out: Record<string, Migration> = {};
        for (const f of files) out[f.replace(/\.ts$/, '')] = await import(new URL(f, dir).href);
        return out;
      },
    },
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

const SETTINGS = {
  street: 'Hauptstraße 1',
  zip: '10115',
  city: 'Berlin',
  vat_id: 'DE123456789',
  email: 'billing@seller.example',
  contact_name: 'Erika Muster',
};

/** [table, resource kind in the feed] of the records the old release wrote. */
const TABLES: Array<[string, string]> = [
  ['accounts', 'account_profile'],
  ['users', 'user'],
  ['clients', 'client'],
  ['companies', 'company'],
  ['contacts', 'contact'],
  ['projects', 'project'],
  ['tasks', 'task'],
  ['outgoing_invoices', 'outgoing_invoice'],
  ['payment_accounts', 'payment_account'],
  ['payments', 'payment'],
];

for (const kind of DB_KINDS) {
  describe(`upgrade from the oldest release keeps every record and fills the feed [${kind}]`, () => {
    let handle: DbHandle;
    const db = () => handle.db as any;
    const before_: Record<string, Record<string, unknown>[]> = {};
    const ids: Record<string, number> = {};

    /** An INSERT as the old release wrote it, in plain SQL; answers the new id. */
    const insert = async (table: string, values: Record<string, unknown>) => {
      const cols = Object.keys(values);
      const names = sql.join(cols.map((c) => sql.ref(c)));
      const given = sql.join(cols.map((c) => values[c]));
      const res = await sql<{
        id: number;
      }>`insert into ${sql.table(table)} (${names}) values (${given}) returning id`
        .execute(db())
        .catch((err: Error) => {
          throw new Error(`${table}: ${err.message}`);
        });
      return Number(res.rows[0]!.id);
    };
    const rows = async (table: string) =>
      (await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by id`.execute(db())).rows;

    before(async () => {
      handle = await createTestDb(kind);
      await migrateTo(handle.db, OLDEST);
      const account = await insert('accounts', {
        name: 'Old GmbH',
        country_code: 'DE',
        settings: JSON.stringify(SETTINGS),
      });
      ids.account = account;
      await insert('users', {
        account_id: account,
        email: 'owner@old.example',
        first_name: 'Otto',
        last_name: 'Old',
        role: 'admin',
      });
      const client = await insert('clients', {
        account_id: account,
        name: 'Kunde AG',
        street: 'Kundenweg 7',
        zip: '20095',
        city: 'Hamburg',
        country_code: 'DE',
        vat_id: 'DE987654321',
      });
      ids.client = client;
      const company = await insert('companies', { account_id: account, name: 'Partner KG' });
      const contact = await insert('contacts', {
        account_id: account,
        company_id: company,
        first_name: 'Klara',
        last_name: 'Kontakt',
      });
      ids.contact = contact;
      const project = await insert('projects', { account_id: account, client_id: client, name: 'Website' });
      await insert('tasks', { account_id: account, project_id: project, name: 'Design' });
      // A booked invoice without a frozen document, one with it, and a draft.
      ids.bookedPlain = await insert('outgoing_invoices', {
        account_id: account,
        type: 'invoice',
        status: 'booked',
        invoice_number: 'RE-2026-001',
        client_id: client,
        contact_id: contact,
        date: '2026-11-20',
        currency: 'EUR',
      });
      ids.bookedDocument = await insert('outgoing_invoices', {
        account_id: account,
        type: 'invoice',
        status: 'booked',
        invoice_number: 'RE-2026-002',
        client_id: client,
        date: '2026-11-21',
        currency: 'EUR',
        document: JSON.stringify({
          seller: {
            name: 'Old GmbH (as booked)',
            street: 'Altweg 2',
            city: 'Berlin',
            attention: 'Erika Muster',
          },
          buyer: { name: 'Kunde AG (as booked)', city: 'Hamburg', vat_id: 'DE987654321' },
        }),
      });
      ids.draft = await insert('outgoing_invoices', {
        account_id: account,
        type: 'invoice',
        status: 'open',
        client_id: client,
        currency: 'EUR',
      });
      const bank = await insert('payment_accounts', { account_id: account, name: 'Bank', currency: 'EUR' });
      await insert('payments', {
        account_id: account,
        type: 'outgoing_invoice',
        invoice_id: ids.bookedPlain,
        payment_account_id: bank,
        amount: 1190,
        currency: 'EUR',
        date: '2026-11-25',
      });
      for (const [table] of TABLES) before_[table] = await rows(table);
      // A build with the change feed: its records have their creation entry already.
      await migrateTo(handle.db, '2026_11_23_300_change_log');
      ids.fedClient = await insert('clients', { account_id: account, name: 'Fed client' });
      before_.clients!.push((await rows('clients')).at(-1)!);
      await migrateToLatest(handle.db);
    });
    after(() => handle?.destroy());

    it('keeps every record: each old column as it was', async () => {
      for (const [table] of TABLES) {
        const now = await rows(table);
        assert.equal(now.length, before_[table]!.length, table);
        for (const [i, old] of before_[table]!.entries()) {
          const current = now[i]!;
          for (const [col, value] of Object.entries(old))
            assert.deepEqual(String(current[col]), String(value), `${table}.${col} of ${old.id}`);
        }
      }
    });

    it('puts every old record in the change feed once, as created', async () => {
      const log = (
        await sql<{
          resource: string;
          resource_id: number | string;
          action: string;
          account_id: number | string;
        }>`
          select resource, resource_id, action, account_id from change_log where action = 'created'`.execute(
          db(),
        )
      ).rows;
      for (const [table, resource] of TABLES) {
        for (const old of before_[table]!) {
          const entries = log.filter(
            (e) => e.resource === resource && Number(e.resource_id) === Number(old.id),
          );
          assert.equal(entries.length, 1, `${resource} ${old.id}`);
          assert.equal(Number(entries[0]!.account_id), ids.account);
        }
      }
      // A record that had its entry (written by the trigger) gets no second one.
      const total = log.length;
      assert.equal(new Set(log.map((e) => `${e.resource}:${e.resource_id}`)).size, total);
    });

    it('gives booked invoices their frozen parties: from the booked document, else as stored', async () => {
      const parties = async (id: number) => {
        const r = (
          await sql<{ seller: string | null; buyer: string | null }>`
            select seller, buyer from outgoing_invoices where id = ${id}`.execute(db())
        ).rows[0]!;
        return { seller: r.seller && JSON.parse(r.seller), buyer: r.buyer && JSON.parse(r.buyer) };
      };
      assert.deepEqual(await parties(ids.bookedPlain!), {
        seller: {
          name: 'Old GmbH',
          street: 'Hauptstraße 1',
          zip: '10115',
          city: 'Berlin',
          country_code: 'DE',
          vat_id: 'DE123456789',
          tax_number: null,
          email: 'billing@seller.example',
          phone: null,
          contact_name: 'Erika Muster',
        },
        buyer: {
          name: 'Kunde AG',
          street: 'Kundenweg 7',
          zip: '20095',
          city: 'Hamburg',
          country_code: 'DE',
          vat_id: 'DE987654321',
          tax_number: null,
          email: null,
          phone: null,
          contact_name: 'Klara Kontakt',
        },
      });
      const booked = await parties(ids.bookedDocument!);
      assert.equal(booked.seller.name, 'Old GmbH (as booked)');
      assert.equal(booked.seller.street, 'Altweg 2');
      assert.equal(booked.seller.contact_name, 'Erika Muster');
      assert.equal(booked.buyer.name, 'Kunde AG (as booked)');
      assert.equal(booked.buyer.street, null);
      assert.deepEqual(await parties(ids.draft!), { seller: null, buyer: null });
    });
  });
}

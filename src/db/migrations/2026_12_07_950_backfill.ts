import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * What features need for rows older than them (issue 45), so a database of any earlier build
 * upgrades losslessly. Self-contained: a copy of the rules as they were, not the service's code,
 * so this file means the same for ever.
 *
 * 1. The change feed (2026_11_23_300_change_log) started empty: a consumer that syncs from the
 *    start missed every record that existed before it. Each record of a watched table without a
 *    `created` entry gets one now. They get this migration's transaction (and the next ids), so
 *    they come after what the feed served so far: a consumer that already read past it gets
 *    them on its next read, one that starts from the beginning gets everything.
 * 2. Booked invoices of builds before 2026_11_22_940_invoice_legal_fields have no frozen
 *    `seller`/`buyer`: they get them from the document frozen at booking when it names the
 *    parties, else from the account profile and client as stored, as booking freezes them.
 */

/** [table, resource kind, owner column]: the watched tables of 2026_11_23_300_change_log. */
const WATCHED: Array<[string, string, string | null]> = [
  ['clients', 'client', null],
  ['companies', 'company', null],
  ['contacts', 'contact', null],
  ['projects', 'project', null],
  ['tasks', 'task', null],
  ['task_comments', 'comment', null],
  ['efforts', 'effort', null],
  ['offers', 'offer', null],
  ['outgoing_invoices', 'outgoing_invoice', null],
  ['incoming_invoices', 'incoming_invoice', null],
  ['payments', 'payment', null],
  ['payment_accounts', 'payment_account', null],
  ['suppliers', 'supplier', null],
  ['files', 'file', null],
  ['custom_field_definitions', 'custom_field', null],
  ['users', 'user', null],
  ['user_groups', 'user_group', null],
  ['chart_of_accounts', 'chart_of_account', null],
  ['webhooks', 'webhook', 'integration_id'],
  ['accounts', 'account_profile', null],
];

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

async function backfillChangeFeed(db: AnyDb, pg: boolean): Promise<void> {
  // Finding a record's entry by kind and id: the feed's own index is by account.
  await sql`CREATE INDEX change_log_backfill ON change_log (resource, resource_id)`.execute(db);
  for (const [table, kind, owner] of WATCHED) {
    const account = table === 'accounts' ? 't.id' : 't.account_id';
    await sql
      .raw(
        `INSERT INTO change_log (account_id, resource, resource_id, action, integration_id${pg ? '' : ', changed_at'}) ` +
          `SELECT ${account}, '${kind}', t.id, 'created', ${owner ? `t.${owner}` : 'NULL'}${pg ? '' : `, ${NOW}`} ` +
          `FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM change_log c ` +
          `WHERE c.resource = '${kind}' AND c.resource_id = t.id AND c.action = 'created') ORDER BY t.id`,
      )
      .execute(db);
  }
  await sql`DROP INDEX change_log_backfill`.execute(db);
}

type Party = Record<string, string | null>;
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const parse = (json: string | null): Record<string, unknown> | null => {
  try {
    const v = json ? JSON.parse(json) : null;
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
};

/** A party as booking keeps it (booking.service.ts `partySnapshots`). */
const party = (p: Record<string, unknown>, attention: unknown): Party => ({
  name: typeof p.name === 'string' ? p.name : '',
  street: text(p.street),
  zip: text(p.zip),
  city: text(p.city),
  country_code: text(p.country_code),
  vat_id: text(p.vat_id),
  tax_number: text(p.tax_number),
  email: text(p.email),
  phone: text(p.phone),
  contact_name: text(attention),
});

async function backfillParties(db: AnyDb): Promise<void> {
  const invoices = await db
    .selectFrom('outgoing_invoices')
    .select(['id', 'account_id', 'client_id', 'contact_id', 'document', 'seller', 'buyer'])
    .where('status', '=', 'booked')
    .where((eb) => eb.or([eb('seller', 'is', null), eb('buyer', 'is', null)]))
    .orderBy('id')
    .execute();
  for (const inv of invoices) {
    const doc = parse(inv.document);
    const docSeller = parse(doc?.seller ? JSON.stringify(doc.seller) : null);
    const docBuyer = parse(doc?.buyer ? JSON.stringify(doc.buyer) : null);
    let seller: Party;
    if (docSeller) seller = party(docSeller, docSeller.attention);
    else {
      const account = await db
        .selectFrom('accounts')
        .select(['name', 'country_code', 'settings'])
        .where('id', '=', inv.account_id)
        .executeTakeFirst();
      const s = parse(account?.settings ?? null) ?? {};
      seller = party(
        { ...s, name: account?.name ?? '', country_code: account?.country_code },
        s.contact_name,
      );
    }
    let buyer: Party;
    if (docBuyer) buyer = party(docBuyer, docBuyer.attention);
    else {
      const client = inv.client_id
        ? await db
            .selectFrom('clients')
            .selectAll()
            .where('account_id', '=', inv.account_id)
            .where('id', '=', inv.client_id)
            .executeTakeFirst()
        : undefined;
      const contact = inv.contact_id
        ? await db
            .selectFrom('contacts')
            .select(['title', 'first_name', 'last_name'])
            .where('account_id', '=', inv.account_id)
            .where('id', '=', inv.contact_id)
            .executeTakeFirst()
        : undefined;
      const attention = contact
        ? [contact.title, contact.first_name, contact.last_name].filter((x) => x && x.trim() !== '').join(' ')
        : null;
      buyer = party(client ?? {}, attention);
    }
    await db
      .updateTable('outgoing_invoices')
      .set({
        ...(inv.seller === null ? { seller: JSON.stringify(seller) } : {}),
        ...(inv.buyer === null ? { buyer: JSON.stringify(buyer) } : {}),
      })
      .where('id', '=', inv.id)
      .execute();
  }
}

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  // Parties first: their UPDATEs write `updated` entries, which must not count as a creation.
  await backfillParties(db);
  await backfillChangeFeed(db, pg);
}

/** Nothing to undo: the entries and parties describe the records as they are. */
export async function down(_db: AnyDb): Promise<void> {}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Full-text search across kinds (GET /search, docs/search.md): one row in `search_docs` per
 * searchable record, written by triggers on the record's table in the writing transaction, so
 * the index is never behind. `title` is what a hit shows, `body` the other searched fields,
 * `alt` the same text with umlauts spelled out (Müller is also found as "Mueller"). Archived
 * (deleted) clients, contacts, companies and projects leave the index and return on restore.
 * - SQLite: an FTS5 table with `search_docs` as external content, kept in step by triggers on
 *   search_docs. unicode61 folds case and diacritics; prefix indexes of 2, 3, 4, 6 and 8
 *   characters (a longer prefix than any indexed merges the lists of every word it starts:
 *   "client*" over 100,000 "client<n>@…" e-mails took 68 ms, 4 ms with the 6-character index).
 * - PostgreSQL: a stored tsvector ('simple' configuration over `search_fold`, an immutable SQL
 *   function: no extension, so nothing needs a superuser) with a GIN index.
 */
const KINDS: { kind: string; table: string; title: string; body: string[]; archivable?: true }[] = [
  {
    kind: 'client',
    table: 'clients',
    archivable: true,
    title: 'name',
    body: ['shortcode', 'email', 'invoice_email', 'vat_id', 'tax_number', 'city', 'phone', 'notes'],
  },
  {
    kind: 'contact',
    table: 'contacts',
    archivable: true,
    title: "trim(coalesce(new.first_name, '') || ' ' || new.last_name)",
    body: ['email', 'phone', 'mobile', 'position', 'department', 'city', 'notes'],
  },
  {
    kind: 'company',
    table: 'companies',
    archivable: true,
    title: 'name',
    body: ['email', 'vat_id', 'tax_number', 'city', 'phone', 'website'],
  },
  {
    kind: 'project',
    table: 'projects',
    title: 'name',
    body: ['identifier', 'description'],
    archivable: true,
  },
  { kind: 'task', table: 'tasks', title: 'name', body: ['description'] },
  {
    kind: 'outgoing_invoice',
    table: 'outgoing_invoices',
    title: "coalesce(new.invoice_number, new.title, '')",
    body: ['invoice_number', 'title', 'intro_text', 'closing_text'],
  },
  {
    kind: 'incoming_invoice',
    table: 'incoming_invoices',
    title: "coalesce(new.supplier_name, new.invoice_number, '')",
    body: ['invoice_number', 'supplier_vat_id', 'supplier_tax_number', 'description'],
  },
  {
    kind: 'offer',
    table: 'offers',
    title: "coalesce(new.offer_number, new.title, '')",
    body: ['offer_number', 'title', 'intro_text', 'closing_text'],
  },
];

const titleOf = (k: (typeof KINDS)[number]) =>
  k.title.includes('new.') ? k.title : `coalesce(new.${k.title}, '')`;
const bodyOf = (k: (typeof KINDS)[number]) => k.body.map((c) => `coalesce(new.${c}, '')`).join(" || ' ' || ");
/** Umlauts spelled out, upper and lower case (the text is not folded yet in SQLite). */
const altOf = (expr: string) =>
  [
    ['ä', 'ae'],
    ['ö', 'oe'],
    ['ü', 'ue'],
    ['Ä', 'Ae'],
    ['Ö', 'Oe'],
    ['Ü', 'Ue'],
    ['ß', 'ss'],
  ].reduce((e, [from, to]) => `replace(${e}, '${from}', '${to}')`, expr);
/** The statement text with the source row as `src` instead of `new` (the backfill). */
const fromSrc = (s: string) => s.replace(/\bnew\./g, 'src.');

/**
 * Lists sorted by name (the documented `sort=name`; contacts: last_name) read the first page in
 * index order instead of sorting every active row of the account.
 */
const NAME_INDEXES: [table: string, column: string][] = [
  ['clients', 'name'],
  ['companies', 'name'],
  ['contacts', 'last_name'],
  ['projects', 'name'],
];

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const run = (s: string) => sql.raw(s).execute(db);
  for (const [table, column] of NAME_INDEXES) {
    await db.schema
      .createIndex(`${table}_account_${column}_idx`)
      .on(table)
      .columns(['account_id', 'archived_at', column, 'id'])
      .execute();
  }
  if (pg) {
    await run(`create function search_fold(t text) returns text language sql immutable parallel safe as $$
      select regexp_replace(lower(translate(t,
        'ÀÁÂÃÄÅàáâãäåÇçÈÉÊËèéêëÌÍÎÏìíîïÑñÒÓÔÕÖØòóôõöøÙÚÛÜùúûüÝýÿŠšŽžČčŘřĆćŁłŃńŚśŹźŻżĘęĄą',
        'AAAAAAaaaaaaCcEEEEeeeeIIIIiiiiNnOOOOOOooooooUUUUuuuuYyySsZzCcRrCcLlNnSsZzZzEeAa')),
        '[^[:alnum:]]+', ' ', 'g') $$`);
    await run(`create table search_docs (
      id bigserial primary key,
      account_id bigint not null,
      kind text not null,
      ref_id bigint not null,
      title text not null,
      body text not null,
      alt text not null,
      tsv tsvector generated always as (
        setweight(to_tsvector('simple'::regconfig, search_fold(title)), 'A')
        || to_tsvector('simple'::regconfig, search_fold(body))
        || to_tsvector('simple'::regconfig, search_fold(alt))) stored,
      unique (kind, ref_id))`);
    await run('create index search_docs_tsv_idx on search_docs using gin (tsv)');
    for (const k of KINDS) {
      const values = `${titleOf(k)}, ${bodyOf(k)}, ${altOf(`${titleOf(k)} || ' ' || ${bodyOf(k)}`)}`;
      await run(`create function search_docs_${k.table}() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' then
            delete from search_docs where kind = '${k.kind}' and ref_id = old.id;
            return old;
          end if;
          if ${k.archivable ? 'new.archived_at is not null' : 'false'} then
            delete from search_docs where kind = '${k.kind}' and ref_id = new.id;
            return new;
          end if;
          insert into search_docs (account_id, kind, ref_id, title, body, alt)
            values (new.account_id, '${k.kind}', new.id, ${values})
            on conflict (kind, ref_id) do update
              set title = excluded.title, body = excluded.body, alt = excluded.alt
              where (search_docs.title, search_docs.body, search_docs.alt)
                is distinct from (excluded.title, excluded.body, excluded.alt);
          return new;
        end $$`);
      await run(`create trigger ${k.table}_search_docs after insert or update or delete on ${k.table}
        for each row execute function search_docs_${k.table}()`);
      await run(`insert into search_docs (account_id, kind, ref_id, title, body, alt)
        select src.account_id, '${k.kind}', src.id, ${fromSrc(values)} from ${k.table} src
        ${k.archivable ? 'where src.archived_at is null' : ''}`);
    }
    return;
  }
  await run(`create table search_docs (
    id integer primary key,
    account_id integer not null,
    kind text not null,
    ref_id integer not null,
    title text not null,
    body text not null,
    alt text not null,
    unique (kind, ref_id))`);
  await run(`create virtual table search_fts using fts5(title, body, alt,
    content='search_docs', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 6 8')`);
  await run(`create trigger search_docs_ai after insert on search_docs begin
    insert into search_fts (rowid, title, body, alt) values (new.id, new.title, new.body, new.alt); end`);
  await run(`create trigger search_docs_ad after delete on search_docs begin
    insert into search_fts (search_fts, rowid, title, body, alt)
      values ('delete', old.id, old.title, old.body, old.alt); end`);
  await run(`create trigger search_docs_au after update on search_docs begin
    insert into search_fts (search_fts, rowid, title, body, alt)
      values ('delete', old.id, old.title, old.body, old.alt);
    insert into search_fts (rowid, title, body, alt) values (new.id, new.title, new.body, new.alt); end`);
  for (const k of KINDS) {
    const title = titleOf(k);
    const body = bodyOf(k);
    const alt = altOf(`${title} || ' ' || ${body}`);
    const insert = `insert into search_docs (account_id, kind, ref_id, title, body, alt)
      select new.account_id, '${k.kind}', new.id, ${title}, ${body}, ${alt}
      ${k.archivable ? 'where new.archived_at is null' : ''};`;
    await run(`create trigger ${k.table}_search_ai after insert on ${k.table} begin ${insert} end`);
    // Only when a searched column changes: most updates (status, totals) leave the index alone.
    const cols = [
      ...new Set(
        [
          ...k.body,
          ...(k.title.match(/new\.(\w+)/g) ?? [k.title]),
          ...(k.archivable ? ['archived_at'] : []),
        ].map((c) => c.replace(/^new\./, '')),
      ),
    ];
    await run(`create trigger ${k.table}_search_au after update of ${cols.join(', ')} on ${k.table} begin
      delete from search_docs where kind = '${k.kind}' and ref_id = old.id; ${insert} end`);
    await run(`create trigger ${k.table}_search_ad after delete on ${k.table} begin
      delete from search_docs where kind = '${k.kind}' and ref_id = old.id; end`);
    await run(`insert into search_docs (account_id, kind, ref_id, title, body, alt)
      select src.account_id, '${k.kind}', src.id, ${fromSrc(title)}, ${fromSrc(body)}, ${fromSrc(alt)}
      from ${k.table} src ${k.archivable ? 'where src.archived_at is null' : ''}`);
  }
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const run = (s: string) => sql.raw(s).execute(db);
  for (const k of KINDS) {
    if (pg) {
      await run(`drop trigger ${k.table}_search_docs on ${k.table}`);
      await run(`drop function search_docs_${k.table}()`);
    } else {
      for (const t of ['ai', 'au', 'ad']) await run(`drop trigger ${k.table}_search_${t}`);
    }
  }
  if (!pg) await run('drop table search_fts');
  await run('drop table search_docs');
  if (pg) await run('drop function search_fold(text)');
  for (const [table, column] of NAME_INDEXES)
    await db.schema.dropIndex(`${table}_account_${column}_idx`).execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// One id space for every payment (GET /payments lists outgoing and incoming payments, and
// GET /payments/{id} must name exactly one). Outgoing payments (`payments`) and incoming ones
// (`incoming_payments`) keep their tables but draw ids from one counter: PostgreSQL's
// sequence of `payments.id`, SQLite's AUTOINCREMENT counters of both tables read together.
// Incoming payments whose id an outgoing payment already has are moved to fresh ids above
// every id in use (row and allocations copied, nothing else changes); the others keep theirs.
// Self-contained: copies nothing from the application.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const max = async (table: string) =>
    Number(
      (await sql<{ m: number | string | null }>`SELECT max(id) AS m FROM ${sql.table(table)}`.execute(db))
        .rows[0]?.m ?? 0,
    );
  let next = Math.max(await max('payments'), await max('incoming_payments'));
  if (!pg) {
    const seq = await sql<{ m: number | null }>`
      SELECT max(seq) AS m FROM sqlite_sequence WHERE name IN ('payments', 'incoming_payments')`.execute(db);
    next = Math.max(next, Number(seq.rows[0]?.m ?? 0));
  }

  const clashes = await sql<{ id: number }>`
    SELECT id FROM incoming_payments WHERE id IN (SELECT id FROM payments) ORDER BY id`.execute(db);
  for (const { id } of clashes.rows) {
    next += 1;
    await sql`
      INSERT INTO incoming_payments (id, account_id, type, amount, date, payment_account_id, reference, created_at)
      SELECT ${next}, account_id, type, amount, date, payment_account_id, reference, created_at
      FROM incoming_payments WHERE id = ${id}`.execute(db);
    await sql`UPDATE incoming_payment_allocations SET incoming_payment_id = ${next}
      WHERE incoming_payment_id = ${id}`.execute(db);
    await sql`DELETE FROM incoming_payments WHERE id = ${id}`.execute(db);
  }

  if (pg) {
    const seq = (await sql<{ s: string }>`SELECT pg_get_serial_sequence('payments', 'id') AS s`.execute(db))
      .rows[0]!.s;
    if (next > 0) await sql`SELECT setval(${seq}::regclass, ${next}, true)`.execute(db);
    await sql`ALTER TABLE incoming_payments ALTER COLUMN id SET DEFAULT nextval(${sql.lit(seq)}::regclass)`.execute(
      db,
    );
  } else {
    for (const name of ['payments', 'incoming_payments']) {
      await sql`UPDATE sqlite_sequence SET seq = ${next} WHERE name = ${name} AND seq < ${next}`.execute(db);
      await sql`INSERT INTO sqlite_sequence (name, seq)
        SELECT ${name}, ${next} WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ${name})`.execute(
        db,
      );
    }
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const seq = (
      await sql<{ s: string }>`SELECT pg_get_serial_sequence('incoming_payments', 'id') AS s`.execute(db)
    ).rows[0];
    if (seq?.s)
      await sql`ALTER TABLE incoming_payments ALTER COLUMN id SET DEFAULT nextval(${sql.lit(seq.s)}::regclass)`.execute(
        db,
      );
  }
}

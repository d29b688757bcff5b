import assert from 'node:assert/strict';
import { it } from 'node:test';
import { lettersPerTransaction, runDunning } from '../src/modules/dunning/dunning.public.js';
import { connectAgain, createAccount, describeEachDb } from './helpers.js';

describeEachDb('dunning: a run over more letters than one batch', (ctx) => {
  it('concurrent runs write each letter once, numbered without gaps, with an event and an audit entry each', async () => {
    // More overdue invoices than two write batches of the run take (the third is part of one).
    const INVOICES = 2 * lettersPerTransaction(ctx.db) + 30;
    const acc = await createAccount(ctx.db, {
      clients: [{ key: 'c', name: 'Late payer' }],
      outgoing_invoices: Array.from({ length: INVOICES }, (_, i) => ({
        status: 'booked',
        invoice_number: `IMP-${String(i).padStart(4, '0')}`,
        client: 'c',
        date: '2026-03-02',
        due_date: '2026-03-16',
        line_items: [{ title: 'Work', quantity: 1, unit_price: 100 + i, tax_rate: 19 }],
      })),
    });
    const api = await ctx.as(['dunning:read', 'dunning:write'], { userId: acc.users.admin });
    const runs: Promise<unknown>[] = [0, 1].map(() => api.post('/dunning/run', { date: '2026-03-23' }));
    const again = ctx.kind === 'postgres' ? connectAgain(ctx.handle) : undefined;
    runs.push(runDunning(again?.db ?? ctx.db, acc.accountId, { date: '2026-03-23', dryRun: false }));
    try {
      await Promise.all(runs);
    } finally {
      await again?.destroy();
    }

    const db = ctx.db as any;
    const letters = await db
      .selectFrom('dunning_letters')
      .select(['id', 'invoice_id', 'number', 'level'])
      .where('account_id', '=', acc.accountId)
      .orderBy('number')
      .execute();
    assert.equal(letters.length, INVOICES);
    assert.equal(new Set(letters.map((l: any) => l.invoice_id)).size, INVOICES, 'one letter an invoice');
    assert.deepEqual(
      letters.map((l: any) => l.number),
      Array.from({ length: INVOICES }, (_, i) => `MA-2026-${String(i + 1).padStart(5, '0')}`),
    );
    const series = (await api.get('/dunning/number-series')).body.data[0];
    assert.deepEqual([series.last_sequence, series.gap_free], [INVOICES, true]);

    const count = async (table: string, column: string, value: string) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb: any) => eb.fn.countAll().as('n'))
            .where('account_id', '=', acc.accountId)
            .where(column, '=', value)
            .executeTakeFirst()
        ).n,
      );
    assert.equal(await count('events', 'kind', 'dunning:created'), INVOICES);
    assert.equal(await count('audit_log', 'action', 'dunning.create'), INVOICES);

    // The same day again makes nothing; the next level comes on its day for all of them.
    const same = await api.post('/dunning/run', { date: '2026-03-23' });
    assert.equal(same.body.data.created.length, 0);
    const next = await api.post('/dunning/run', { date: '2026-04-06' });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.body.data.created.length, INVOICES);
    assert.equal(next.body.data.created.at(-1).number, `MA-2026-${String(INVOICES * 2).padStart(5, '0')}`);
  });
});

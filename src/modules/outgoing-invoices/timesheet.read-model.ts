import type { Db } from '../../db/index.js';

/**
 * The timesheet of an invoice made from efforts: each effort it bills (the links are the
 * billing module's `invoice_efforts`), with what it was billed at, by line then date. A read
 * model here, not a call to billing, because billing builds on invoices (it creates them) and
 * the invoice PDF prints the timesheet: invoices calling billing would be a cycle.
 */
export function invoiceTimesheet(db: Db, accountId: number, invoiceId: number) {
  return db
    .selectFrom('invoice_efforts as ie')
    .innerJoin('efforts as e', 'e.id', 'ie.effort_id')
    .leftJoin('users as u', 'u.id', 'e.user_id')
    .leftJoin('tasks as t', 't.id', 'e.task_id')
    .select([
      'ie.effort_id',
      'ie.position',
      'ie.minutes',
      'ie.hourly_rate',
      'ie.rate_source',
      'e.date',
      'e.duration_minutes',
      'e.description',
      'e.user_id',
      'e.project_id',
      'e.task_id',
      'u.first_name',
      'u.last_name',
      't.name as task_name',
    ])
    .where('ie.account_id', '=', accountId)
    .where('ie.invoice_id', '=', invoiceId)
    .orderBy('ie.position')
    .orderBy('e.date')
    .orderBy('e.id')
    .execute();
}

export type TimesheetRow = Awaited<ReturnType<typeof invoiceTimesheet>>[number];

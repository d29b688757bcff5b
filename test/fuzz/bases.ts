import type { NamedIds, World } from './world.js';

/**
 * A valid request per operation that has a body (several where one body cannot hold every
 * reference at once). The fuzzer mutates these one field at a time, so a bad value reaches the
 * service with everything else right; the reference test swaps each id for another tenant's
 * and for none. Values that must be unique are made fresh on every call.
 */
export interface BaseRequest {
  /** Path parameters; the rest come from the world's pools. */
  params?: Record<string, number | string>;
  body: Record<string, unknown>;
}

let seq = 0;
// A counter, not the clock: a run replays exactly from its seed (each run has a fresh database).
const fresh = (p: string) => `${p}-${++seq}`;
const line = (extra: Record<string, unknown> = {}) => ({
  title: 'Work',
  quantity: 1,
  unit_price: 100,
  tax_rate: 19,
  ...extra,
});

type Maker = (n: NamedIds, w: World) => BaseRequest;

export const BASES: Record<string, Maker[]> = {
  'PUT /dunning/base-rates/{valid_from}': [
    () => ({ params: { valid_from: '2026-07-01' }, body: { rate: 1.27 } }),
  ],
  'POST /tasks': [
    (n) => ({
      body: {
        project_id: n.project,
        name: 'Fuzz task',
        phase_id: n.phase,
        milestone_id: n.milestone,
        epic_id: n.epic,
        assignee_id: n.teamMember,
        due_date: '2026-06-01',
      },
    }),
  ],
  'PATCH /tasks/{task}': [
    (n) => ({
      params: { task: n.task },
      body: {
        project_id: n.project,
        phase_id: n.phase,
        milestone_id: n.milestone,
        epic_id: n.epic,
        assignee_id: n.teamMember,
      },
    }),
  ],
  'PUT /tasks/{id}/external-identifier': [
    (n) => ({ params: { id: n.task }, body: { external_id: fresh('t'), force: true } }),
  ],
  'POST /tasks/comments': [(n) => ({ body: { task_id: n.task, content: 'A comment' } })],
  'PATCH /tasks/comments/{id}': [(n) => ({ params: { id: n.comment }, body: { content: 'Edited' } })],
  'POST /incoming-invoices': [
    (n) => ({
      body: {
        supplier_id: n.supplier,
        invoice_number: fresh('IN'),
        date: '2026-04-01',
        gross_total: 119,
        bookings: [{ chart_of_account_id: n.chartAccount, amount: 119, tax_rate: 19 }],
      },
    }),
  ],
  'POST /incoming-invoices/check-duplicate': [() => ({ body: { md5: '0'.repeat(32) } })],
  'PATCH /incoming-invoices/{id}': [
    (n) => ({ params: { id: n.incomingInvoice }, body: { supplier_id: n.supplier, description: 'Edited' } }),
  ],
  'PATCH /incoming-invoices/{invoiceId}/bookings/{bookingId}': [
    (n) => ({
      params: { invoiceId: n.incomingInvoice, bookingId: n.booking },
      body: { chart_of_account_id: n.chartAccount, amount: 119 },
    }),
  ],
  'POST /outgoing-invoices/recurring-plans': [
    (n) => ({
      body: {
        type: 'recurring1',
        client_id: n.client,
        contact_id: n.contact,
        project_id: n.project,
        plan_start: '2026-01-31',
        plan_end: '2026-03-31',
        line_items: [line()],
      },
    }),
  ],
  'POST /outgoing-invoices/partial-plans': [
    (n) => ({
      body: { client_id: n.client, contact_id: n.contact, project_id: n.project, line_items: [line()] },
    }),
  ],
  'POST /outgoing-invoices/{id}/plan-invoices': [
    (n) => ({ params: { id: n.partialPlan }, body: { type: 'partial', value: 1 } }),
  ],
  // The demo's first four efforts are billable time on the first project: one base each bills
  // its own, so that every base is accepted once.
  'POST /outgoing-invoices/from-efforts': [
    (n, w) => ({
      body: {
        project_id: n.project,
        date_from: '2026-09-01',
        date_to: '2026-09-30',
        effort_ids: [w.own.efforts![0]!],
      },
    }),
    (n, w) => ({
      body: {
        client_id: n.client,
        date_from: '2026-09-01',
        date_to: '2026-10-31',
        effort_ids: [w.own.efforts![1]!],
        group_by: 'user',
      },
    }),
    (n) => ({
      body: {
        project_id: n.project,
        date_from: '2026-10-01',
        date_to: '2026-10-31',
        group_by: 'none',
        rounding_minutes: 15,
      },
    }),
  ],
  'POST /outgoing-invoices': [
    (n) => ({
      body: {
        type: 'credit',
        client_id: n.client,
        contact_id: n.contact,
        project_id: n.project,
        credited_invoice_id: n.bookedInvoice,
        date: '2026-05-01',
        line_items: [line({ quantity: 1.5, unit_price: -10, discount: 10 })],
      },
    }),
  ],
  'PATCH /outgoing-invoices/{id}': [
    (n) => ({
      params: { id: n.openCredit },
      body: {
        client_id: n.client,
        contact_id: n.contact,
        project_id: n.project,
        credited_invoice_id: n.bookedInvoice,
        line_items: [line({ unit_price: -1 })],
      },
    }),
  ],
  'POST /outgoing-invoices/{id}/book': [(n) => ({ params: { id: n.draftInvoice }, body: {} })],
  'POST /clients': [() => ({ body: { name: 'Fuzz client', email: 'a@b.example', shortcode: fresh('C') } })],
  'PATCH /clients/{id}': [(n) => ({ params: { id: n.client }, body: { notes: 'Edited' } })],
  'PATCH /account/profile': [() => ({ body: { contact_name: 'Edited' } })],
  'PUT /clients/{id}/external-identifier': [
    (n) => ({ params: { id: n.client }, body: { external_id: fresh('c'), force: true } }),
  ],
  'PUT /clients/{id}/shortcode': [(n) => ({ params: { id: n.client }, body: { shortcode: fresh('S') } })],
  'POST /companies': [() => ({ body: { name: 'Fuzz company', email: 'a@b.example' } })],
  'PATCH /companies/{id}': [(n) => ({ params: { id: n.company }, body: { notes: 'Edited' } })],
  'PUT /companies/{id}/external-identifier': [
    (n) => ({ params: { id: n.company }, body: { external_id: fresh('co'), force: true } }),
  ],
  'POST /contacts': [(n) => ({ body: { last_name: 'Fuzz', company_id: n.company } })],
  'PATCH /contacts/{id}': [(n) => ({ params: { id: n.contact }, body: { first_name: 'Edited' } })],
  'PUT /contacts/{id}/external-identifier': [
    (n) => ({ params: { id: n.contact }, body: { external_id: fresh('ct'), force: true } }),
  ],
  'PUT /contacts/{id}/company/attach': [
    (n) => ({ params: { id: n.contact }, body: { company_id: n.company } }),
  ],
  'POST /suppliers': [
    () => ({ body: { name: 'Fuzz supplier' } }),
    (n) => ({ body: { name: 'With account', chart_of_account_id: n.chartAccount } }),
  ],
  'PATCH /suppliers/{id}': [
    (n) => ({ params: { id: n.supplier }, body: { chart_of_account_id: n.chartAccount } }),
  ],
  'POST /payments/incoming-invoice': [
    (n) => ({
      body: {
        amount: 0.01,
        date: '2026-05-02',
        payment_account_id: n.paymentAccount,
        incoming_invoice_id: n.incomingInvoice,
      },
    }),
    (n) => ({
      body: {
        amount: 0.01,
        date: '2026-05-02',
        invoices: [{ incoming_invoice_id: n.incomingInvoice, amount: 0.01 }],
      },
    }),
  ],
  'POST /payments/incoming-invoice-credit': [
    (n) => ({ body: { invoice_id: n.incomingInvoice, credit_id: n.incomingCredit, amount: 0.01 } }),
  ],
  'POST /exports/datev': [() => ({ body: { date_from: '2026-05-01', date_to: '2026-05-31' } })],
  // A month nothing else of the world is dated in, so the lock refuses none of the other cases.
  'POST /accounting/periods/{period}/lock': [() => ({ params: { period: '2025-01' }, body: {} })],
  'POST /payments/outgoing-invoice': [
    (n) => ({
      body: {
        invoice_id: n.bookedInvoice,
        amount: 0.01,
        date: '2026-05-02',
        payment_account_id: n.paymentAccount,
      },
    }),
  ],
  'POST /payments/outgoing-invoice-credit': [
    (n) => ({ body: { invoice_id: n.bookedInvoice, credit_id: n.bookedCredit, date: '2026-05-02' } }),
  ],
  'POST /efforts': [
    (n) => ({
      body: {
        user_id: n.teamMember,
        project_id: n.project,
        task_id: n.task,
        date: '2026-05-04',
        duration_minutes: 30,
      },
    }),
  ],
  'PATCH /efforts/{id}': [
    (n, w) => ({
      params: { id: w.own.efforts![0]! },
      body: { user_id: n.teamMember, project_id: n.project, task_id: n.task },
    }),
  ],
  'POST /projects': [
    (n, w) => ({
      body: {
        client_id: n.client,
        name: 'Fuzz project',
        identifier: fresh('P'),
        portfolio_id: w.own.portfolios![0]!,
        project_group_ids: [w.own.project_groups![0]!],
        hourly_rate: 95.5,
      },
    }),
  ],
  'PATCH /projects/{id}': [
    (n, w) => ({
      params: { id: n.project },
      body: {
        client_id: n.client,
        portfolio_id: w.own.portfolios![0]!,
        project_group_ids: [w.own.project_groups![0]!],
        budget_amount: 1000,
      },
    }),
  ],
  'PUT /projects/{id}/team/{user_id}': [
    (n) => ({ params: { id: n.project, user_id: n.teamMember }, body: { role: 'member', hourly_rate: 80 } }),
  ],
  'POST /offers': [
    (n) => ({
      body: {
        client_id: n.client,
        contact_id: n.contact,
        project_id: n.project,
        title: 'Fuzz offer',
        line_items: [line()],
      },
    }),
  ],
  'PATCH /offers/{id}': [
    (n, w) => ({
      params: { id: w.own.offers![0]! },
      body: { client_id: n.client, contact_id: n.contact, project_id: n.project, line_items: [line()] },
    }),
  ],
  'POST /payment-accounts': [() => ({ body: { name: 'Fuzz account', type: 'bank', currency: 'EUR' } })],
  'PATCH /payment-accounts/{id}': [
    (n) => ({ params: { id: n.paymentAccount }, body: { bank_name: 'Fuzz bank' } }),
  ],
  // Each accepted once per world: a paid-for invoice is in transit (or being collected) after.
  'POST /sepa/credit-transfers': [
    (n) => ({
      body: {
        payment_account_id: n.paymentAccount,
        execution_date: '2099-01-05',
        invoices: [{ incoming_invoice_id: n.incomingInvoice, amount: 0.01 }],
      },
    }),
  ],
  'POST /sepa/direct-debits': [
    (n) => ({
      body: {
        payment_account_id: n.paymentAccount,
        collection_date: '2099-01-05',
        invoices: [{ invoice_id: n.bookedInvoice, amount: 0.01 }],
      },
    }),
  ],
  'POST /clients/{id}/sepa-mandates': [
    (n) => ({
      params: { id: n.client },
      body: { reference: fresh('FUZZ'), signed_on: '2026-01-02', iban: 'DE89370400440532013000' },
    }),
  ],
  'PATCH /sepa-mandates/{id}': [(n) => ({ params: { id: n.mandate }, body: { debtor_name: 'Fuzz debtor' } })],
  'POST /bank-csv-profiles': [
    () => ({ body: { name: 'Fuzz CSV', columns: { booking_date: 1, amount: 2, remittance: [3] } } }),
  ],
  'POST /bank-transactions/{id}/match': [
    (n) => ({
      params: { id: n.bankTransaction },
      body: { allocations: [{ invoice_id: n.bookedInvoice, amount: 0.01 }] },
    }),
  ],
  'PUT /users/{id}/rates': [
    (n) => ({ params: { id: n.teamMember }, body: { hourly_rate: 90, cost_rate: 45.5 } }),
  ],
  'POST /incoming-mailboxes': [
    () => ({ body: { host: 'imap.example.com', username: fresh('fuzz'), password: 'secret' } }),
  ],
  'PATCH /incoming-mailboxes/{id}': [
    (n) => ({ params: { id: n.mailbox }, body: { name: 'Fuzz mailbox', folder: 'INBOX' } }),
  ],
  'POST /webhooks': [() => ({ body: { url: 'https://hooks.example.com/fuzz', scopes: ['task:create'] } })],
  'POST /oauth/token': [() => ({ body: { grant_type: 'client_credentials' } })],
};

const PDF = '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n';

/**
 * Upload routes that take the record as JSON in the multipart field `data`: the document
 * describes `data` only as a string, so its references are listed here by hand. `body` is
 * what goes into `data`; the file is a minimal PDF.
 */
export const MULTIPART_DATA_BASES: Record<string, Maker[]> = {
  'POST /incoming-invoices': [
    (n) => ({
      body: {
        supplier_id: n.supplier,
        invoice_number: fresh('UP'),
        gross_total: 10,
        file_was_preprocessed: true,
        bookings: [{ chart_of_account_id: n.chartAccount, amount: 10 }],
      },
    }),
  ],
  'POST /outgoing-invoices/external': [
    (n) => ({
      body: {
        type: 'credit',
        invoice_number: fresh('EXT'),
        client_id: n.client,
        contact_id: n.contact,
        project_id: n.project,
        credited_invoice_id: n.bookedInvoice,
        date: '2026-05-01',
        line_items: [line({ unit_price: -1 })],
      },
    }),
  ],
};

export const MULTIPART_FILE = { name: 'doc.pdf', type: 'application/pdf', data: PDF };

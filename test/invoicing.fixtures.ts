import { type Api, COMPLETE_SELLER, type TestContext } from './helpers.js';

/** Shared set-up of the invoicing tests (not a test file itself). */

export const ALL_INVOICE_SCOPES = [
  'outgoing-invoice:read',
  'outgoing-invoice:write',
  'outgoing-invoice:book',
  'outgoing-invoice:upload',
  'outgoing-invoice:force-delete',
  'client:write',
  'payments:read',
  'payments:write',
  'offer:read',
];

export const line = (unit_price: number, extra: Record<string, unknown> = {}) => ({
  title: 'Work',
  quantity: 1,
  unit_price,
  tax_rate: 19,
  ...extra,
});

/** The address a client needs to be invoiced (§14 (4) UStG). */
export const BUYER_ADDRESS = { street: 'Kundenweg 7', zip: '20095', city: 'Hamburg', country_code: 'DE' };

/** A client in the API's account, through the API, with a complete address. */
export async function makeClient(api: Api, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await api.post('/clients', {
    name: `Client ${Math.random().toString(36).slice(2, 8)}`,
    ...BUYER_ADDRESS,
    ...extra,
  });
  if (res.status !== 201) throw new Error(`client: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/** Creates an invoice (201 expected) and returns its data. */
export async function makeInvoice(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/outgoing-invoices', body);
  if (res.status !== 201) throw new Error(`invoice: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function bookNow(api: Api, id: number, body: Record<string, unknown> = {}) {
  const res = await api.post(`/outgoing-invoices/${id}/book`, body);
  if (res.status !== 200) throw new Error(`book: ${res.status} ${res.text}`);
  return res.body.data;
}

export const thisYear = () => new Date().toISOString().slice(0, 4);

/** A token with every invoicing scope for a fresh account of its own (numbering starts at 1). */
export async function freshAccount(ctx: TestContext, settings: Record<string, unknown> = {}) {
  const { createAccount } = await import('./helpers.js');
  const acc = await createAccount(ctx.db, {
    account: { name: 'Numbering', country_code: 'DE', settings: { ...COMPLETE_SELLER, ...settings } },
  });
  return { acc, api: await ctx.as(ALL_INVOICE_SCOPES, { userId: acc.users.admin }) };
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendBytes } from '../../shared/http.js';
import { createRoute, getRoute, listRoute } from '../../shared/route-builders.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import { Binary, receiveUpload } from '../files/files.public.js';
import * as booking from './booking.service.js';
import { lineItemsRoute, pdfRoute } from './document.routes.js';
import {
  BookBody,
  Invoice,
  InvoiceCreate,
  InvoiceListQuery,
  InvoiceUpdate,
  Master,
  MasterListQuery,
} from './invoices.schemas.js';
import * as service from './invoices.service.js';
import { numberSeriesRoutes } from './number-series.routes.js';
import { invoicePdf, PdfQuery } from './pdf.service.js';
import { plansRoutes } from './plans.routes.js';
import { invoiceXml } from './xml.service.js';

const path = '/outgoing-invoices';
const tags = ['Outgoing invoices'];
const read = { scopes: ['outgoing-invoice:read'] };
const write = { scopes: ['outgoing-invoice:write'] };

const DELETES = [
  {
    path: '/outgoing-invoices/:id',
    config: write,
    force: false,
    summary: 'Delete an outgoing invoice (soft)',
    description:
      'Soft delete: the invoice stays readable by id and listed with `deleted=true`, with `deleted_at` and `deleted_by`. Booked invoices cannot be deleted here: 409 `invoice_booked` (see DELETE …/force); nor plans with booked invoices: 409 `plan_has_booked_invoices`. A partial plan’s final invoice goes only with its plan: 409 `plan_final_invoice`. A deleted plan takes its unbooked invoices along.',
  },
  {
    path: '/outgoing-invoices/:id/force',
    config: { scopes: ['outgoing-invoice:force-delete'] },
    force: true,
    summary: 'Delete any outgoing invoice, booked ones included (soft)',
    description:
      'Its number stays taken and it stays readable by id (see GET /outgoing-invoices/number-series for the gap it leaves). A plan deleted so stays readable for its booked invoices; a partial plan’s final invoice goes only with its plan (409 `plan_final_invoice`).',
  },
];

/** The tables an invoice's or plan's answer reads (its lines, payments, dunning level): the page cache watches them. */
const INVOICE_READS = ['outgoing_invoices', 'outgoing_invoice_items', 'payments', 'dunning_letters'];
export const invoicesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(plansRoutes);
  await app.register(numberSeriesRoutes);

  listRoute(
    app,
    {
      path: '/outgoing-invoices',
      tags,
      config: { ...read, pageCache: INVOICE_READS },
      summary: 'List outgoing invoices',
      description:
        'Documents (invoice, credit, deposit, partial, final), ids ascending; deleted ones are left out unless `deleted=true`, which lists them too (with `deleted_at`, `deleted_by`). Plan masters are listed only when `type` names a master type (see also /outgoing-invoices/master). `date_from`/`date_to` filter the invoice date.',
      querystring: InvoiceListQuery,
      item: Invoice,
    },
    service.listInvoices,
  );

  createRoute(
    app,
    {
      path,
      tags,
      config: write,
      summary: 'Create a one-time invoice or credit',
      description:
        'With line items; nothing is booked. `status` is `open` (default) or `bookable`. Currency and payment term default to the client’s (then the account’s). Credits usually carry negative lines; `credited_invoice_id` names the booked invoice a credit corrects.',
      body: InvoiceCreate,
      response: Invoice,
      location: path,
    },
    service.createInvoice,
  );

  listRoute(
    app,
    {
      path: '/outgoing-invoices/master',
      tags,
      config: { ...read, pageCache: INVOICE_READS },
      summary: 'List invoice master plans',
      description: 'Recurring and partial plans with their child invoices.',
      querystring: MasterListQuery,
      item: Master,
    },
    service.listMasters,
  );

  getRoute(
    app,
    {
      path: '/outgoing-invoices/master/:id',
      tags,
      config: { ...read, pageCache: INVOICE_READS },
      summary: 'Retrieve an invoice master plan',
      item: Master,
    },
    service.getMaster,
  );

  getRoute(
    app,
    {
      path: '/outgoing-invoices/:id',
      tags,
      config: { ...read, pageCache: INVOICE_READS },
      summary: 'Retrieve an outgoing invoice',
      description:
        'With line items, totals per tax rate, deductions (final invoices) and payment state. Deleted invoices (booked ones included) stay readable here with `deleted_at` and `deleted_by`.',
      item: Invoice,
    },
    service.getInvoice,
  );

  app.patch(
    '/outgoing-invoices/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an outgoing invoice',
        description:
          'Scalars, dates, status (`open`/`bookable`); when the `line_items` key is present all line items are replaced, otherwise they stay. Booked invoices never change (409 `invoice_booked`). Recurring masters also take `plan_start`/`plan_end` and their lines (used by the next generate).',
        params: IdParams,
        body: InvoiceUpdate,
        response: { 200: Data(Invoice) },
      },
    },
    async (req) => ({ data: await service.updateInvoice(app.db, req.auth, req.params.id, req.body) }),
  );

  // DELETE and DELETE …/force: one soft delete, the second also for booked invoices.
  for (const d of DELETES) {
    app.delete(
      d.path,
      {
        config: d.config,
        schema: {
          tags,
          summary: d.summary,
          description: d.description,
          params: IdParams,
          response: { 204: Type.Null({ description: 'Deleted' }) },
        },
      },
      async (req, reply) => {
        await service.deleteInvoice(app.db, req.auth, req.params.id, d.force);
        return reply.code(204).send(null);
      },
    );
  }

  lineItemsRoute(
    app,
    { path, tags, config: read, summary: 'Line items of an outgoing invoice' },
    service.listLineItems,
  );

  app.post(
    '/outgoing-invoices/:id/book',
    {
      config: { scopes: ['outgoing-invoice:book'] },
      schema: {
        tags,
        summary: 'Book an outgoing invoice',
        description:
          'Automatic mode (no `invoice_number`): the next number of the account’s sequence for the document kind (invoices incl. deposits, partials and finals; credits have their own), format from the account settings, default `RE-{YYYY}-{NNNNN}` / `GS-{YYYY}-{NNNNN}`. Manual mode: `invoice_number` is used as given (409 `invoice_number_taken` if the account has it). Needs a client and at least one line item, and must be legally complete (§14 (4) UStG, EN 16931): seller address and VAT id or tax number (account settings), client name and address with country, a service period or supply date (or the account setting `service_date_defaults_to_invoice_date`), for 0 % lines `tax_exemption_category` (E also its reason), for AE/K the client’s VAT id, with a buyer reference the seller contact and IBAN (XRechnung). One 422 lists every missing field (`account.vat_id`, `client.zip`, `service_period_start`, …). A credit must total below zero. Seller and buyer are frozen into the invoice (`seller`, `buyer`). Fixes the invoice date (today if unset) and the due date. Booking twice: 409 `already_booked`. A final invoice is booked after every other invoice of its plan.',
        params: IdParams,
        body: BookBody,
        response: { 200: Data(Invoice) },
      },
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => ({ data: await booking.bookInvoice(app.db, req.auth, req.params.id, req.body) }),
  );

  app.post(
    '/outgoing-invoices/external',
    {
      config: { scopes: ['outgoing-invoice:upload'] },
      schema: {
        tags,
        summary: 'Upload an invoice created outside the service',
        description:
          'multipart/form-data: the PDF in the part `file`, the invoice as JSON in the field `data` (`invoice_number`, `client_id`, `date`, `line_items` required; `type` invoice or credit). Stored booked under the caller’s number, which must be free in the account (409 `invoice_number_taken`); the service’s own numbering is not advanced. GET …/pdf answers with the uploaded file.',
        consumes: ['multipart/form-data'],
        // Documents the form only: the parts are read and checked by the handler (a required
        // list here would reject every upload, the multipart body is not parsed up front).
        body: {
          content: {
            'multipart/form-data': {
              schema: {
                properties: {
                  file: { type: 'string', format: 'binary', description: 'The invoice PDF (required)' },
                  data: {
                    type: 'string',
                    maxLength: 1_048_576,
                    description:
                      'JSON of the invoice (required): `invoice_number`, `client_id`, `date`, `line_items`, …',
                  },
                },
              },
            },
          },
        },
        response: { 201: Data(Invoice) },
      },
    },
    async (req, reply) => {
      const upload = await receiveUpload(req, { accept: (t) => t === 'application/pdf' });
      const data = await booking.createExternal(app.db, req.auth, upload!);
      reply.code(201).header('location', `${app.prefix}/outgoing-invoices/${data.id}`);
      return { data };
    },
  );

  pdfRoute(
    app,
    {
      path,
      tags,
      config: read,
      summary: 'PDF of an outgoing invoice',
      description:
        'Booked invoices embed the EN 16931 (Factur-X) XML and are rendered once: later downloads are byte-identical. `timesheet=true` appends pages listing the efforts the invoice bills (see GET /outgoing-invoices/{id}/efforts; needs `efforts:read` as well); that variant is rendered on each request and never replaces the kept PDF.',
      querystring: PdfQuery,
    },
    invoicePdf,
  );

  app.get(
    '/outgoing-invoices/:id/xml',
    {
      config: read,
      schema: {
        tags,
        summary: 'E-invoice (XRechnung) of an outgoing invoice',
        description:
          'The booked invoice, credit, deposit, partial or final invoice as an XRechnung 3.0 e-invoice (EN 16931 with the German CIUS, `CustomizationID` `urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0`): `syntax=ubl` (default) UBL 2.1 Invoice or CreditNote, `syntax=cii` UN/CEFACT CII (the same XML the PDF embeds, there with the Factur-X EN 16931 guideline). Made from what was frozen at booking, so every download is the same. Buyer reference (BT-10) from the invoice, else the client; seller contact (BT-41..43) from the account settings. A document that is not booked, or was uploaded: 409 `invoice_not_booked`.',
        params: IdParams,
        querystring: Type.Object(
          {
            syntax: Type.Optional(
              Type.Enum(['ubl', 'cii'] as const, {
                description: 'ubl (default): UBL 2.1; cii: UN/CEFACT CII',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Binary('The XML', 'application/xml'),
          206: Binary('A byte range', 'application/xml'),
          409: problemResponse('Not booked, or an uploaded invoice'),
          416: problemResponse('Range not satisfiable'),
        },
      },
    },
    async (req, reply) => {
      const xml = await invoiceXml(app.db, req.auth, req.params.id, req.query.syntax ?? 'ubl');
      return sendBytes(req, reply, { ...xml, contentType: 'application/xml' });
    },
  );
};

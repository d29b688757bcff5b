import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { invalidField } from '../../shared/errors.js';
import { dataPart } from '../../shared/http.js';
import { getRoute, listRoute, updateRoute } from '../../shared/route-builders.js';
import { Data, problemResponse } from '../../shared/schemas.js';
import { validatorCompiler } from '../../shared/validation.js';
import { receiveUpload, type Upload } from '../files/files.public.js';
import * as bookings from './bookings.service.js';
import { createExtractor } from './extraction.pool.js';
import { toBooking } from './incoming-invoices.mappers.js';
import {
  Booking,
  BookingParams,
  BookingUpdate,
  DuplicateCheckJson,
  DuplicateCheckResult,
  IncomingInvoice,
  IncomingInvoiceCreate,
  IncomingInvoiceListQuery,
  IncomingInvoiceUpdate,
  multipartBody,
} from './incoming-invoices.schemas.js';
import * as service from './incoming-invoices.service.js';

const tags = ['Incoming invoices'];
const read = { tags, config: { scopes: ['incoming-invoice:read'] } };
const write = { tags, config: { scopes: ['incoming-invoice:write'] } };
const BOOKING_SCOPES = ['incoming-invoice:write', 'chart-of-accounts:write'];

/** JSON bodies are validated as usual; multipart bodies are streamed and checked in the handler. */
const jsonOrMultipartCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' && (route.schema as Record<string, unknown>)['x-multipart']
    ? () => true
    : validatorCompiler(route);

/** Validates a JSON value like a request body, so that errors name fields the same way. */
function validateLikeBody<T>(schema: TSchema, value: unknown): T {
  const check = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' }) as ((
    v: unknown,
  ) => boolean) & { errors?: unknown[] };
  if (!check(value)) throw Object.assign(new Error('validation failed'), { validation: check.errors });
  return value as T;
}

async function readMultipart(req: FastifyRequest): Promise<Upload> {
  const upload = await receiveUpload(req, { required: false });
  if (!upload)
    throw invalidField(
      'file',
      'a multipart request carries a file in the part named "file"; send JSON otherwise',
    );
  return upload;
}

export const incomingInvoicesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const extractor = createExtractor(app.config);
  app.addHook('onClose', () => extractor.close());
  /** What extraction could not read is stored with the document (`extraction.warnings`) and logged. */
  const extractFor = (req: FastifyRequest) => async (upload: Upload) => {
    const outcome = await extractor.extract(upload.data, upload.contentType);
    if (outcome.warnings.length)
      req.log.info(
        { warnings: outcome.warnings.map((w) => w.code), file: upload.filename },
        'data extraction warnings',
      );
    return outcome;
  };

  listRoute(
    app,
    {
      ...read,
      path: '/incoming-invoices',
      summary: 'List incoming invoices and credits',
      description: 'Documents of `document_type` `Invoice` and `Credit`; the date range applies to `date`.',
      querystring: IncomingInvoiceListQuery,
      item: IncomingInvoice,
    },
    service.listInvoices,
  );

  app.post(
    '/incoming-invoices',
    {
      config: write.config,
      validatorCompiler: jsonOrMultipartCompiler,
      schema: {
        tags,
        summary: 'Create an incoming invoice or credit',
        description: [
          'JSON, or `multipart/form-data` with the document in the part `file` and the JSON fields in the text part `data`.',
          'When a file is uploaded and `file_was_preprocessed` is not true, data extraction runs. The file is recognised by its',
          'content, not its declared type: an EN 16931 e-invoice in UBL 2.1 (Invoice, CreditNote), UN/CEFACT CII (XRechnung,',
          'Factur-X, ZUGFeRD 2) or ZUGFeRD 1.0 is read exactly, also when a PDF carries it (any attachment name, or an',
          'associated file); other PDFs are read from their text layer; images and pages without text are read by OCR in a',
          'job after the request: the answer is then `202` (`extraction.status` `pending`, totals and currency not given are',
          'null until then), and the event `incoming-invoice:extracted` is recorded when the reading ends (also at once, with',
          '`201`, for documents read in the request). Every field read is stored with its origin',
          '(`extraction.fields`: `xml`, `pdf_text`, `ocr` or `request`, a confidence, `derived`); a field not read is left',
          'empty. What could not be read is in `extraction.warnings` (`not_an_invoice`, `malformed_xml`, `encrypted_pdf`,',
          '`no_text_layer`, `pages_truncated`, `totals_inconsistent`, `invalid_value`, …): the upload is never refused because',
          'the document disagrees with itself. A credit note (UBL CreditNote, type code 381/396/…, negative totals) is a',
          '`Credit` with positive amounts. A seller VAT id (or exact name) that matches a supplier sets `supplier_id`. Fields',
          'given in the request override extracted values, are validated (IBAN check digits, BIC, VAT id format per country)',
          'and are never overwritten by a later extraction; `extracted_fields` lists the fields that came from extraction.',
          'Inline `bookings` (chart of accounts, cost centers) may not exceed `gross_total` in sum (422).',
          'Documents are read with limits on time, memory, pages and decompressed size, and XML with a DOCTYPE or',
          'beyond caps on nesting and attributes is not parsed: such a document is stored without extracted values.',
          'While too many documents are being read, an upload is refused with 503 and `Retry-After`.',
        ].join(' '),
        consumes: ['application/json', 'multipart/form-data'],
        body: {
          content: {
            'application/json': { schema: IncomingInvoiceCreate },
            ...multipartBody({
              file: { type: 'string', format: 'binary', description: 'The document (PDF, XML or image)' },
              data: {
                type: 'string',
                maxLength: 1_048_576,
                description: 'JSON object with the fields of the JSON body (at most 1 MiB)',
              },
            }),
          },
        },
        response: {
          201: Data(IncomingInvoice),
          202: {
            ...Data(IncomingInvoice),
            description:
              'Accepted: stored, and being read in the background (`extraction.status` `pending`; totals and currency not given are null). `Location` is its address; the event `incoming-invoice:extracted` follows when the reading ends.',
          },
          413: problemResponse('The file exceeds the upload limit'),
          415: problemResponse('Files of this type are not accepted'),
          503: problemResponse('Too many documents are being read; retry after `Retry-After` seconds'),
        },
      },
    },
    async (req, reply) => {
      let body: IncomingInvoiceCreate;
      let upload: Upload | undefined;
      if (req.isMultipart()) {
        upload = await readMultipart(req);
        const parsed = dataPart(upload.fields.data, { default: {} });
        body = validateLikeBody<IncomingInvoiceCreate>(IncomingInvoiceCreate, parsed);
      } else {
        body = req.body as IncomingInvoiceCreate;
      }
      const row = await service.createInvoice(app.db, req.auth, body, upload, extractFor(req));
      // Still being read: accepted, not yet complete (the event incoming-invoice:extracted follows).
      reply
        .code(row.extraction_status === 'pending' ? 202 : 201)
        .header('location', `${app.prefix}/incoming-invoices/${row.id}`);
      return { data: await service.presentOne(app.db, req.auth, row) };
    },
  );

  app.post(
    '/incoming-invoices/check-duplicate',
    {
      config: read.config,
      validatorCompiler: jsonOrMultipartCompiler,
      schema: {
        tags,
        summary: 'Check whether a file was already uploaded',
        description:
          'Compares MD5 hashes with the files of existing incoming documents. Send the file (`multipart/form-data`, part `file`: the server computes the hash) or JSON `{ "md5": "…" }`.',
        consumes: ['application/json', 'multipart/form-data'],
        body: {
          content: {
            'application/json': { schema: DuplicateCheckJson },
            ...multipartBody({ file: { type: 'string', format: 'binary' } }),
          },
        },
        response: { 200: Data(DuplicateCheckResult) },
      },
    },
    async (req) => {
      const md5 = req.isMultipart()
        ? (await receiveUpload(req, { accept: () => true }))!.md5
        : (req.body as { md5: string }).md5;
      return { data: await service.checkDuplicate(app.db, req.auth, md5) };
    },
  );

  getRoute(
    app,
    {
      ...read,
      path: '/incoming-invoices/:id',
      summary: 'Retrieve an incoming invoice or credit',
      item: IncomingInvoice,
    },
    async (db, auth, id) => service.presentOne(db, auth, await service.getInvoice(db, auth, id)),
  );

  updateRoute(
    app,
    {
      ...write,
      path: '/incoming-invoices/:id',
      summary: 'Update document fields',
      description:
        'Document fields only: bookings and payments are untouched. Totals must add up, stay at or above the paid total and the sum of bookings (422). A field written here counts as the clerk’s: a later extraction job does not overwrite it.',
      body: IncomingInvoiceUpdate,
      item: IncomingInvoice,
      responses: { 409: problemResponse('`conflict`: status of a paid document') },
    },
    async (db, auth, id, body) =>
      service.presentOne(db, auth, await service.updateInvoice(db, auth, id, body)),
  );

  app.patch(
    '/incoming-invoices/:invoiceId/bookings/:bookingId',
    {
      config: { scopes: BOOKING_SCOPES },
      schema: {
        tags,
        summary: 'Update a chart-of-account booking',
        description: 'Bookings of a document may not exceed its gross total in sum (422).',
        params: BookingParams,
        body: BookingUpdate,
        response: { 200: Data(Booking) },
      },
    },
    async (req) => {
      const { invoiceId, bookingId } = req.params;
      return {
        data: toBooking(await bookings.updateBooking(app.db, req.auth, invoiceId, bookingId, req.body)),
      };
    },
  );

  app.delete(
    '/incoming-invoices/:invoiceId/bookings/:bookingId',
    {
      config: { scopes: BOOKING_SCOPES },
      schema: {
        tags,
        summary: 'Remove a booking',
        params: BookingParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (req, reply) => {
      await bookings.deleteBooking(app.db, req.auth, req.params.invoiceId, req.params.bookingId);
      return reply.code(204).send(null);
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendBytes } from '../../shared/http.js';
import { createRoute, getRoute, listRoute } from '../../shared/route-builders.js';
import { Data, IdParams } from '../../shared/schemas.js';
import { Binary } from '../files/files.public.js';
import {
  AgeingQuery,
  DatevExport,
  DatevExportCreate,
  ExportListQuery,
  LockedPeriod,
  OssQuery,
  OssReturn,
  PayablesAgeing,
  PeriodParams,
  ReceivablesAgeing,
  VatReturn,
  VatReturnQuery,
} from './exports.schemas.js';
import * as service from './exports.service.js';
import * as reports from './reports.service.js';

const tags = ['Accounting exports'];
const config = { scopes: ['accounting:export'] };

/** The hand-over to the tax adviser (issue 41): exports, the period lock, VAT figures and ageing. */
export const exportsRoutes: FastifyPluginAsyncTypebox<{ invoicePdf?: service.InvoicePdfSource }> = async (
  app,
  opts,
) => {
  createRoute(
    app,
    {
      path: '/exports/datev',
      tags,
      config,
      summary: 'Export a period to DATEV',
      description:
        'Writes the DATEV export (EXTF, format version 700) of the date range: the Buchungsstapel of every booked outgoing invoice and credit, payment received, incoming invoice booking and payment made dated in it, and the Debitoren/Kreditoren of the parties it uses; with `documents`, their files (Belegbilder) and DATEV’s document.xml. Needs the DATEV consultant and client number in the company profile (`accounting`), else 422. With `lock`, the months are locked for good in the same step. The ZIP is kept: GET /exports/{id}/download.',
      body: DatevExportCreate,
      response: DatevExport,
      location: '/exports',
    },
    (db, auth, body) => service.createDatevExport(db, auth, body, opts.invoicePdf),
  );

  listRoute(
    app,
    {
      path: '/exports',
      tags,
      config,
      summary: 'List exports',
      description:
        'Every export (of every kind; DATEV so far), oldest first, with its period, lock, checksum, and who made it when.',
      querystring: ExportListQuery,
      item: DatevExport,
    },
    service.listExports,
    service.toExport,
  );

  getRoute(
    app,
    { path: '/exports/:id', tags, config, summary: 'Retrieve an export', item: DatevExport },
    service.getExport,
  );

  app.get(
    '/exports/:id/download',
    {
      config,
      schema: {
        tags,
        summary: 'Download an export',
        description: 'The ZIP of the export, the same bytes every time (its SHA-256 is the ETag).',
        params: IdParams,
        response: {
          200: Binary('The ZIP', 'application/zip'),
          206: Binary('A byte range', 'application/zip'),
        },
      },
    },
    async (req, reply) => {
      const file = await service.exportFile(app.db, req.auth, req.params.id);
      return sendBytes(req, reply, { ...file, contentType: 'application/zip' });
    },
  );

  app.get(
    '/accounting/periods',
    {
      config,
      schema: {
        tags,
        summary: 'List the locked months',
        description:
          'The months locked for good (Festschreibung), oldest first, with when, by whom and by which export (null: locked on its own). The audit log has each lock.',
        response: { 200: Data(Type.Array(LockedPeriod)) },
      },
    },
    async (req) => ({ data: await service.listLockedPeriods(app.db, req.auth) }),
  );

  app.post(
    '/accounting/periods/:period/lock',
    {
      config,
      schema: {
        tags,
        summary: 'Lock a month for good',
        description:
          'Locks the month (Festschreibung) without an export: nothing dated in it can be booked, changed or deleted any more (409 `period_locked`). There is no unlock. 201 with the lock; a month locked already answers 200 with its lock as it was (so two locks at once make one). A month that has not begun is a 422.',
        params: PeriodParams,
        response: { 201: Data(LockedPeriod), 200: Data(LockedPeriod) },
      },
    },
    async (req, reply) => {
      const { created, lock } = await service.lockPeriod(app.db, req.auth, req.params.period);
      reply.code(created ? 201 : 200);
      return { data: lock };
    },
  );

  app.get(
    '/reports/vat-return',
    {
      config,
      schema: {
        tags,
        summary: 'VAT return figures of a month or quarter',
        description:
          'The amounts of the Umsatzsteuer-Voranmeldung by Kennzahl (81, 86, 35, 41, 43, 48, 21, 45, 46, 66, 67 and 83), each with the documents behind it, by the VAT method of the company profile (`accrual`: documents dated in the period; `cash`: money received in it). One-Stop-Shop supplies are in GET /reports/oss instead.',
        querystring: VatReturnQuery,
        response: { 200: Data(VatReturn) },
      },
    },
    async (req) => ({ data: await reports.vatReturn(app.db, req.auth, req.query) }),
  );

  app.get(
    '/reports/oss',
    {
      config,
      schema: {
        tags,
        summary: 'One-Stop-Shop figures of a quarter',
        description:
          'The amounts of the OSS return: supplies to consumers (buyers without a VAT id) in other EU states charged at that state’s rate, by country and rate, each with the documents behind it, by the VAT method of the company profile. They are left out of GET /reports/vat-return.',
        querystring: OssQuery,
        response: { 200: Data(OssReturn) },
      },
    },
    async (req) => ({ data: await reports.ossReturn(app.db, req.auth, req.query) }),
  );

  app.get(
    '/reports/receivables-ageing',
    {
      config,
      schema: {
        tags,
        summary: 'Receivables ageing',
        description:
          'The open amounts of booked invoices on a day (default today) per client, by days overdue: not yet due, 1–30, 31–60, 61–90, over 90.',
        querystring: AgeingQuery,
        response: { 200: Data(ReceivablesAgeing) },
      },
    },
    async (req) => ({ data: await reports.receivablesAgeing(app.db, req.auth, req.query) }),
  );

  app.get(
    '/reports/payables-ageing',
    {
      config,
      schema: {
        tags,
        summary: 'Payables ageing',
        description:
          'The open amounts of incoming invoices on a day (default today) per supplier, by days overdue (after the due date, else the invoice date): not yet due, 1–30, 31–60, 61–90, over 90.',
        querystring: AgeingQuery,
        response: { 200: Data(PayablesAgeing) },
      },
    },
    async (req) => ({ data: await reports.payablesAgeing(app.db, req.auth, req.query) }),
  );
};

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  createDatevExport,
  exportFile,
  listExports,
  listLockedPeriods,
  lockPeriod,
  toExport,
} from '../../modules/exports/exports.service.js';
import { payablesAgeing, receivablesAgeing, vatReturn } from '../../modules/exports/reports.service.js';
import { invoicePdf } from '../../modules/outgoing-invoices/pdf.service.js';
import { AppError } from '../../shared/errors.js';
import { sendBytes } from '../../shared/http.js';
import { IdParams } from '../../shared/schemas.js';
import type { AuthContext } from '../../shared/tokens.js';
import { langOf, translator } from '../i18n.js';
import { checkCsrf, type SessionUser } from '../session.js';
import { CsrfField, consoleView, doneNotice, requireAdmin, when } from './shell.js';
import './accounting.messages.js';

const MONTH = '^[0-9]{4}-(0[1-9]|1[0-2])$';
const MonthQuery = Type.Object({
  month: Type.Optional(Type.String({ pattern: MONTH })),
  done: Type.Optional(Type.Union([Type.Literal('exported'), Type.Literal('locked')])),
});
const ExportForm = Type.Object({
  _csrf: CsrfField,
  month: Type.String({ pattern: MONTH }),
  documents: Type.Optional(Type.Literal('1')),
});
const LockForm = Type.Object({
  _csrf: CsrfField,
  month: Type.String({ pattern: MONTH }),
  confirm: Type.Optional(Type.Literal('1')),
});

/** The exports' services take the caller's authorisation; the console acts as the signed-in admin. */
const exporterFor = (user: SessionUser): AuthContext => ({
  accountId: user.accountId,
  userId: user.userId,
  integrationId: 0,
  tokenId: 0,
  scopes: new Set(['accounting:export']),
});

/** The month before today's: the one usually handed over. */
function lastMonth(today = new Date()): string {
  const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

const monthRange = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return { from: `${month}-01`, to: new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10) };
};

const BUCKETS = ['not_due', 'days_1_30', 'days_31_60', 'days_61_90', 'over_90', 'total'] as const;

/**
 * The month's hand-over to the tax adviser (issue 41): pick a month, write and download its
 * DATEV export (with the documents if wanted), lock it for good after a confirmation, and see
 * its VAT return figures and the receivables and payables ageing at its end. Admins only.
 */
export async function accountingPage(app: FastifyInstance): Promise<void> {
  const hide = true;

  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    month: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const user = await requireAdmin(req);
    const auth = exporterFor(user);
    const lang = langOf(req);
    const t = translator(lang);
    const amount = new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB', {
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    const money = (v: number | null) => (v === null ? '' : amount.format(v));
    const { from, to } = monthRange(month);
    const [locks, exports, vat, receivables, payables] = await Promise.all([
      listLockedPeriods(app.db, auth),
      listExports(app.db, auth, { page: 1, per_page: 100 }),
      vatReturn(app.db, auth, { period: month }),
      receivablesAgeing(app.db, auth, { date: to }),
      payablesAgeing(app.db, auth, { date: to }),
    ]);
    const lock = locks.find((l) => l.period === month);
    const ofMonth = exports.rows
      .map(toExport)
      .filter((e) => e.date_from === from && e.date_to === to)
      .reverse()
      .slice(0, 5);
    const bucketRow = (b: Record<(typeof BUCKETS)[number], number>) => BUCKETS.map((k) => money(b[k]));
    return consoleView(
      req,
      reply,
      'console-accounting',
      {
        month,
        from,
        to,
        lock: lock ? { when: when(lock.locked_at), by: lock.locked_by, export: lock.export_id } : null,
        exports: ofMonth.map((e) => ({
          id: e.id,
          when: when(e.created_at),
          rows: e.bookings,
          documents: e.documents,
          locked: e.locked,
          size: Math.max(1, Math.round(e.byte_size / 1024)),
        })),
        vatMethod: t(`accounting.method.${vat.vat_method}`),
        figures: vat.figures.map((f) => ({
          kennzahl: f.kennzahl,
          label: t(`accounting.kz.${f.kennzahl}`),
          base: money(f.base),
          tax: money(f.tax),
          count: f.documents.length,
        })),
        buckets: BUCKETS.map((k) => t(`accounting.bucket.${k}`)),
        ageing: [
          { label: t('accounting.receivables'), cells: bucketRow(receivables.totals) },
          { label: t('accounting.payables'), cells: bucketRow(payables.totals) },
        ],
        notice: doneNotice(req, 'accounting'),
        error: '',
        ...extra,
      },
      status,
    );
  };

  app.get('/console/accounting', { schema: { hide, querystring: MonthQuery } }, async (req, reply) => {
    const { month } = req.query as { month?: string };
    return page(req, reply, month ?? lastMonth());
  });

  app.post('/console/accounting/export', { schema: { hide, body: ExportForm } }, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const body = req.body as { month: string; documents?: '1' };
    const { from, to } = monthRange(body.month);
    try {
      const e = await createDatevExport(
        app.db,
        exporterFor(user),
        { date_from: from, date_to: to, documents: body.documents === '1' },
        invoicePdf,
      );
      return reply.redirect(`/console/accounting?month=${body.month}&done=exported#export-${e.id}`, 303);
    } catch (err) {
      // Missing DATEV numbers or a rate DATEV's automatic accounts lack: the page says which.
      if (!(err instanceof AppError) || err.status !== 422) throw err;
      const t = translator(langOf(req));
      const missing = (err.errors ?? []).some((e) => e.field.startsWith('accounting.datev_'));
      return page(
        req,
        reply,
        body.month,
        { error: missing ? t('accounting.needNumbers') : err.message },
        422,
      );
    }
  });

  app.post('/console/accounting/lock', { schema: { hide, body: LockForm } }, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const body = req.body as { month: string; confirm?: '1' };
    const t = translator(langOf(req));
    if (body.confirm !== '1')
      return page(req, reply, body.month, { error: t('accounting.confirmFirst') }, 422);
    try {
      await lockPeriod(app.db, exporterFor(user), body.month, 'user');
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 422) throw err;
      return page(req, reply, body.month, { error: t('accounting.notBegun') }, 422);
    }
    return reply.redirect(`/console/accounting?month=${body.month}&done=locked`, 303);
  });

  app.get(
    '/console/accounting/exports/:id/download',
    { schema: { hide, params: IdParams } },
    async (req, reply) => {
      const user = await requireAdmin(req);
      const file = await exportFile(app.db, exporterFor(user), (req.params as IdParams).id);
      return sendBytes(req, reply, { ...file, contentType: 'application/zip' });
    },
  );
}

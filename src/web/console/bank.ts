import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  getStatement,
  getTransaction,
  ignoreTransaction,
  importStatement,
  listTransactions,
  matchTransaction,
  suggestedInvoices,
  toStatement,
} from '../../modules/banking/banking.service.js';
import { bytesToUpload } from '../../modules/files/files.public.js';
import { AppError } from '../../shared/errors.js';
import { IdParams } from '../../shared/schemas.js';
import type { AuthContext } from '../../shared/tokens.js';
import { langOf, translator } from '../i18n.js';
import { checkCsrf, type SessionUser } from '../session.js';
import { CsrfOnly, consoleView, doneNotice, requireAdmin } from './shell.js';
import './bank.messages.js';

const PAGE = '/console/bank';
const hide = true;
/** Unmatched lines shown at once; the rest come as these are decided. */
const SHOWN = 100;

const PageQuery = Type.Object({
  done: Type.Optional(Type.Union([Type.Literal('matched'), Type.Literal('ignored')])),
  imported: Type.Optional(IdParams.properties.id),
  error: Type.Optional(Type.Literal('gone')),
});

/** The banking services take the caller's authorisation; the console acts as the signed-in admin. */
const bankerFor = (user: SessionUser): AuthContext => ({
  accountId: user.accountId,
  userId: user.userId,
  integrationId: 0,
  tokenId: 0,
  scopes: new Set(['banking:read', 'banking:write', 'payments:write']),
});

/** The uploaded file as the multipart plugin's onFile below leaves it in the body. */
interface FormFile {
  filename: string;
  data: Buffer;
}

/**
 * The bank page (issue 40): upload a statement (the import of POST /bank-statements), then
 * the lines not matched, money received (against outgoing invoices) and money paid out
 * (against incoming invoices) apart, each with its ranked suggestions: the invoice, its
 * party, what is open on it and the reasons; one click matches a line with its first
 * suggestion, another sets it aside.
 * Admins only, as the other console pages.
 */
export async function bankPage(app: FastifyInstance): Promise<void> {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: app.config.uploadLimit, files: 1, fields: 2, parts: 3, fieldSize: 1024 },
    async onFile(part: MultipartFile) {
      const data = await part.toBuffer();
      (part as unknown as { value: FormFile }).value = { filename: part.filename, data };
    },
  });

  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const auth = bankerFor(user);
    const q = req.query as { imported?: number; error?: string };
    const money = (amount: number, currency: string) =>
      new Intl.NumberFormat(langOf(req) === 'de' ? 'de-DE' : 'en-GB', { style: 'currency', currency }).format(
        amount,
      );
    let notice = doneNotice(req, 'bank');
    const warnings: string[] = [];
    if (q.imported !== undefined) {
      const s = toStatement(await getStatement(app.db, auth, q.imported));
      notice = t('bank.imported', { new: s.entries_new, known: s.entries_known, matched: s.matched });
      for (const w of s.warnings) warnings.push(t(`bank.warning.${w}`));
    }
    // Money received and money paid out wait apart: each settles another kind of invoice.
    const [received, paidOut] = await Promise.all([
      listTransactions(app.db, auth, { status: 'unmatched', amount_min: 0.01, per_page: SHOWN, page: 1 }),
      listTransactions(app.db, auth, { status: 'unmatched', amount_max: -0.01, per_page: SHOWN, page: 1 }),
    ]);
    const invoices = await suggestedInvoices(app.db, auth, [...received.rows, ...paidOut.rows]);
    const linesOf = (rows: Awaited<ReturnType<typeof listTransactions>>['rows']) =>
      rows.map((r) => ({
        id: r.id,
        date: r.booking_date,
        name: r.counterparty_name,
        // Grouped in fours, as printed on paper: easier to read, and it wraps between groups.
        iban: r.counterparty_iban?.replace(/(.{4})(?=.)/g, '$1 ') ?? null,
        text: [r.remittance, r.creditor_reference].filter(Boolean).join(' · '),
        amount: money(r.amount, r.currency),
        suggestions: r.suggestions.map((s) => {
          const invoice = invoices.get(`${s.invoice_kind}:${s.invoice_id}`);
          return {
            number: s.invoice_number,
            party: invoice?.party ?? null,
            amount: money(s.amount, r.currency),
            open: invoice ? t('bank.open', { amount: money(invoice.open, r.currency) }) : '',
            reasons: s.reasons
              .map((x) => t(s.invoice_kind === 'incoming' ? `bank.reasonOut.${x}` : `bank.reason.${x}`))
              .join(', '),
          };
        }),
      }));
    return consoleView(
      req,
      reply,
      'console-bank',
      {
        notice,
        warnings,
        error: q.error === 'gone' ? t('bank.error.gone') : '',
        uploadError: '',
        sections: [
          {
            id: 'unmatched',
            title: t('bank.unmatched'),
            count: t('bank.unmatchedCount', { count: received.total }),
            none: t('bank.none'),
            party: t('bank.from'),
            noSuggestion: t('bank.noSuggestion'),
            lines: linesOf(received.rows),
          },
          {
            id: 'paid-out',
            title: t('bank.paidOut'),
            count: t('bank.paidOutCount', { count: paidOut.total }),
            none: t('bank.noneOut'),
            party: t('bank.to'),
            noSuggestion: t('bank.noSuggestionOut'),
            lines: linesOf(paidOut.rows),
          },
        ],
        ...extra,
      },
      status,
    );
  };

  app.get(PAGE, { schema: { hide, querystring: PageQuery } }, (req, reply) => page(req, reply));

  app.post(`${PAGE}/statements`, { schema: { hide } }, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const file = (req.body as { file?: FormFile } | undefined)?.file;
    if (!file || !Buffer.isBuffer(file.data) || file.data.length === 0)
      return page(req, reply, { uploadError: t('bank.error.noFile') }, 422);
    try {
      const name = (file.filename || 'statement').slice(0, 200);
      const statement = await importStatement(
        app.db,
        bankerFor(user),
        { ...bytesToUpload(name, 'application/octet-stream', file.data), fields: {} },
        undefined,
      );
      return reply.redirect(`${PAGE}?imported=${statement.id}`, 303);
    } catch (err) {
      // A file that cannot be read or names no known account: the page again, saying why.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const detail = err.errors?.map((e) => e.message).join('; ') || err.message;
      return page(req, reply, { uploadError: detail }, err.status);
    }
  });

  /** A decision on a line that was decided meanwhile (or whose invoice was paid): the page says so. */
  const decide =
    (act: (auth: AuthContext, id: number) => Promise<unknown>, done: string) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      checkCsrf(req);
      const user = await requireAdmin(req);
      const { id } = req.params as IdParams;
      try {
        await act(bankerFor(user), id);
      } catch (err) {
        if (!(err instanceof AppError) || ![409, 422].includes(err.status)) throw err;
        return reply.redirect(`${PAGE}?error=gone`, 303);
      }
      return reply.redirect(`${PAGE}?done=${done}`, 303);
    };

  app.post(
    `${PAGE}/transactions/:id/match`,
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    decide(async (auth, id) => {
      const t = await getTransaction(app.db, auth, id);
      const first = t.suggestions[0];
      if (t.status !== 'unmatched' || !first) throw new AppError('conflict', 'nothing to match');
      await matchTransaction(app.db, auth, id, {
        allocations: [{ invoice_id: first.invoice_id, amount: first.amount }],
      });
    }, 'matched'),
  );

  app.post(
    `${PAGE}/transactions/:id/ignore`,
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    decide((auth, id) => ignoreTransaction(app.db, auth, id), 'ignored'),
  );
}

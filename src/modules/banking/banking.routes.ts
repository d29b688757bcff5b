import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthContext } from '../../plugins/auth.js';
import { invalidField } from '../../shared/errors.js';
import { createRoute, getRoute, listRoute } from '../../shared/route-builders.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import { receiveUpload } from '../files/files.public.js';
import {
  BankCsvProfile,
  BankCsvProfileCreate,
  BankStatement,
  BankStatementListQuery,
  BankTransaction,
  BankTransactionListQuery,
  CsvProfileListQuery,
  EmptyBody,
  MatchBody,
} from './banking.schemas.js';
import * as service from './banking.service.js';

const tags = ['Banking'];
const read = { scopes: ['banking:read'] };
const BEYOND = 'Beyond the specification (issue 40).';

/** POST /bank-statements: in the scope with the multipart parser (src/modules/index.ts). */
export const bankStatementUploadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/bank-statements',
    {
      config: { scopes: ['banking:write', 'payments:write'] },
      schema: {
        tags,
        summary: 'Import a bank statement',
        description: [
          BEYOND,
          '`multipart/form-data` with the file in the part `file`, recognised by its content: CAMT.053 (001.02 to 001.13),',
          'CAMT.052, CAMT.054 (UTF-8 XML, no DOCTYPE), MT940 or MT942 (UTF-8 or ISO 8859-1; German `:86:` subfields and SEPA',
          'tags are read), CSV through a stored profile (`csv_profile_id`; `payment_account_id` required), or a ZIP of such files (at most 100 files, 50 MB unpacked; one account), imported as one. The payment account is `payment_account_id`, else the one with the statement’s IBAN (422 when',
          'none). Entries already stored (the same file again, an intraday report before the day’s statement) are counted',
          'in `entries_known` and not stored twice; only booked entries are read. Money received is then matched to booked',
          'outgoing invoices, money paid out to incoming invoices, where that is certain (docs/banking.md), which records payments in the ledger',
          '(hence `payments:write` too). A file that cannot be read is refused (422 naming `file`) and nothing is stored;',
          'a statement whose balances do not add up is stored with the warning `balances_do_not_add_up`.',
        ].join(' '),
        consumes: ['multipart/form-data'],
        body: {
          content: {
            'multipart/form-data': {
              schema: {
                properties: {
                  file: { type: 'string', format: 'binary', description: 'The statement file (required)' },
                  payment_account_id: {
                    type: 'string',
                    pattern: '^[1-9][0-9]{0,9}$',
                    description:
                      'The payment account (id); default: by the statement’s IBAN (required for CSV)',
                  },
                  csv_profile_id: {
                    type: 'string',
                    pattern: '^[1-9][0-9]{0,9}$',
                    description: 'Read the file as CSV with this profile (POST /bank-csv-profiles)',
                  },
                },
              },
            },
          },
        },
        response: {
          201: Data(BankStatement),
          413: problemResponse('The file exceeds the upload limit'),
          415: problemResponse('Files of this type are not accepted'),
        },
      },
    },
    async (req, reply) => {
      const upload = await receiveUpload(req);
      const idField = (name: string) => {
        const raw = upload!.fields[name];
        if (raw === undefined) return undefined;
        if (!/^[1-9][0-9]{0,9}$/.test(raw) || Number(raw) > 2147483647)
          throw invalidField(name, 'must be a positive integer id');
        return Number(raw);
      };
      const accountId = idField('payment_account_id');
      const statement = await service.importStatement(
        app.db,
        req.auth,
        upload!,
        accountId,
        idField('csv_profile_id'),
      );
      reply.code(201).header('location', `${app.prefix}/bank-statements/${statement.id}`);
      return { data: statement };
    },
  );
};

export const bankingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  createRoute(
    app,
    {
      path: '/bank-csv-profiles',
      tags,
      config: { scopes: ['banking:write'] },
      summary: 'Store a CSV profile',
      description: `${BEYOND} How a bank’s CSV export is read: separator, decimal separator, date format, encoding, header rows and the column (1 for the first) of each field; an amount column, or a credit and a debit column (422 otherwise). Import with POST /bank-statements and \`csv_profile_id\`. A line’s identity is its \`bank_reference\` column when mapped, else its content (docs/banking.md).`,
      body: BankCsvProfileCreate,
      response: BankCsvProfile,
      location: '/bank-csv-profiles',
    },
    service.createCsvProfile,
  );

  listRoute(
    app,
    {
      path: '/bank-csv-profiles',
      tags,
      config: read,
      summary: 'List CSV profiles',
      description: BEYOND,
      querystring: CsvProfileListQuery,
      item: BankCsvProfile,
    },
    service.listCsvProfiles,
    service.toCsvProfile,
  );

  getRoute(
    app,
    {
      path: '/bank-csv-profiles/:id',
      tags,
      config: read,
      summary: 'Read one CSV profile',
      description: BEYOND,
      item: BankCsvProfile,
    },
    service.getCsvProfile,
    service.toCsvProfile,
  );

  listRoute(
    app,
    {
      path: '/bank-statements',
      tags,
      config: read,
      summary: 'List imported bank statements',
      description: `${BEYOND} Each import of a statement file, with its counts of new and already known entries. Filter: \`payment_account_id\`.`,
      querystring: BankStatementListQuery,
      item: BankStatement,
    },
    service.listStatements,
    service.toStatement,
  );

  getRoute(
    app,
    {
      path: '/bank-statements/:id',
      tags,
      config: read,
      summary: 'Read one imported bank statement',
      description: BEYOND,
      item: BankStatement,
    },
    service.getStatement,
    service.toStatement,
  );

  listRoute(
    app,
    {
      path: '/bank-transactions',
      tags,
      config: read,
      summary: 'List bank transactions',
      description: `${BEYOND} The entries of all imported statements, each stored once. Filters: \`payment_account_id\`, \`statement_id\` (the import that stored it), \`status\`, \`date_from\`/\`date_to\` (booking date), \`amount_min\`/\`amount_max\` (signed), \`q\` (text). An unmatched line carries ranked \`suggestions\` (outgoing invoices for money received, incoming invoices for money paid out).`,
      querystring: BankTransactionListQuery,
      item: BankTransaction,
    },
    service.listTransactions,
  );

  getRoute(
    app,
    {
      path: '/bank-transactions/:id',
      tags,
      config: read,
      summary: 'Read one bank transaction',
      description: BEYOND,
      item: BankTransaction,
    },
    service.getTransaction,
  );

  const action = (
    path: string,
    summary: string,
    description: string,
    body: typeof MatchBody | typeof EmptyBody,
    run: (auth: AuthContext, id: number, body: never) => Promise<BankTransaction>,
  ) =>
    app.post(
      path,
      {
        config: { scopes: ['banking:write', 'payments:write'] },
        schema: {
          tags,
          summary,
          description: `${BEYOND} ${description}`,
          params: IdParams,
          body,
          response: {
            200: Data(BankTransaction),
            409: problemResponse('`conflict`: the transaction is not in a state this applies to'),
          },
        },
      },
      async (req) => ({ data: await run(req.auth, (req.params as IdParams).id, req.body as never) }),
    );

  action(
    '/bank-transactions/:id/match',
    'Match a bank transaction to invoices',
    'An `unmatched` transaction: for money received each allocation records a payment of that amount on a booked outgoing invoice, for money paid out on an incoming invoice (`invoice_id` is then an incoming invoice’s id); at most its open amount, dated the booking date, on the transaction’s payment account; together at most the transaction’s amount (422). The transaction becomes `matched` (409 otherwise).',
    MatchBody,
    (auth, id, body: MatchBody) => service.matchTransaction(app.db, auth, id, body),
  );
  action(
    '/bank-transactions/:id/unmatch',
    'Undo a match or an ignore',
    'Removes the payments the match recorded (the invoices are open again) and sets the transaction `unmatched`; an ignored one becomes `unmatched` too (409 when it is unmatched already).',
    EmptyBody,
    (auth, id) => service.unmatchTransaction(app.db, auth, id),
  );
  action(
    '/bank-transactions/:id/ignore',
    'Ignore a bank transaction',
    'For lines that settle no invoice (fees, salaries, transfers between own accounts): `unmatched` becomes `ignored` (409 otherwise).',
    EmptyBody,
    (auth, id) => service.ignoreTransaction(app.db, auth, id),
  );
};

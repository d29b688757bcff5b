import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendBytes } from '../../shared/http.js';
import { listResponse } from '../../shared/paging.js';
import { createRoute, getRoute, listRoute, updateRoute } from '../../shared/route-builders.js';
import { Data, IdParams, List, problemResponse } from '../../shared/schemas.js';
import { Binary } from '../files/files.public.js';
import {
  CreditTransferCreate,
  DirectDebitCreate,
  EmptyBody,
  MandateListQuery,
  RunListQuery,
  SepaMandate,
  SepaMandateCreate,
  SepaMandateUpdate,
  SepaRun,
} from './sepa.schemas.js';
import * as service from './sepa.service.js';

const tags = ['SEPA'];
const read = { scopes: ['banking:read'] };
const write = { scopes: ['banking:write'] };
const BEYOND = 'Beyond the specification (issue 40).';

export const sepaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  createRoute(
    app,
    {
      path: '/sepa/credit-transfers',
      tags,
      config: write,
      summary: 'Pay incoming invoices by SEPA credit transfer',
      description: `${BEYOND} Writes a pain.001.001.09 file (\`version\` \`pain.001.001.03\` for older bank software) that pays each incoming invoice its open amount (or \`amount\`) to the IBAN and BIC of its supplier record, from the payment account (\`payment_account_id\`, with an IBAN, in EUR) on the execution date; download it from \`file_url\`. Each transfer carries an end-to-end id; the invoices show \`payment_in_transit\` until a bank statement line with that id (POST /bank-statements) records the payment. Refused (422, naming each invoice): a credit, another currency than EUR, paid already, in transit already, no supplier or no supplier IBAN, an amount beyond the open amount; an id the account does not have: 422 \`invalid_reference\`.`,
      body: CreditTransferCreate,
      response: SepaRun,
      location: '/sepa/credit-transfers',
    },
    service.createCreditTransfer,
  );

  createRoute(
    app,
    {
      path: '/sepa/direct-debits',
      tags,
      config: write,
      summary: 'Collect outgoing invoices by SEPA direct debit',
      description: `${BEYOND} Writes a pain.008.001.08 file collecting booked EUR invoices from clients with an active mandate (POST /clients/{id}/sepa-mandates), to the payment account (\`payment_account_id\`) on the collection date: the invoices named, or else every open one due by the collection date. One payment block per scheme (CORE, B2B) and sequence type: a mandate not collected on before is FRST, later collections are RCUR. The creditor identifier comes from the company profile (\`sepa_creditor_identifier\`; 422 \`unprocessable\` when it is not set). A bank statement line with a collection's end-to-end id records the payment.`,
      body: DirectDebitCreate,
      response: SepaRun,
      location: '/sepa/direct-debits',
    },
    service.createDirectDebit,
  );

  for (const [segment, kind, noun] of [
    ['credit-transfers', 'credit_transfer', 'credit transfer'],
    ['direct-debits', 'direct_debit', 'direct debit'],
  ] as const) {
    listRoute(
      app,
      {
        path: `/sepa/${segment}`,
        tags,
        config: read,
        summary: `List SEPA ${noun} files`,
        description: `${BEYOND} Oldest first, each with its items and whether a bank statement confirmed them.`,
        querystring: RunListQuery,
        item: SepaRun,
      },
      (db, auth, q) => service.listRuns(db, auth, kind, q),
    );

    getRoute(
      app,
      {
        path: `/sepa/${segment}/:id`,
        tags,
        config: read,
        summary: `Read a SEPA ${noun} file’s record`,
        description: `${BEYOND} Its items with their end-to-end ids and whether a bank statement confirmed them.`,
        item: SepaRun,
      },
      (db, auth, id) => service.getRun(db, auth, id, kind),
    );

    app.get(
      `/sepa/${segment}/:id/file`,
      {
        config: read,
        schema: {
          tags,
          summary: `Download a SEPA ${noun} file`,
          description: `${BEYOND} The XML as it was written: the same bytes on every download.`,
          params: IdParams,
          response: {
            200: Binary('The pain XML', 'application/xml'),
            206: Binary('A byte range', 'application/xml'),
            416: problemResponse('Range not satisfiable'),
          },
        },
      },
      async (req, reply) => {
        const file = await service.runFile(app.db, req.auth, req.params.id, kind);
        const data = Buffer.from(file.xml, 'utf8');
        return sendBytes(req, reply, {
          data,
          contentType: 'application/xml',
          filename: file.name,
          sha256: createHash('sha256').update(data).digest('hex'),
        });
      },
    );
  }
};

/** Mandates live under their client (`/clients/{id}/sepa-mandates`) and by their own id. */
export const sepaMandateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  createRoute(
    app,
    {
      path: '/clients/:id/sepa-mandates',
      tags,
      config: write,
      summary: 'Record a client’s SEPA direct debit mandate',
      description: `${BEYOND} Mandate reference (unique within the account, 409 \`already_exists\` otherwise; SEPA characters without blanks), date of signature, the debtor’s IBAN (checked) and BIC, scheme CORE or B2B, and whether it has been collected on before (\`sequence\`). POST /sepa/direct-debits collects on the client’s newest active mandate.`,
      params: IdParams,
      body: SepaMandateCreate,
      response: SepaMandate,
      location: '/sepa-mandates',
    },
    service.createMandate,
  );

  app.get(
    '/clients/:id/sepa-mandates',
    {
      config: read,
      schema: {
        tags,
        summary: 'List a client’s SEPA mandates',
        description: `${BEYOND} Oldest first, revoked ones too.`,
        params: IdParams,
        querystring: MandateListQuery,
        response: { 200: List(SepaMandate) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listMandates(app.db, req.auth, req.params.id, req.query),
        service.toMandate,
      ),
  );

  getRoute(
    app,
    {
      path: '/sepa-mandates/:id',
      tags,
      config: read,
      summary: 'Read one SEPA mandate',
      description: BEYOND,
      item: SepaMandate,
    },
    service.getMandate,
  );

  updateRoute(
    app,
    {
      path: '/sepa-mandates/:id',
      tags,
      config: write,
      summary: 'Amend a SEPA mandate',
      description: `${BEYOND} A new mandate reference (409 \`already_exists\` when another mandate has it), a new debtor account (\`iban\`, \`bic\`) or the account holder’s name (\`debtor_name\`, null: the client’s name). For a mandate collected on before, the next direct debit file reports the amendment once (\`AmdmntInd\`, \`AmdmntInfDtls\`: the reference before as \`OrgnlMndtId\`, the IBAN before as \`OrgnlDbtrAcct\` at the same bank, \`SMNDA\` as \`OrgnlDbtrAgt\` when the debtor moved to another bank, which makes that collection a FRST); \`pending_amendment\` shows it until then. A revoked mandate is not amended (409 \`conflict\`).`,
      body: SepaMandateUpdate,
      item: SepaMandate,
      responses: {
        409: problemResponse('`already_exists`: another mandate has the reference; `conflict`: revoked'),
      },
    },
    service.amendMandate,
  );

  app.post(
    '/sepa-mandates/:id/revoke',
    {
      config: write,
      schema: {
        tags,
        summary: 'Revoke a SEPA mandate',
        description: `${BEYOND} Nothing more is collected on it (409 \`conflict\` when it is revoked already). Files written before keep their collections.`,
        params: IdParams,
        body: EmptyBody,
        response: {
          200: Data(SepaMandate),
          409: problemResponse('`conflict`: revoked already'),
        },
      },
    },
    async (req) => ({ data: await service.revokeMandate(app.db, req.auth, req.params.id) }),
  );
};

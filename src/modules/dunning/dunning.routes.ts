import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { documentMailRoutes, getRoute, listRoute } from '../../shared/route-builders.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import { DocumentSendBody, MailMessage, toMailMessage } from '../mail/mail.public.js';
import { Invoice, pdfRoute } from '../outgoing-invoices/outgoing-invoices.public.js';
import {
  BaseRate,
  BaseRateBody,
  BaseRateParams,
  Letter,
  LetterListQuery,
  Levels,
  LevelsBody,
  NumberSeries,
  NumberSeriesQuery,
  RunBody,
  RunResult,
} from './dunning.schemas.js';
import * as service from './dunning.service.js';
import { listLetterMessages, sendLetter } from './send.service.js';

const tags = ['Dunning'];
const read = { scopes: ['dunning:read'] };
const write = { scopes: ['dunning:write'] };

export const dunningRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/dunning/levels',
    {
      config: read,
      schema: {
        tags,
        summary: 'The dunning levels',
        description:
          'Beyond the specification (issue 39). The ordered levels of the account (by default a payment reminder without a fee, then a first and a second dunning letter) with their days, fee, interest and lump-sum options, delivery and texts.',
        response: { 200: Data(Levels) },
      },
    },
    async (req) => ({ data: await service.getLevels(app.db, req.auth) }),
  );

  app.put(
    '/dunning/levels',
    {
      config: write,
      schema: {
        tags,
        summary: 'Replace the dunning levels',
        description:
          'Beyond the specification (issue 39). The whole ordered list, 1 to 10 levels; letters already made keep their level number and texts. An unknown placeholder in a text is a 422 naming the field.',
        body: LevelsBody,
        response: { 200: Data(Levels) },
      },
    },
    async (req) => ({ data: await service.putLevels(app.db, req.auth, req.body) }),
  );

  app.get(
    '/dunning/base-rates',
    {
      config: read,
      schema: {
        tags,
        summary: 'The base rates of default interest',
        description:
          'Beyond the specification (issue 39). The base rates (Basiszinssatz, § 247 BGB) by the day each took effect: the published values the service ships since 1 January 2002, and the account’s own, which extend the table and win on the same date.',
        response: { 200: Data(Type.Array(BaseRate)) },
      },
    },
    async (req) => ({ data: await service.listBaseRates(app.db, req.auth) }),
  );

  app.put(
    '/dunning/base-rates/:valid_from',
    {
      config: write,
      schema: {
        tags,
        summary: 'Set a base rate',
        description:
          'Beyond the specification (issue 39). Sets the base rate in force from `valid_from` (a 1 January or 1 July) for this account; letters already made keep their interest.',
        params: BaseRateParams,
        body: BaseRateBody,
        response: { 200: Data(BaseRate) },
      },
    },
    async (req) => ({
      data: await service.putBaseRate(app.db, req.auth, req.params.valid_from, req.body.rate),
    }),
  );

  app.post(
    '/dunning/run',
    {
      config: write,
      schema: {
        tags,
        summary: 'Run dunning',
        description:
          'Beyond the specification (issue 39). For every booked invoice, partial or final invoice that is due before `date`, not fully paid, not credited and whose client is not `dunning_blocked`: the next level whose time has come, one letter each. Idempotent: a second run on the same day makes nothing more, and concurrent runs make each letter once. The open and sent letters of paid invoices become `settled`. `dry_run` only answers what would be made.',
        body: RunBody,
        response: { 200: Data(RunResult) },
      },
    },
    async (req) => ({ data: await service.run(app.db, req.auth, req.body, undefined, app.config.mail) }),
  );

  listRoute(
    app,
    {
      path: '/dunning/number-series',
      tags,
      config: read,
      summary: 'Dunning letter number series and their gaps',
      description:
        'Beyond the specification (issue 39). The letters’ own numbers, `MA-{YYYY}-{NNNNN}`, one series per year of the letter’s date: the last number and whether every number 1 … last is held by a letter. Numbers are taken in the letter’s transaction (a rolled-back letter hands its number back) and letters are never deleted.',
      querystring: NumberSeriesQuery,
      item: NumberSeries,
    },
    service.listNumberSeries,
  );

  listRoute(
    app,
    {
      path: '/dunnings',
      tags,
      config: read,
      summary: 'List dunning letters',
      description:
        'Beyond the specification (issue 39). Filters: `invoice_id`, `client_id`, `level`, `status`, and `date_from`/`date_to` on the letter’s date.',
      querystring: LetterListQuery,
      item: Letter,
    },
    service.listLetters,
    service.toLetter,
  );

  getRoute(
    app,
    {
      path: '/dunnings/:id',
      tags,
      config: read,
      summary: 'Read a dunning letter',
      description: 'Beyond the specification (issue 39).',
      item: Letter,
    },
    service.getLetter,
    service.toLetter,
  );

  pdfRoute(
    app,
    {
      path: '/dunnings',
      tags,
      config: read,
      summary: 'Download the PDF of a dunning letter',
      description:
        'Beyond the specification (issue 39). The letter in the client’s language (German for `de`, English otherwise): letterhead and footer as on invoices, the subject and text, what is claimed, and the interest periods.',
    },
    service.letterPdf,
  );

  app.post(
    '/dunnings/:id/invoice-charges',
    {
      config: { scopes: ['dunning:write', 'outgoing-invoice:write'] },
      schema: {
        tags,
        summary: 'Invoice a letter’s fee and interest',
        description:
          'Beyond the specification (issue 39). Makes an invoice (status `open`, to be booked as any other) of the letter’s fee, lump sum and interest, without VAT: default interest and dunning fees are damages, not a supply (`tax_exemption_category` O). Once per letter: the letter names the invoice in `charges_invoice_id`; again, or on a cancelled letter or one that claims nothing, a 409.',
        params: IdParams,
        response: {
          201: Data(Invoice),
          409: problemResponse('`conflict`: invoiced already, cancelled, or nothing to invoice'),
        },
      },
    },
    async (req, reply) => {
      const invoice = await service.invoiceCharges(app.db, req.auth, req.params.id);
      reply.code(201).header('location', `${app.prefix}/outgoing-invoices/${invoice.id}`);
      return { data: invoice };
    },
  );

  documentMailRoutes(
    app,
    {
      path: '/dunnings',
      tags,
      message: MailMessage,
      send: {
        config: write,
        summary: 'E-mail a dunning letter',
        description: [
          'Beyond the specification (issue 39). Queues an e-mail with the letter’s PDF attached, byte for byte what',
          '`GET /dunnings/{id}/pdf` answers, to the client’s `invoice_email`, else its `email` (or `to`). Its text is',
          'the letter’s subject and text; `language` other than the letter’s takes the level’s texts in that language;',
          '`subject` and `message` replace them, placeholders of the levels filled in. An open letter becomes `sent`',
          'when the message is queued (`dunning:sent`, once per letter); a sent one may be sent again.',
          '`GET /dunnings/{id}/messages` shows whether the relay took it. Refusals: `409 conflict` for a cancelled or',
          'settled letter; `503 mail_not_configured` without SMTP_URL.',
        ].join(' '),
        body: DocumentSendBody,
        responses: { 409: problemResponse('`conflict`: the letter is cancelled or settled') },
      },
      messages: {
        config: read,
        summary: 'List the e-mails of a dunning letter',
        description:
          'Beyond the specification (issue 39). Every message sent or queued for the letter, oldest first, with its state and the relay’s answer.',
      },
    },
    sendLetter,
    listLetterMessages,
    toMailMessage,
  );

  app.post(
    '/dunnings/:id/cancel',
    {
      config: write,
      schema: {
        tags,
        summary: 'Cancel a dunning letter',
        description:
          'Beyond the specification (issue 39). Withdraws an open or sent letter: its claims are void, its number stays taken, and the run does not make its level again. Cancelling a cancelled letter changes nothing; a settled one is a 409.',
        params: IdParams,
        response: { 200: Data(Letter), 409: problemResponse('`conflict`: the letter is settled') },
      },
    },
    async (req) => ({ data: service.toLetter(await service.cancelLetter(app.db, req.auth, req.params.id)) }),
  );
};

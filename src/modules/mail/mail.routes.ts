import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { documentMailRoutes } from '../../shared/route-builders.js';
import { Data } from '../../shared/schemas.js';
import { DocumentSendBody, MailMessage, MailTemplate, SendBody, TemplatesBody } from './mail.schemas.js';
import * as service from './mail.service.js';

const tags = ['Outgoing invoices'];
const ADMIN_ONLY = 'For a token whose user is an administrator of the account (403 `forbidden` otherwise).';

/** Sending documents by e-mail (issue 38), beside the documents' own routes. */
export const mailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  documentMailRoutes(
    app,
    {
      path: '/outgoing-invoices',
      tags,
      message: MailMessage,
      send: {
        config: { scopes: ['outgoing-invoice:send'] },
        summary: 'E-mail a booked invoice or credit',
        description: [
          'Queues an e-mail with the document attached as the client’s `einvoice_format` asks: `zugferd` the PDF',
          '(PDF/A-3 with the embedded CII XML), `xrechnung_cii` / `xrechnung_ubl` the XML alone, `pdf_and_xrechnung`',
          'the PDF and the UBL XML — byte for byte what `GET …/pdf` and `GET …/xml` answer. A worker sends it',
          'through the relay of SMTP_URL, retrying a 4xx answer or an unreachable relay with back-off; `202` answers',
          'the queued message, `GET …/messages` shows how it went. Refusals: `409 not_booked` for drafts and plan',
          'masters (unless `book: true`, which books the draft first and needs `outgoing-invoice:book` too);',
          '`422 einvoice_invalid` when the document breaks a rule of the format (each error names the rule,',
          'e.g. `BR-DE-15`, and the field) — nothing is queued; `503 mail_not_configured` without SMTP_URL.',
        ].join(' '),
        body: SendBody,
      },
      messages: {
        config: { scopes: ['outgoing-invoice:read'] },
        summary: 'List the e-mails of an invoice',
        description:
          'Every message sent or queued for the invoice, oldest first, with its state and the relay’s answer.',
      },
    },
    service.sendInvoice,
    service.listInvoiceMessages,
    service.toMailMessage,
  );

  documentMailRoutes(
    app,
    {
      path: '/offers',
      tags: ['Offers'],
      message: MailMessage,
      send: {
        config: { scopes: ['offer:send'] },
        summary: 'E-mail an offer',
        description: [
          'Beyond the specification (issue 38). Queues an e-mail with the offer’s PDF attached, byte for byte what',
          '`GET /offers/{id}/pdf` answers; texts from the account’s `offer` template of the language, recipients as for',
          'invoices (the client’s `invoice_email`, else the contact’s e-mail, else the client’s `email`). A `created`',
          'offer becomes `sent`. `202` answers the queued message, `GET /offers/{id}/messages` shows how it went.',
          'Refusals: `409 offer_not_open` for an accepted, declined or invoiced offer; `503 mail_not_configured`',
          'without SMTP_URL.',
        ].join(' '),
        body: DocumentSendBody,
      },
      messages: {
        config: { scopes: ['offer:read'] },
        summary: 'List the e-mails of an offer',
        description:
          'Beyond the specification (issue 38). Every message sent or queued for the offer, oldest first, with its state and the relay’s answer.',
      },
    },
    service.sendOffer,
    service.listOfferMessages,
    service.toMailMessage,
  );

  app.get(
    '/account/profile/mail-templates',
    {
      config: { scopes: ['account:read'] },
      schema: {
        tags: ['Account'],
        summary: 'List the e-mail texts',
        description: `The subject and text of the e-mail that carries an invoice, a credit or an offer, in German and English: the account's own, or the built-in one (\`built_in\`). ${ADMIN_ONLY}`,
        response: { 200: Data(Type.Array(MailTemplate)) },
      },
    },
    async (req) => ({ data: await service.listTemplates(app.db, req.auth) }),
  );

  app.put(
    '/account/profile/mail-templates',
    {
      config: { scopes: ['account:write'] },
      schema: {
        tags: ['Account'],
        summary: 'Set the e-mail texts',
        description: `Replaces the account's own texts: the languages and kinds given get them, the others the built-in ones again (\`{"templates": []}\` resets all); the next message uses them. Answers the list as \`GET\` does. ${ADMIN_ONLY}`,
        body: TemplatesBody,
        response: { 200: Data(Type.Array(MailTemplate)) },
      },
    },
    async (req) => ({ data: await service.setTemplates(app.db, req.auth, req.body) }),
  );
};

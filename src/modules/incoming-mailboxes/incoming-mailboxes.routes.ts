import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listResponse } from '../../shared/paging.js';
import { createRoute, described, getRoute, listRoute, updateRoute } from '../../shared/route-builders.js';
import { IdParams, List } from '../../shared/schemas.js';
import {
  Mailbox,
  MailboxCreate,
  MailboxListQuery,
  MailboxLogEntry,
  MailboxUpdate,
} from './incoming-mailboxes.schemas.js';
import * as service from './incoming-mailboxes.service.js';

const tags = ['Incoming mailboxes'];
const read = { tags, config: { scopes: ['incoming-invoice:read'] } };
const write = { tags, config: { scopes: ['incoming-invoice:write'] } };

/** Beyond the specification (issue 42): IMAP mailboxes whose invoices come in by themselves. */
export const incomingMailboxesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const key = app.config.secretKey;
  const allowPrivate = app.config.mailboxAllowPrivate;

  listRoute(
    app,
    {
      ...read,
      path: '/incoming-mailboxes',
      summary: 'List connected mailboxes',
      description:
        'Beyond the specification. Each with the state of its last poll; passwords are never answered.',
      querystring: MailboxListQuery,
      item: Mailbox,
    },
    service.listMailboxes,
    service.toMailbox,
  );

  createRoute(
    app,
    {
      ...write,
      path: '/incoming-mailboxes',
      summary: 'Connect a mailbox',
      description:
        'Beyond the specification. An IMAP mailbox whose mail is read into incoming invoices: each PDF, XML or image attached (and an e-invoice as the body) becomes a document with its `source` (mailbox, message id, sender, subject). A message is taken once (by Message-ID) and then flagged read or moved; a file already stored (same MD5) is logged as a duplicate of that document instead. The password is stored encrypted. A poll that fails (wrong password, server down) shows in `status`/`last_error` and is retried after 1, 2, 4 … minutes (at most an hour); other mailboxes go on.',
      body: MailboxCreate,
      response: Mailbox,
      location: '/incoming-mailboxes',
    },
    (db, auth, body) => service.createMailbox(db, auth, body, key, allowPrivate),
    service.toMailbox,
  );

  getRoute(
    app,
    { ...read, path: '/incoming-mailboxes/:id', summary: 'Retrieve a mailbox', item: Mailbox },
    service.getMailbox,
    service.toMailbox,
  );

  updateRoute(
    app,
    {
      ...write,
      path: '/incoming-mailboxes/:id',
      summary: 'Change a mailbox',
      description: 'Beyond the specification. The mailbox is polled again at once (its back-off is reset).',
      body: MailboxUpdate,
      item: Mailbox,
    },
    (db, auth, id, body) => service.updateMailbox(db, auth, id, body, key, allowPrivate),
    service.toMailbox,
  );

  app.delete(
    '/incoming-mailboxes/:id',
    {
      config: write.config,
      schema: {
        tags,
        summary: 'Disconnect a mailbox',
        description: 'Beyond the specification. Its documents stay (their `source` keeps the message).',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Disconnected' }) },
      },
    },
    async (req, reply) => {
      await service.deleteMailbox(app.db, req.auth, req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/incoming-mailboxes/:id/log',
    {
      config: read.config,
      schema: {
        ...described({
          tags,
          summary: 'The log of a mailbox',
          description:
            'Beyond the specification. What each poll did, oldest first: documents created, duplicates found (with the document they duplicate), messages skipped, errors.',
        }),
        params: IdParams,
        querystring: MailboxListQuery,
        response: { 200: List(MailboxLogEntry) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listLog(app.db, req.auth, req.params.id, req.query),
        service.toLogEntry,
      ),
  );
};

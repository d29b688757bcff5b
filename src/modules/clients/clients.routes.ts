import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hasScopePrefix } from '../../plugins/auth.js';
import { archivableRoutes } from '../../shared/archivable.js';
import { externalIdDescription } from '../../shared/external-id.js';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import {
  ClientBasic,
  ClientCreate,
  ClientFull,
  ClientListQuery,
  ClientUpdate,
  ShortcodeBody,
} from './clients.schemas.js';
import * as service from './clients.service.js';

const tags = ['Clients'];

export const clientsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/clients',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'List clients (basic data)',
        querystring: ClientListQuery,
        response: { 200: List(ClientBasic) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listClients(app.db, req.auth, req.query), service.toClientBasic),
  );

  app.get(
    '/clients/full',
    {
      config: { scopes: ['client:read'] },
      schema: {
        tags,
        summary: 'List clients (ClientFullData)',
        querystring: ClientListQuery,
        response: { 200: List(ClientFull) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listClientsFull(app.db, req.auth, req.query),
        service.toClientFull,
      ),
  );

  app.post(
    '/clients',
    {
      config: { scopes: ['client:write'] },
      schema: { tags, summary: 'Create a client', body: ClientCreate, response: { 201: Data(ClientFull) } },
    },
    async (req, reply) => {
      const row = await service.createClient(app.db, req.auth, req.body);
      reply.code(201).header('location', `${app.prefix}/clients/${row.id}`);
      return { data: service.toClientFull(row) };
    },
  );

  app.get(
    '/clients/:id',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'Retrieve a client',
        description: 'Returns ClientFullData when the token holds any `client:` scope, basic data otherwise.',
        params: IdParams,
        response: { 200: Data(Type.Union([ClientFull, ClientBasic])) },
      },
    },
    async (req, reply) => {
      const row = await service.getClient(app.db, req.auth, req.params.id);
      const data = hasScopePrefix(req.auth, 'client:')
        ? service.toClientFull(row)
        : service.toClientBasic(row);
      // The answer is exactly one of the two mapped forms: plain JSON.stringify is safe, and
      // spares the serializer from testing the body against each member of the union.
      reply.type('application/json; charset=utf-8').serializer(JSON.stringify);
      return { data };
    },
  );

  app.patch(
    '/clients/:id',
    {
      config: { scopes: ['client:write'] },
      schema: {
        tags,
        summary: 'Update a client',
        description:
          '`external_id` and `shortcode` are not changed here (they have their own endpoints) and are ignored.',
        params: IdParams,
        body: ClientUpdate,
        response: { 200: Data(ClientFull) },
      },
    },
    async (req) => ({
      data: service.toClientFull(await service.updateClient(app.db, req.auth, req.params.id, req.body)),
    }),
  );

  archivableRoutes(
    app,
    {
      path: '/clients',
      tags,
      write: { scopes: ['client:write'] },
      schema: ClientFull,
      toData: service.toClientFull,
      setArchived: service.setArchived,
      setExternalId: service.setExternalId,
    },
    {
      archive: { summary: 'Archive a client' },
      restore: { summary: 'Restore an archived client' },
      externalId: { description: externalIdDescription(null) },
    },
  );

  app.put(
    '/clients/:id/shortcode',
    {
      config: { scopes: ['client:write'] },
      schema: {
        tags,
        summary: 'Set the shortcode',
        description: 'Shortcodes are unique within the account: 409 `shortcode_taken` otherwise.',
        params: IdParams,
        body: ShortcodeBody,
        response: { 200: Data(ClientFull) },
      },
    },
    async (req) => {
      const row = await service.setShortcode(app.db, req.auth, req.params.id, req.body.shortcode);
      return { data: service.toClientFull(row) };
    },
  );
};

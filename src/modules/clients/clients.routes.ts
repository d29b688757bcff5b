import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from 'typebox';
import type { Db } from '../../db/index.js';
import { type AuthContext, hasScopePrefix } from '../../plugins/auth.js';
import { archivableRoutes, createRoute, updateRoute } from '../../shared/archivable.js';
import { externalIdDescription } from '../../shared/external-id.js';
import { listResponse, type Page } from '../../shared/paging.js';
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
const write = { scopes: ['client:write'] };
const spec = {
  path: '/clients',
  tags,
  write,
  schema: ClientFull,
  toData: service.toClientFull,
  create: ClientCreate,
  insert: service.createClient,
  update: ClientUpdate,
  change: service.updateClient,
  setArchived: service.setArchived,
  setExternalId: service.setExternalId,
};

export const clientsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /** The two lists: basic data for every token, ClientFullData with `client:read`. */
  const listRoute = <T>(
    path: string,
    scopes: string[],
    summary: string,
    schema: TSchema,
    list: (db: Db, auth: AuthContext, q: ClientListQuery) => Promise<Page<T>>,
    map: (row: T) => unknown,
  ) =>
    app.get(
      path,
      {
        config: { scopes, pageCache: ['clients'] },
        schema: { tags, summary, querystring: ClientListQuery, response: { 200: List(schema) } },
      },
      async (req, reply) => listResponse(req, reply, await list(app.db, req.auth, req.query), map),
    );
  listRoute(
    '/clients',
    [],
    'List clients (basic data)',
    ClientBasic,
    service.listClients,
    service.toClientBasic,
  );
  listRoute(
    '/clients/full',
    ['client:read'],
    'List clients (ClientFullData)',
    ClientFull,
    service.listClientsFull,
    service.toClientFull,
  );

  createRoute(app, spec, { summary: 'Create a client' });

  app.get(
    '/clients/:id',
    {
      config: { scopes: [], pageCache: ['clients'] },
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

  updateRoute(app, spec, {
    summary: 'Update a client',
    description:
      '`external_id` and `shortcode` are not changed here (they have their own endpoints) and are ignored.',
  });

  archivableRoutes(app, spec, {
    archive: { summary: 'Archive a client' },
    restore: { summary: 'Restore an archived client' },
    externalId: { description: externalIdDescription(null) },
  });

  app.put(
    '/clients/:id/shortcode',
    {
      config: write,
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

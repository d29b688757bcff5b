import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import { Supplier, SupplierCreate, SupplierListQuery, SupplierUpdate } from './suppliers.schemas.js';
import * as service from './suppliers.service.js';

const tags = ['Suppliers'];

export const suppliersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/suppliers',
    {
      config: { scopes: ['incoming-invoice:read'] },
      schema: {
        tags,
        summary: 'List suppliers',
        querystring: SupplierListQuery,
        response: { 200: List(Supplier) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listSuppliers(app.db, req.auth, req.query), service.toSupplier),
  );

  app.post(
    '/suppliers',
    {
      config: { scopes: ['incoming-invoice:write'] },
      schema: { tags, summary: 'Create a supplier', body: SupplierCreate, response: { 201: Data(Supplier) } },
    },
    async (req, reply) => {
      const row = await service.createSupplier(app.db, req.auth, req.body);
      reply.code(201).header('location', `${app.prefix}/suppliers/${row.id}`);
      return { data: service.toSupplier(row) };
    },
  );

  app.get(
    '/suppliers/:id',
    {
      config: { scopes: ['incoming-invoice:read'] },
      schema: { tags, summary: 'Retrieve a supplier', params: IdParams, response: { 200: Data(Supplier) } },
    },
    async (req) => ({ data: service.toSupplier(await service.getSupplier(app.db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/suppliers/:id',
    {
      config: { scopes: ['incoming-invoice:write'] },
      schema: {
        tags,
        summary: 'Update a supplier',
        params: IdParams,
        body: SupplierUpdate,
        response: { 200: Data(Supplier) },
      },
    },
    async (req) => ({
      data: service.toSupplier(await service.updateSupplier(app.db, req.auth, req.params.id, req.body)),
    }),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createRoute, getRoute, listRoute, updateRoute } from '../../shared/route-builders.js';
import { Supplier, SupplierCreate, SupplierListQuery, SupplierUpdate } from './suppliers.schemas.js';
import * as service from './suppliers.service.js';

const tags = ['Suppliers'];
const read = { tags, config: { scopes: ['incoming-invoice:read'] } };
const write = { tags, config: { scopes: ['incoming-invoice:write'] } };

export const suppliersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      ...read,
      path: '/suppliers',
      summary: 'List suppliers',
      querystring: SupplierListQuery,
      item: Supplier,
    },
    service.listSuppliers,
    service.toSupplier,
  );

  createRoute(
    app,
    {
      ...write,
      path: '/suppliers',
      summary: 'Create a supplier',
      body: SupplierCreate,
      response: Supplier,
      location: '/suppliers',
    },
    service.createSupplier,
    service.toSupplier,
  );

  getRoute(
    app,
    { ...read, path: '/suppliers/:id', summary: 'Retrieve a supplier', item: Supplier },
    service.getSupplier,
    service.toSupplier,
  );

  updateRoute(
    app,
    { ...write, path: '/suppliers/:id', summary: 'Update a supplier', body: SupplierUpdate, item: Supplier },
    service.updateSupplier,
    service.toSupplier,
  );
};

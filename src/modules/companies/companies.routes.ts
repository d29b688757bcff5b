import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { archivableRoutes } from '../../shared/archivable.js';
import { externalIdDescription } from '../../shared/external-id.js';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List, problemResponse } from '../../shared/schemas.js';
import { Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';
import * as service from './companies.service.js';

const tags = ['Companies'];
const read = { scopes: ['contact-data:read'] };
const write = { scopes: ['contact-data:write'] };

export const companiesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/companies',
    {
      config: read,
      schema: {
        tags,
        summary: 'List companies',
        description:
          'Active companies ordered by id; `?archived=true` includes archived ones. Filters: `q` (name or email, case-insensitive substring), `external_id`, `updated_since`.',
        querystring: CompanyListQuery,
        response: { 200: List(Company) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listCompanies(app.db, req.auth, req.query), service.toCompany),
  );

  app.post(
    '/companies',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a company',
        description:
          'Records a `company:created` event. An `external_id` already held by another company is refused with 409 `external_id_taken`.',
        body: CompanyCreate,
        response: { 201: Data(Company), 409: problemResponse('`external_id_taken`') },
      },
    },
    async (req, reply) => {
      const row = await service.createCompany(app.db, req.auth, req.body);
      reply.code(201).header('location', `${app.prefix}/companies/${row.id}`);
      return { data: service.toCompany(row) };
    },
  );

  app.get(
    '/companies/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Retrieve a company',
        description: 'Archived companies stay readable here, with `archived_at` set.',
        params: IdParams,
        response: { 200: Data(Company) },
      },
    },
    async (req) => ({ data: service.toCompany(await service.getCompany(app.db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/companies/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update a company',
        description:
          'Changes the fields given. `external_id` is not changed here (see PUT …/external-identifier) and is ignored. `custom_fields` values are checked against the definitions of GET /custom-fields; keys left out keep their value, `null` clears one. A body with nothing to change answers the record unchanged. Otherwise records a `company:updated` event.',
        params: IdParams,
        body: CompanyUpdate,
        response: { 200: Data(Company) },
      },
    },
    async (req) => ({
      data: service.toCompany(await service.updateCompany(app.db, req.auth, req.params.id, req.body)),
    }),
  );

  archivableRoutes(
    app,
    {
      path: '/companies',
      tags,
      write,
      schema: Company,
      toData: service.toCompany,
      setArchived: service.setArchived,
      setExternalId: service.setExternalId,
    },
    {
      archive: {
        summary: 'Archive a company',
        description:
          'Soft delete: the company leaves the lists but stays readable by id with `archived_at`. Records a `company:deleted` event; archiving an archived company changes nothing. Contacts stay attached; new contacts cannot be attached to an archived company.',
      },
      restore: {
        summary: 'Restore an archived company',
        description:
          'Makes the company active again and records a `company:updated` event; restoring an active company changes nothing.',
      },
      externalId: { description: externalIdDescription({ noun: 'company', event: 'company:updated' }) },
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recordRoutes } from '../../shared/archivable.js';
import { externalIdDescription } from '../../shared/external-id.js';
import { Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';
import * as service from './companies.service.js';

export const companiesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  recordRoutes(
    app,
    {
      path: '/companies',
      tags: ['Companies'],
      read: { scopes: ['contact-data:read'] },
      reads: ['companies'],
      write: { scopes: ['contact-data:write'] },
      schema: Company,
      query: CompanyListQuery,
      create: CompanyCreate,
      update: CompanyUpdate,
      toData: service.toCompany,
      list: service.listCompanies,
      insert: service.createCompany,
      get: service.getCompany,
      change: service.updateCompany,
      setArchived: service.setArchived,
      setExternalId: service.setExternalId,
    },
    {
      list: {
        summary: 'List companies',
        description:
          'Active companies ordered by id; `?archived=true` includes archived ones. Filters: `q` (name or email, case-insensitive substring), `external_id`, `updated_since`.',
      },
      create: {
        summary: 'Create a company',
        description:
          'Records a `company:created` event. An `external_id` already held by another company is refused with 409 `external_id_taken`.',
        conflict: '`external_id_taken`',
      },
      get: {
        summary: 'Retrieve a company',
        description: 'Archived companies stay readable here, with `archived_at` set.',
      },
      update: {
        summary: 'Update a company',
        description:
          'Changes the fields given. `external_id` is not changed here (see PUT …/external-identifier) and is ignored. `custom_fields` values are checked against the definitions of GET /custom-fields; keys left out keep their value, `null` clears one. A body with nothing to change answers the record unchanged. Otherwise records a `company:updated` event.',
      },
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

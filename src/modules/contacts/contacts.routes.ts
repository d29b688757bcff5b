import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recordRoutes } from '../../shared/archivable.js';
import { externalIdDescription } from '../../shared/external-id.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import { AttachBody, Contact, ContactCreate, ContactListQuery, ContactUpdate } from './contacts.schemas.js';
import * as service from './contacts.service.js';

const tags = ['Contacts'];
const write = { scopes: ['contact-data:write'] };

export const contactsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  recordRoutes(
    app,
    {
      path: '/contacts',
      tags,
      read: { scopes: ['contact-data:read'] },
      reads: ['contacts', 'companies'],
      write,
      schema: Contact,
      query: ContactListQuery,
      create: ContactCreate,
      update: ContactUpdate,
      toData: service.toContact,
      list: service.listContacts,
      insert: service.createContact,
      get: service.getContact,
      change: service.updateContact,
      setArchived: service.setArchived,
      setExternalId: service.setExternalId,
    },
    {
      list: {
        summary: 'List contacts',
        description:
          'Active contacts ordered by id; `?archived=true` includes archived ones. Filters: `q` (name, email or company name, case-insensitive substring), `external_id`, `company_id`, `updated_since`.',
      },
      create: {
        summary: 'Create a contact',
        description:
          'Records a `contact:created` event. `company_id` attaches the new contact to a company: an unknown company is refused with 422 `invalid_reference`, an archived one with 409 `conflict`. An `external_id` already held by another contact is refused with 409 `external_id_taken`.',
        conflict: '`external_id_taken`, or `conflict`: the company is archived',
      },
      get: {
        summary: 'Retrieve a contact',
        description: 'Archived contacts stay readable here, with `archived_at` set.',
      },
      update: {
        summary: 'Update a contact',
        description:
          'Changes the fields given. `external_id` and `company_id` are not changed here (see PUT …/external-identifier and …/company/attach|detach) and are ignored. `custom_fields` values are checked against the definitions of GET /custom-fields; keys left out keep their value, `null` clears one. A body with nothing to change answers the record unchanged. Otherwise records a `contact:update` event.',
      },
      archive: {
        summary: 'Archive a contact',
        description:
          'Soft delete: the contact leaves the lists but stays readable by id with `archived_at`. Records a `contact:deleted` event; archiving an archived contact changes nothing.',
      },
      restore: {
        summary: 'Restore an archived contact',
        description:
          'Makes the contact active again and records a `contact:update` event; restoring an active contact changes nothing.',
      },
      externalId: { description: externalIdDescription({ noun: 'contact', event: 'contact:update' }) },
    },
  );

  app.put(
    '/contacts/:id/company/attach',
    {
      config: write,
      schema: {
        tags,
        summary: 'Attach the contact to a company',
        description:
          'A contact has at most one company: attaching replaces the company it had, and records a `contact:update` event (attaching to the company it already has changes nothing). A company that does not exist in this account is refused with 422 `invalid_reference`; an archived company with 409 `conflict`.',
        params: IdParams,
        body: AttachBody,
        response: { 200: Data(Contact), 409: problemResponse('`conflict`: the company is archived') },
      },
    },
    async (req) => ({
      data: service.toContact(await service.attach(app.db, req.auth, req.params.id, req.body.company_id)),
    }),
  );

  app.put(
    '/contacts/:id/company/detach',
    {
      config: write,
      schema: {
        tags,
        summary: 'Detach the contact from its company',
        description:
          'Removes the company link and records a `contact:update` event. A contact without a company is refused with 409 `conflict`.',
        params: IdParams,
        response: { 200: Data(Contact), 409: problemResponse('`conflict`: no company is attached') },
      },
    },
    async (req) => ({ data: service.toContact(await service.detach(app.db, req.auth, req.params.id)) }),
  );
};

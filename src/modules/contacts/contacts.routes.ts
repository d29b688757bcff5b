import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { archivableRoutes } from '../../shared/archivable.js';
import { externalIdDescription } from '../../shared/external-id.js';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List, problemResponse } from '../../shared/schemas.js';
import { AttachBody, Contact, ContactCreate, ContactListQuery, ContactUpdate } from './contacts.schemas.js';
import * as service from './contacts.service.js';

const tags = ['Contacts'];
const read = { scopes: ['contact-data:read'] };
const write = { scopes: ['contact-data:write'] };

export const contactsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/contacts',
    {
      config: read,
      schema: {
        tags,
        summary: 'List contacts',
        description:
          'Active contacts ordered by id; `?archived=true` includes archived ones. Filters: `q` (name, email or company name, case-insensitive substring), `external_id`, `company_id`, `updated_since`.',
        querystring: ContactListQuery,
        response: { 200: List(Contact) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listContacts(app.db, req.auth, req.query), service.toContact),
  );

  app.post(
    '/contacts',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a contact',
        description:
          'Records a `contact:created` event. `company_id` attaches the new contact to a company: an unknown company is refused with 422 `invalid_reference`, an archived one with 409 `conflict`. An `external_id` already held by another contact is refused with 409 `external_id_taken`.',
        body: ContactCreate,
        response: {
          201: Data(Contact),
          409: problemResponse('`external_id_taken`, or `conflict`: the company is archived'),
        },
      },
    },
    async (req, reply) => {
      const row = await service.createContact(app.db, req.auth, req.body);
      reply.code(201).header('location', `${app.prefix}/contacts/${row.id}`);
      return { data: service.toContact(row) };
    },
  );

  app.get(
    '/contacts/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Retrieve a contact',
        description: 'Archived contacts stay readable here, with `archived_at` set.',
        params: IdParams,
        response: { 200: Data(Contact) },
      },
    },
    async (req) => ({ data: service.toContact(await service.getContact(app.db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/contacts/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update a contact',
        description:
          'Changes the fields given. `external_id` and `company_id` are not changed here (see PUT …/external-identifier and …/company/attach|detach) and are ignored. `custom_fields` values are checked against the definitions of GET /custom-fields; keys left out keep their value, `null` clears one. A body with nothing to change answers the record unchanged. Otherwise records a `contact:update` event.',
        params: IdParams,
        body: ContactUpdate,
        response: { 200: Data(Contact) },
      },
    },
    async (req) => ({
      data: service.toContact(await service.updateContact(app.db, req.auth, req.params.id, req.body)),
    }),
  );

  archivableRoutes(
    app,
    {
      path: '/contacts',
      tags,
      write,
      schema: Contact,
      toData: service.toContact,
      setArchived: service.setArchived,
      setExternalId: service.setExternalId,
    },
    {
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

import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { customFieldRecords } from '../../shared/archivable.js';
import { AppError } from '../../shared/errors.js';
import { attachableCompany } from '../companies/companies.service.js';
import { parseCustomFieldValues, validateCustomFields } from '../custom-fields/custom-fields.public.js';
import type { ContactRow } from './contacts.repository.js';
import * as repo from './contacts.repository.js';
import type { Contact, ContactCreate, ContactListQuery, ContactUpdate } from './contacts.schemas.js';

export function toContact(r: Omit<ContactRow, 'search_text'>): Contact {
  return {
    id: r.id,
    external_id: r.external_id,
    company_id: r.company_id,
    salutation: r.salutation,
    title: r.title,
    first_name: r.first_name,
    last_name: r.last_name,
    email: r.email,
    phone: r.phone,
    mobile: r.mobile,
    position: r.position,
    department: r.department,
    street: r.street,
    zip: r.zip,
    city: r.city,
    country_code: r.country_code,
    notes: r.notes,
    custom_fields: parseCustomFieldValues(r.custom_fields),
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const contacts = customFieldRecords({
  noun: 'Contact',
  find: repo.findContact,
  findByExternalId: repo.findContactByExternalId,
  update: repo.updateContact,
  insert: repo.insertContact,
  events: {
    resourceType: 'contact',
    toData: toContact,
    updated: 'contact:update',
    deleted: 'contact:deleted',
  },
  created: 'contact:created',
  entity: 'contact',
  validate: validateCustomFields,
  parse: parseCustomFieldValues,
  search: repo.contactSearch,
});

/**
 * Read (404 when not in the account), archive (DELETE) or restore, PUT …/external-identifier:
 * archiving records `contact:deleted`, restore and each external-identifier change `contact:update`.
 */
export const { get: getContact, setArchived, setExternalId } = contacts;
const change = contacts.change;

export const listContacts = (db: Db, auth: AuthContext, q: ContactListQuery) =>
  repo.listContacts(db, auth.accountId, q);

/** Records `contact:created`; `company_id` must be an active company of the account. */
export const createContact = (db: Db, auth: AuthContext, body: ContactCreate): Promise<ContactRow> =>
  contacts.create(db, auth, body, async (trx) => {
    if (body.company_id) await attachableCompany(trx, auth, body.company_id);
  });

/** Records `contact:update`, unless nothing differs. */
export const updateContact = (
  db: Db,
  auth: AuthContext,
  id: number,
  body: ContactUpdate,
): Promise<ContactRow> => contacts.update(db, auth, id, body);

/**
 * Attaches the contact to an active company of the account, replacing the company it had
 * (a contact has at most one). Attaching to the company it already has changes nothing.
 */
export function attach(db: Db, auth: AuthContext, id: number, companyId: number): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const current = await getContact(trx, auth, id);
    await attachableCompany(trx, auth, companyId);
    if (current.company_id === companyId) return current;
    return change(trx, auth, id, { company_id: companyId });
  });
}

export function detach(db: Db, auth: AuthContext, id: number): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const current = await getContact(trx, auth, id);
    if (current.company_id === null) {
      throw new AppError('conflict', `Contact ${id} is not attached to a company`, {
        errors: [{ field: 'company_id', message: 'no company is attached' }],
      });
    }
    return change(trx, auth, id, { company_id: null });
  });
}

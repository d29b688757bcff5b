import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { archivable } from '../../shared/archivable.js';
import { changesNothing } from '../../shared/changes.js';
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

const contacts = archivable({
  noun: 'Contact',
  find: repo.findContact,
  findByExternalId: repo.findContactByExternalId,
  update: repo.updateContact,
  events: {
    resourceType: 'contact',
    toData: toContact,
    updated: 'contact:update',
    deleted: 'contact:deleted',
  },
});

export const getContact = contacts.get;
/** Archive (DELETE, emits `contact:deleted`) or restore (emits `contact:update`). */
export const setArchived = contacts.setArchived;
/** PUT …/external-identifier; each changed contact records `contact:update`. */
export const setExternalId = contacts.setExternalId;
const change = contacts.change;

export const listContacts = (db: Db, auth: AuthContext, q: ContactListQuery) =>
  repo.listContacts(db, auth.accountId, q);

export function createContact(db: Db, auth: AuthContext, body: ContactCreate): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const { custom_fields, ...fields } = body;
    // Always validated on create, so that required custom fields are enforced.
    const custom = await validateCustomFields(trx, auth.accountId, 'contact', custom_fields);
    await contacts.assertExternalIdFree(trx, auth, body.external_id);
    if (body.company_id) await attachableCompany(trx, auth, body.company_id);
    const row = await repo.insertContact(trx, {
      ...fields,
      custom_fields: JSON.stringify(custom),
      account_id: auth.accountId,
    });
    await contacts.emit(trx, auth, 'contact:created', row);
    return row;
  });
}

export function updateContact(
  db: Db,
  auth: AuthContext,
  id: number,
  body: ContactUpdate,
): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const current = await getContact(trx, auth, id);
    const { custom_fields, ...fields } = body;
    const custom =
      custom_fields === undefined
        ? undefined
        : await validateCustomFields(trx, auth.accountId, 'contact', custom_fields, {
            current: parseCustomFieldValues(current.custom_fields),
          });
    const values = {
      ...fields,
      ...(custom ? { custom_fields: JSON.stringify(custom) } : {}),
      ...repo.contactSearch({ ...current, ...fields }),
    };
    // Nothing that differs (only ignored keys, or the current values): nothing is written or recorded.
    if (changesNothing(current, values)) return current;
    return change(trx, auth, id, values);
  });
}

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

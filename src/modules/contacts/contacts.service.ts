import type { Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, notFound } from '../../shared/errors.js';
import { type EventKind, recordEvent } from '../../shared/events.js';
import { nowIso } from '../../shared/time.js';
import { attachableCompany } from '../companies/companies.service.js';
import { decideExternalId, type ExternalIdBody } from '../companies/contact-data.js';
import { parseCustomFieldValues, validateCustomFields } from '../custom-fields/custom-fields.service.js';
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

/** Records `kind` with the contact exactly as the API returns it, in the change's transaction. */
function emit(trx: Transaction<Database>, auth: AuthContext, kind: EventKind, row: ContactRow) {
  return recordEvent(trx, {
    accountId: auth.accountId,
    kind,
    resourceType: 'contact',
    resourceId: row.id,
    data: toContact(row),
    integrationId: auth.integrationId,
  });
}

/** Applies a change to one contact and records `contact:update` with the result. */
async function change(
  trx: Transaction<Database>,
  auth: AuthContext,
  id: number,
  values: Parameters<typeof repo.updateContact>[3],
  kind: EventKind = 'contact:update',
): Promise<ContactRow> {
  const row = await repo.updateContact(trx, auth.accountId, id, { ...values, updated_at: nowIso() });
  if (!row) throw notFound('Contact');
  await emit(trx, auth, kind, row);
  return row;
}

export async function getContact(db: Db, auth: AuthContext, id: number): Promise<ContactRow> {
  const row = await repo.findContact(db, auth.accountId, id);
  if (!row) throw notFound('Contact');
  return row;
}

export const listContacts = (db: Db, auth: AuthContext, q: ContactListQuery) =>
  repo.listContacts(db, auth.accountId, q);

export function createContact(db: Db, auth: AuthContext, body: ContactCreate): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const { custom_fields, ...fields } = body;
    // Always validated on create, so that required custom fields are enforced.
    const custom = await validateCustomFields(trx, auth.accountId, 'contact', custom_fields);
    if (body.external_id) {
      const holder = await repo.findContactByExternalId(trx, auth.accountId, body.external_id);
      if (holder) {
        throw new AppError(
          'external_id_taken',
          `Contact ${holder.id} already has external_id "${body.external_id}"`,
          { errors: [{ field: 'external_id', message: 'is already in use' }] },
        );
      }
    }
    if (body.company_id) await attachableCompany(trx, auth, body.company_id);
    const row = await repo.insertContact(trx, {
      ...fields,
      custom_fields: JSON.stringify(custom),
      account_id: auth.accountId,
    });
    await emit(trx, auth, 'contact:created', row);
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
 * Archive (DELETE, emits `contact:deleted`) or restore (emits `contact:update`). Repeating
 * either is a no-op that keeps the first timestamp and records nothing.
 */
export function setArchived(db: Db, auth: AuthContext, id: number, archived: boolean): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const current = await getContact(trx, auth, id);
    if (Boolean(current.archived_at) === archived) return current;
    return change(
      trx,
      auth,
      id,
      { archived_at: archived ? nowIso() : null },
      archived ? 'contact:deleted' : 'contact:update',
    );
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

export function setExternalId(
  db: Db,
  auth: AuthContext,
  id: number,
  body: ExternalIdBody,
): Promise<ContactRow> {
  return transact(db, async (trx) => {
    const current = await getContact(trx, auth, id);
    const holder =
      body.external_id === null
        ? undefined
        : await repo.findContactByExternalId(trx, auth.accountId, body.external_id);
    const holderId = holder && holder.id !== id ? holder.id : undefined;
    const decision = decideExternalId(current.external_id, body.external_id, holderId, body.force ?? false);
    if (decision.kind === 'unchanged') return current;
    if (decision.kind === 'refused') {
      const taken = decision.code === 'external_id_taken';
      throw new AppError(
        decision.code,
        taken
          ? `Contact ${holderId} already has external_id "${body.external_id}"; send "force": true to move it here`
          : `Contact ${id} already has external_id "${current.external_id}"; send "force": true to replace it`,
        { errors: [{ field: 'external_id', message: taken ? 'is already in use' : 'is already set' }] },
      );
    }
    if (decision.clearHolder) await change(trx, auth, holderId!, { external_id: null });
    return change(trx, auth, id, { external_id: body.external_id });
  });
}

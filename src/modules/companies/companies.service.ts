import type { Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, notFound } from '../../shared/errors.js';
import { type EventKind, recordEvent } from '../../shared/events.js';
import { nowIso } from '../../shared/time.js';
import { parseCustomFieldValues, validateCustomFields } from '../custom-fields/custom-fields.service.js';
import type { CompanyRow } from './companies.repository.js';
import * as repo from './companies.repository.js';
import type { Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';
import { decideExternalId, type ExternalIdBody } from './contact-data.js';

export function toCompany(r: CompanyRow): Company {
  return {
    id: r.id,
    name: r.name,
    external_id: r.external_id,
    email: r.email,
    phone: r.phone,
    website: r.website,
    street: r.street,
    zip: r.zip,
    city: r.city,
    country_code: r.country_code,
    vat_id: r.vat_id,
    tax_number: r.tax_number,
    notes: r.notes,
    custom_fields: parseCustomFieldValues(r.custom_fields),
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Records `kind` with the company exactly as the API returns it, in the change's transaction. */
function emit(trx: Transaction<Database>, auth: AuthContext, kind: EventKind, row: CompanyRow) {
  return recordEvent(trx, {
    accountId: auth.accountId,
    kind,
    resourceType: 'company',
    resourceId: row.id,
    data: toCompany(row),
    integrationId: auth.integrationId,
  });
}

/** Applies a change to one company and records `company:updated` (or `kind`) with the result. */
async function change(
  trx: Transaction<Database>,
  auth: AuthContext,
  id: number,
  values: Parameters<typeof repo.updateCompany>[3],
  kind: EventKind = 'company:updated',
): Promise<CompanyRow> {
  const row = await repo.updateCompany(trx, auth.accountId, id, { ...values, updated_at: nowIso() });
  if (!row) throw notFound('Company');
  await emit(trx, auth, kind, row);
  return row;
}

export async function getCompany(db: Db, auth: AuthContext, id: number): Promise<CompanyRow> {
  const row = await repo.findCompany(db, auth.accountId, id);
  if (!row) throw notFound('Company');
  return row;
}

export const listCompanies = (db: Db, auth: AuthContext, q: CompanyListQuery) =>
  repo.listCompanies(db, auth.accountId, q);

/**
 * The company a contact may be attached to: in this account (422 `invalid_reference`
 * otherwise, without telling whether it exists elsewhere) and not archived (409).
 */
export async function attachableCompany(
  db: Db,
  auth: AuthContext,
  companyId: number,
  field = 'company_id',
): Promise<CompanyRow> {
  const company = await repo.findCompany(db, auth.accountId, companyId);
  if (!company) {
    throw new AppError('invalid_reference', `No company ${companyId}`, {
      errors: [{ field, message: 'no such company' }],
    });
  }
  if (company.archived_at) {
    throw new AppError('conflict', `Company ${companyId} is archived; restore it before attaching contacts`, {
      errors: [{ field, message: 'company is archived' }],
    });
  }
  return company;
}

async function assertExternalIdFree(db: Db, auth: AuthContext, value: string) {
  const holder = await repo.findCompanyByExternalId(db, auth.accountId, value);
  if (holder) {
    throw new AppError('external_id_taken', `Company ${holder.id} already has external_id "${value}"`, {
      errors: [{ field: 'external_id', message: 'is already in use' }],
    });
  }
}

export function createCompany(db: Db, auth: AuthContext, body: CompanyCreate): Promise<CompanyRow> {
  return transact(db, async (trx) => {
    const { custom_fields, ...fields } = body;
    // Always validated on create, so that required custom fields are enforced.
    const custom = await validateCustomFields(trx, auth.accountId, 'company', custom_fields);
    if (body.external_id) await assertExternalIdFree(trx, auth, body.external_id);
    const row = await repo.insertCompany(trx, {
      ...fields,
      custom_fields: JSON.stringify(custom),
      account_id: auth.accountId,
    });
    await emit(trx, auth, 'company:created', row);
    return row;
  });
}

export function updateCompany(
  db: Db,
  auth: AuthContext,
  id: number,
  body: CompanyUpdate,
): Promise<CompanyRow> {
  return transact(db, async (trx) => {
    const current = await getCompany(trx, auth, id);
    const { custom_fields, ...fields } = body;
    const custom =
      custom_fields === undefined
        ? undefined
        : await validateCustomFields(trx, auth.accountId, 'company', custom_fields, {
            current: parseCustomFieldValues(current.custom_fields),
          });
    const values = {
      ...fields,
      ...(custom ? { custom_fields: JSON.stringify(custom) } : {}),
      ...repo.companySearch({ ...current, ...fields }),
    };
    // Nothing that differs (only ignored keys, or the current values): nothing is written or recorded.
    if (changesNothing(current, values)) return current;
    return change(trx, auth, id, values);
  });
}

/**
 * Archive (DELETE, emits `company:deleted`) or restore (emits `company:updated`). Repeating
 * either is a no-op that keeps the first timestamp and records nothing.
 */
export function setArchived(db: Db, auth: AuthContext, id: number, archived: boolean): Promise<CompanyRow> {
  return transact(db, async (trx) => {
    const current = await getCompany(trx, auth, id);
    if (Boolean(current.archived_at) === archived) return current;
    return change(
      trx,
      auth,
      id,
      { archived_at: archived ? nowIso() : null },
      archived ? 'company:deleted' : 'company:updated',
    );
  });
}

export function setExternalId(
  db: Db,
  auth: AuthContext,
  id: number,
  body: ExternalIdBody,
): Promise<CompanyRow> {
  return transact(db, async (trx) => {
    const current = await getCompany(trx, auth, id);
    const holder =
      body.external_id === null
        ? undefined
        : await repo.findCompanyByExternalId(trx, auth.accountId, body.external_id);
    const holderId = holder && holder.id !== id ? holder.id : undefined;
    const decision = decideExternalId(current.external_id, body.external_id, holderId, body.force ?? false);
    if (decision.kind === 'unchanged') return current;
    if (decision.kind === 'refused') {
      const taken = decision.code === 'external_id_taken';
      throw new AppError(
        decision.code,
        taken
          ? `Company ${holderId} already has external_id "${body.external_id}"; send "force": true to move it here`
          : `Company ${id} already has external_id "${current.external_id}"; send "force": true to replace it`,
        { errors: [{ field: 'external_id', message: taken ? 'is already in use' : 'is already set' }] },
      );
    }
    if (decision.clearHolder) await change(trx, auth, holderId!, { external_id: null });
    return change(trx, auth, id, { external_id: body.external_id });
  });
}

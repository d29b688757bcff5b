import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { customFieldRecords } from '../../shared/archivable.js';
import { AppError } from '../../shared/errors.js';
import { partyOf } from '../../shared/party.js';
import { parseCustomFieldValues, validateCustomFields } from '../custom-fields/custom-fields.public.js';
import type { CompanyRow } from './companies.repository.js';
import * as repo from './companies.repository.js';
import type { Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';

export function toCompany(r: CompanyRow): Company {
  return {
    id: r.id,
    name: r.name,
    external_id: r.external_id,
    ...partyOf(r),
    notes: r.notes,
    custom_fields: parseCustomFieldValues(r.custom_fields),
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const companies = customFieldRecords({
  noun: 'Company',
  find: repo.findCompany,
  findByExternalId: repo.findCompanyByExternalId,
  update: repo.updateCompany,
  insert: repo.insertCompany,
  events: {
    resourceType: 'company',
    toData: toCompany,
    updated: 'company:updated',
    deleted: 'company:deleted',
  },
  created: 'company:created',
  entity: 'company',
  validate: validateCustomFields,
  parse: parseCustomFieldValues,
  search: repo.companySearch,
});

/**
 * Read (404 when not in the account), archive (DELETE) or restore, PUT …/external-identifier:
 * archiving records `company:deleted`, restore and each external-identifier change `company:updated`.
 */
export const { get: getCompany, setArchived, setExternalId } = companies;

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

/** Records `company:created`; an `external_id` another company holds is refused (409). */
export const createCompany = (db: Db, auth: AuthContext, body: CompanyCreate): Promise<CompanyRow> =>
  companies.create(db, auth, body);

/** Records `company:updated`, unless nothing differs. */
export const updateCompany = (
  db: Db,
  auth: AuthContext,
  id: number,
  body: CompanyUpdate,
): Promise<CompanyRow> => companies.update(db, auth, id, body);

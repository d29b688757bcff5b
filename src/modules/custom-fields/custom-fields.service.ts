import type { Db } from '../../db/index.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import type { AuthContext } from '../../shared/tokens.js';
import type { CustomFieldRow } from './custom-fields.repository.js';
import * as repo from './custom-fields.repository.js';
import type {
  CustomFieldDefinition,
  CustomFieldEntity,
  CustomFieldListQuery,
  CustomFieldType,
  CustomFieldValue,
} from './custom-fields.schemas.js';

export type CustomFieldValues = Record<string, CustomFieldValue>;

export function toDefinition(r: CustomFieldRow): CustomFieldDefinition {
  return {
    id: r.id,
    entity: r.entity as CustomFieldEntity,
    key: r.key,
    label: r.label,
    type: r.type as CustomFieldType,
    options: parseOptions(r.options),
    required: Boolean(r.required),
    position: r.position,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const listDefinitions = (db: Db, auth: AuthContext, q: CustomFieldListQuery) =>
  repo.listDefinitions(db, auth.accountId, q);

/** One definition as the list shows it (the change feed's read of one record). */
export async function getDefinition(db: Db, auth: AuthContext, id: number): Promise<CustomFieldDefinition> {
  const row = await repo.findDefinition(db, auth.accountId, id);
  if (!row) throw notFound('Custom field');
  return toDefinition(row);
}

function parseOptions(text: string): string[] {
  const parsed: unknown = JSON.parse(text || '[]');
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** Stored values (JSON text) as the API shows them. */
export function parseCustomFieldValues(text: string | null | undefined): CustomFieldValues {
  if (!text) return {};
  const parsed: unknown = JSON.parse(text);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as CustomFieldValues) : {};
}

const MAX_TEXT = 10_000;

function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export interface FieldDefinitionLike {
  type: string;
  options: string[];
}

/**
 * Checks one value against its definition: the reason it is refused, or null when it fits.
 * Pure, so the rules are unit-tested table-driven.
 */
export function checkCustomFieldValue(def: FieldDefinitionLike, value: unknown): string | null {
  switch (def.type) {
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > MAX_TEXT ? `must be at most ${MAX_TEXT} characters` : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? null : 'must be a date (YYYY-MM-DD)';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'select':
      if (typeof value !== 'string' || !def.options.includes(value))
        return `must be one of: ${def.options.join(', ')}`;
      return null;
    default:
      return `has an unknown type "${def.type}"`;
  }
}

/**
 * Validates custom field values given for a record of `entity` against the account's
 * definitions and returns the values to store: `current` (the record's stored values, empty on
 * create) with `values` applied, where `null` clears a value. Unknown keys, values of the
 * wrong type and missing required fields are refused with 422 naming `custom_fields.<key>`.
 * Reusable by every module whose records carry custom fields.
 */
export async function validateCustomFields(
  db: Db,
  accountId: number,
  entity: CustomFieldEntity,
  values: Record<string, unknown> | null | undefined,
  options: { current?: CustomFieldValues } = {},
): Promise<CustomFieldValues> {
  const defs = await repo.definitionsFor(db, accountId, entity);
  const byKey = new Map(defs.map((d) => [d.key, { ...d, options: parseOptions(d.options) }]));
  const errors: FieldError[] = [];
  const merged: Record<string, unknown> = { ...(options.current ?? {}) };
  for (const [key, value] of Object.entries(values ?? {})) {
    const field = `custom_fields.${key}`;
    const def = byKey.get(key);
    if (!def) {
      errors.push({ field, message: `is not a custom field of ${entity}` });
      continue;
    }
    if (value === null) {
      delete merged[key];
      continue;
    }
    const problem = checkCustomFieldValue(def, value);
    if (problem) errors.push({ field, message: problem });
    else merged[key] = value;
  }
  for (const def of defs) {
    if (def.required && (merged[def.key] === undefined || merged[def.key] === null)) {
      if (!errors.some((e) => e.field === `custom_fields.${def.key}`))
        errors.push({ field: `custom_fields.${def.key}`, message: 'is required' });
    }
  }
  if (errors.length > 0) {
    throw validationFailed(errors);
  }
  // Defined fields first, in their order; values whose definition is gone stay as they were.
  const out: CustomFieldValues = {};
  for (const def of defs)
    if (merged[def.key] !== undefined) out[def.key] = merged[def.key] as CustomFieldValue;
  for (const [k, v] of Object.entries(merged)) if (!(k in out)) out[k] = v as CustomFieldValue;
  return out;
}

/**
 * The custom field check of an import item: its errors name the field by the item's path in
 * the file (`projects.0.custom_fields.x`).
 */
export async function validateImportedCustomFields(
  db: Db,
  accountId: number,
  entity: CustomFieldEntity,
  values: Record<string, unknown> | undefined,
  path: string,
): Promise<CustomFieldValues> {
  try {
    return await validateCustomFields(db, accountId, entity, values ?? {});
  } catch (err) {
    if (err instanceof AppError && err.errors)
      throw validationFailed(err.errors.map((e) => ({ field: `${path}.${e.field}`, message: e.message })));
    throw err;
  }
}

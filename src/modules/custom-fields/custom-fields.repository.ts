import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';
import { findOwned } from '../../shared/owned.js';
import { paginate } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { CustomFieldListQuery } from './custom-fields.schemas.js';
import type { CustomFieldDefinitionTable } from './custom-fields.tables.js';

export type CustomFieldRow = Selectable<CustomFieldDefinitionTable>;

export const findDefinition = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'custom_field_definitions', accountId, id);

export function listDefinitions(db: Db, accountId: number, q: CustomFieldListQuery) {
  let qb = db.selectFrom('custom_field_definitions').selectAll().where('account_id', '=', accountId);
  if (q.entity) qb = qb.where('entity', '=', q.entity);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb.orderBy('id'), q);
}

const definitionRows = prepared(2, (db: Db, accountId: number, entity: string) =>
  db
    .selectFrom('custom_field_definitions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('entity', '=', entity),
);

/**
 * An entity's definitions in their order (position, then id). Read on every create and update
 * of a record that has custom fields: prepared, and sorted here rather than by the query, so
 * that on PostgreSQL the reads of requests that arrive together go as one (db/prepared.ts
 * batches only queries without an ORDER BY).
 */
export const definitionsFor = async (db: Db, accountId: number, entity: string): Promise<CustomFieldRow[]> =>
  (await definitionRows(db, accountId, entity)).sort((a, b) => a.position - b.position || a.id - b.id);

export async function insertDefinition(
  db: Db,
  values: Insertable<CustomFieldDefinitionTable>,
): Promise<void> {
  await db.insertInto('custom_field_definitions').values(values).execute();
}

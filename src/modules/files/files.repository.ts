import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { preparedList } from '../../db/prepared.js';
import { findOwned } from '../../shared/owned.js';
import type { FileTable } from './files.tables.js';

export type FileRow = Selectable<FileTable>;

export async function insertFile(db: Db, values: Insertable<FileTable>, data: Buffer): Promise<FileRow> {
  const row = await db.insertInto('files').values(values).returningAll().executeTakeFirstOrThrow();
  await db.insertInto('file_blobs').values({ file_id: row.id, data }).execute();
  return row;
}

export const findFile = (db: Db, accountId: number, id: number) => findOwned(db, 'files', accountId, id);

export async function readBlob(db: Db, fileId: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('file_blobs')
    .select('data')
    .where('file_id', '=', fileId)
    .executeTakeFirst();
  return row ? Buffer.from(row.data) : undefined;
}

// Prepared per number of owners (a page's records): read for every page of tasks.
const filesOfOwners = preparedList(
  2,
  (db: Db, ownerIds: readonly unknown[], accountId: number, ownerType: string) =>
    db
      .selectFrom('files')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('owner_type', '=', ownerType)
      .where('owner_id', 'in', ownerIds as number[])
      .orderBy('id'),
);

export const filesOf = (db: Db, accountId: number, ownerType: string, ownerIds: number[]) =>
  ownerIds.length === 0
    ? Promise.resolve([] as FileRow[])
    : filesOfOwners(db, ownerIds, accountId, ownerType);

export const findByMd5 = (db: Db, accountId: number, md5: string, ownerType?: string) => {
  let qb = db.selectFrom('files').selectAll().where('account_id', '=', accountId).where('md5', '=', md5);
  if (ownerType) qb = qb.where('owner_type', '=', ownerType);
  return qb.orderBy('id').execute();
};

/** Deletes the files of one owner; their bytes follow by the file_blobs cascade. */
export async function deleteFilesOf(
  db: Db,
  accountId: number,
  ownerType: string,
  ownerId: number,
): Promise<void> {
  await db
    .deleteFrom('files')
    .where('account_id', '=', accountId)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .execute();
}

import { sql } from 'kysely';
import { centsAsAmount, jsonIdPages, jsonShape, storedObject } from '../../shared/json-pages.js';
import { Task } from './tasks.schemas.js';

/**
 * The unfiltered task list's pages as the answer's JSON (SQLite, shared/json-pages.ts): what
 * toTask makes of a row and its files, the files (tasks' own, by id) as toFileData writes them.
 * A read across tasks and files, hence a read model. Most tasks have no file: a look into the
 * index first costs half of building an empty list for each.
 */
const OWN = sql`from files f where f.account_id = p.account_id and f.owner_type = 'task' and f.owner_id = p.id`;
const FILES = sql`case when exists (select 1 ${OWN}) then json((select json_group_array(json_object(
    'id', f.id, 'name', f.name, 'content_type', f.content_type, 'size', f.size, 'sha256', f.sha256,
    'md5', f.md5, 'owner_type', f.owner_type, 'owner_id', f.owner_id,
    'download_url', '/api/v1/files/' || f.id || '/download', 'created_at', f.created_at) order by f.id)
  ${OWN})) else json('[]') end`;

/** Active tasks, and all (`archived=true`). */
export const TASK_JSON_PAGES = [false, true].map((archived) =>
  jsonIdPages(
    (db, accountId) => {
      const qb = db.selectFrom('tasks').where('account_id', '=', accountId);
      return (archived ? qb : qb.where('archived_at', 'is', null)).selectAll();
    },
    jsonShape(Task, {
      hourly_rate: centsAsAmount('hourly_rate'),
      custom_fields: storedObject('custom_fields'),
      files: { json: FILES },
    }),
  ),
);

import type { Db } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';
import type { LinkCheck, LinkField } from './tasks.domain.js';

/**
 * Read model of what a task points at in the projects module: its project, phase, milestone
 * and epic. Tasks read these rows here, not through the projects module, because projects
 * depends on tasks (GET /projects/{id}/tasks lists them) and modules must not import each
 * other in a circle. Reads only; every row is looked up within the account.
 */

const PART_TABLES = {
  phase_id: 'project_phases',
  milestone_id: 'project_milestones',
  epic_id: 'project_epics',
} as const satisfies Record<LinkField, string>;

const projectById = prepared(2, (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('projects')
    .select(['id', 'archived_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id),
);

/** The project in the account (undefined if there is none), with whether it is archived. */
export const findProject = async (db: Db, accountId: number, id: number) =>
  (await projectById(db, accountId, id))[0];

/** The phase, milestone and epic a task would point at, each with the project it belongs to. */
export const linkChecks = (
  db: Db,
  accountId: number,
  ids: Record<LinkField, number | null>,
): Promise<LinkCheck[]> =>
  Promise.all(
    (Object.keys(PART_TABLES) as LinkField[]).map(async (field) => {
      const id = ids[field];
      const found =
        id === null
          ? undefined
          : await db
              .selectFrom(PART_TABLES[field])
              .select('project_id')
              .where('account_id', '=', accountId)
              .where('id', '=', id)
              .executeTakeFirst();
      return { field, id, found };
    }),
  );

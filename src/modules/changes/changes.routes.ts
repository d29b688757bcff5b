import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { problemResponse } from '../../shared/schemas.js';
import { ChangeList, ChangeListQuery } from './changes.schemas.js';
import * as service from './changes.service.js';

export const changesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/changes',
    {
      // Any valid token; each entry is filtered by the scopes its own GET needs.
      config: { scopes: [] },
      schema: {
        tags: ['Changes'],
        summary: 'Change feed: every change of the account in commit order',
        description:
          "Beyond the specification. Every creation, update, archival, restore and deletion of the resources the token may read, oldest first, each with the resource as its own GET answers now (none for deletions). Start without `after`; then pass `meta.next_cursor` (or an entry's `cursor`) as `after`. A cursor never skips a change, however many processes write at once: an entry appears only once every transaction that began before it has ended. Entries of kinds the token cannot read are left out. Entries are kept CHANGE_FEED_RETENTION_DAYS; a cursor from before the last pruned entry (or a start without `after` once entries were pruned) answers 410 `cursor_expired` naming `cursor` (where the kept entries begin) and `latest_cursor` (the end now): read the lists, then follow the feed from either.",
        querystring: ChangeListQuery,
        response: {
          200: ChangeList,
          410: problemResponse(
            '`cursor_expired`: entries after this cursor were pruned. `cursor`: where the kept entries begin; `latest_cursor`: the feed’s end now. Read the lists, then follow the feed from either',
          ),
        },
      },
    },
    async (req) => service.listChanges(app.db, req.auth, req.query),
  );
};

import { type Static, Type } from 'typebox';
import { Id, Timestamp } from '../../shared/schemas.js';

export const CHANGE_ACTIONS = ['created', 'updated', 'archived', 'restored', 'deleted'] as const;

const Cursor = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'Opaque position in the feed, from `cursor` or `meta.next_cursor` of an earlier answer',
});

export const ChangeListQuery = Type.Object(
  {
    after: Type.Optional(Cursor),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Entries per answer' }),
    ),
  },
  { additionalProperties: false },
);
export type ChangeListQuery = Static<typeof ChangeListQuery>;

export const Change = Type.Object(
  {
    cursor: Type.String({
      description: 'Position of this entry: pass it as `after` to read what follows it',
    }),
    resource: Type.String({
      description:
        'Kind of resource: client, company, contact, project, task, comment, offer, outgoing_invoice, incoming_invoice, payment, supplier, file, user, user_group, webhook, account_profile, mail_message, dunning',
      examples: ['client'],
    }),
    id: Id,
    action: Type.Union(
      CHANGE_ACTIONS.map((a) => Type.Literal(a)),
      { description: 'What happened to the resource' },
    ),
    changed_at: Timestamp,
    data: Type.Optional(
      Type.Unknown({
        description:
          'The resource now, as its own GET answers this token; absent for `deleted` and for a resource that no longer exists (its `deleted` entry follows)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangeList = Type.Object({
  data: Type.Array(Change),
  meta: Type.Object({
    next_cursor: Type.String({
      description: 'Pass as `after` for the next answer; also when nothing followed',
    }),
    has_more: Type.Boolean({ description: 'More entries follow right away' }),
  }),
});
export type ChangeList = Static<typeof ChangeList>;

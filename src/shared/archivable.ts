/**
 * The archivable record (issue 17): clients, companies and contacts are archived (soft
 * deleted: `DELETE /<resource>/{id}` sets `archived_at`), restored (`POST …/restore`), hidden
 * from lists unless `?archived=true`, and carry an `external_id` (see external-id.ts). One
 * service helper and one set of route builders instead of a copy per resource. The resource
 * gives its repository operations; no SQL here.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Transaction } from 'kysely';
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import type { Db } from '../db/index.js';
import type { Database } from '../db/schema.js';
import { transact } from '../db/transact.js';
import type { AuthContext } from '../plugins/auth.js';
import { changesNothing } from './changes.js';
import { notFound } from './errors.js';
import { type EventKind, recordEvent } from './events.js';
import {
  applyExternalId,
  assertExternalIdFree,
  type ExternalIdBody,
  type ExternalIdRouteSpec,
  type ExternalIdStore,
  externalIdRoute,
} from './external-id.js';
import type { Page } from './paging.js';
import {
  getRoute,
  listRoute,
  createRoute as sharedCreateRoute,
  updateRoute as sharedUpdateRoute,
} from './route-builders.js';
import {
  ArchivedQuery,
  Data,
  IdParams,
  Nullable,
  problemResponse,
  SortedPagingQuery,
  Timestamp,
  UpdatedSinceQuery,
} from './schemas.js';
import { nowIso } from './time.js';

type Trx = Transaction<Database>;

/** The last properties of every archivable record's answer. */
export const ArchivableStamps = {
  archived_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/**
 * The list query: paging and `sort` (by `sortable`), `archived` (include archived ones),
 * `updated_since`, then the resource's own `filters`.
 */
export const ArchivableListQuery = <P extends TProperties>(sortable: readonly string[], filters: P) =>
  Type.Object(
    { ...SortedPagingQuery(sortable), ...ArchivedQuery, ...UpdatedSinceQuery, ...filters },
    { additionalProperties: false },
  );

export type ArchivableRow = { id: number; external_id: string | null; archived_at: string | null };

/** The columns the helper writes itself. */
type Stamp = { archived_at?: string | null; external_id?: string | null; updated_at?: string };

export interface ArchivableSpec<R extends ArchivableRow, V extends Stamp> {
  /** The resource as messages name it: 'Client', 'Company', 'Contact'. */
  noun: string;
  find: (db: Db, accountId: number, id: number) => Promise<R | undefined>;
  findByExternalId: (db: Db, accountId: number, value: string) => Promise<{ id: number } | undefined>;
  update: (db: Db, accountId: number, id: number, values: V) => Promise<R | undefined>;
  /** Resources with webhooks: each change records an event with the record as the API returns it. */
  events?: {
    resourceType: string;
    toData: (row: R) => unknown;
    updated: EventKind;
    deleted: EventKind;
  };
}

/**
 * Reading, changing, archiving and the external identifier of one kind of record. Archiving
 * or restoring twice is a no-op that keeps the first timestamp and records nothing.
 */
export function archivable<R extends ArchivableRow, V extends Stamp>(spec: ArchivableSpec<R, V>) {
  const { noun, events } = spec;

  async function get(db: Db, auth: AuthContext, id: number): Promise<R> {
    const row = await spec.find(db, auth.accountId, id);
    if (!row) throw notFound(noun);
    return row;
  }

  /** Records `kind` with the record exactly as the API returns it, in the change's transaction. */
  async function emit(trx: Trx, auth: AuthContext, kind: EventKind, row: R): Promise<void> {
    if (!events) return;
    await recordEvent(trx, {
      accountId: auth.accountId,
      kind,
      resourceType: events.resourceType,
      resourceId: row.id,
      data: events.toData(row),
      integrationId: auth.integrationId,
    });
  }

  /** Applies a change to one record (with updated_at) and records the update event (or `kind`). */
  async function change(trx: Trx, auth: AuthContext, id: number, values: V, kind?: EventKind): Promise<R> {
    const row = await spec.update(trx, auth.accountId, id, { updated_at: nowIso(), ...values });
    if (!row) throw notFound(noun);
    if (events) await emit(trx, auth, kind ?? events.updated, row);
    return row;
  }

  const externalIds = (trx: Trx, auth: AuthContext): ExternalIdStore<R> => ({
    noun,
    findHolder: (value) => spec.findByExternalId(trx, auth.accountId, value),
    write: (id, value) => change(trx, auth, id, { external_id: value } as V),
  });

  return {
    get,
    emit,
    change,
    /** On create: 409 `external_id_taken` when another record holds the value. */
    assertExternalIdFree: (trx: Trx, auth: AuthContext, value: string | null | undefined) =>
      assertExternalIdFree(externalIds(trx, auth), value),

    /** Archive (DELETE; records the deleted event) or restore (records the updated event). */
    setArchived: (db: Db, auth: AuthContext, id: number, archived: boolean): Promise<R> =>
      transact(db, async (trx) => {
        const current = await get(trx, auth, id);
        if (Boolean(current.archived_at) === archived) return current;
        const now = nowIso();
        const values = { archived_at: archived ? now : null, updated_at: now } as V;
        return change(trx, auth, id, values, archived ? events?.deleted : events?.updated);
      }),

    /** PUT …/external-identifier: the one rule of external-id.ts. */
    setExternalId: (db: Db, auth: AuthContext, id: number, body: ExternalIdBody): Promise<R> =>
      transact(db, async (trx) => {
        const current = await get(trx, auth, id);
        return (await applyExternalId(externalIds(trx, auth), current, body)) ?? current;
      }),
  };
}

/** custom-fields' check of values (its `validateCustomFields`), given by the resource. */
type ValidateCustomFields<E, M> = (
  db: Db,
  accountId: number,
  entity: E,
  values: Record<string, unknown> | null | undefined,
  options?: { current?: M },
) => Promise<M>;

type CustomFieldsBody = { custom_fields?: Record<string, unknown>; external_id?: string | null };

export interface CustomFieldRecordSpec<
  R extends ArchivableRow & { custom_fields: string },
  V extends Stamp,
  I,
  E,
  M,
> extends ArchivableSpec<R, V> {
  /** Its custom-field entity ('company') and custom-fields' check and parser of stored values. */
  entity: E;
  validate: ValidateCustomFields<E, M>;
  parse: (text: string) => M;
  /** The search columns of a record with these fields. */
  search: (row: R) => Partial<R>;
  insert: (db: Db, values: I) => Promise<R>;
  created: EventKind;
}

/**
 * An archivable record with custom fields and search columns (companies, contacts): create
 * (custom fields always checked, so that required ones are enforced; `external_id` free) and
 * update (custom fields checked over the current values; nothing written or recorded when
 * nothing differs) on top of archivable().
 */
export function customFieldRecords<
  R extends ArchivableRow & { custom_fields: string },
  V extends Stamp,
  I,
  E,
  M,
>(spec: CustomFieldRecordSpec<R, V, I, E, M>) {
  const records = archivable(spec);
  return {
    ...records,
    /** `check` runs after the generic checks, before the insert (contacts: their company). */
    create: <B extends CustomFieldsBody>(
      db: Db,
      auth: AuthContext,
      body: B,
      check?: (trx: Trx) => Promise<unknown>,
    ) =>
      transact(db, async (trx) => {
        const { custom_fields, ...fields } = body;
        const custom = await spec.validate(trx, auth.accountId, spec.entity, custom_fields);
        await records.assertExternalIdFree(trx, auth, body.external_id);
        await check?.(trx);
        const values = { ...fields, custom_fields: JSON.stringify(custom), account_id: auth.accountId };
        const row = await spec.insert(trx, values as I);
        await records.emit(trx, auth, spec.created, row);
        return row;
      }),

    update: <B extends CustomFieldsBody>(db: Db, auth: AuthContext, id: number, body: B) =>
      transact(db, async (trx) => {
        const current = await records.get(trx, auth, id);
        const { custom_fields, ...fields } = body;
        const custom =
          custom_fields === undefined
            ? undefined
            : await spec.validate(trx, auth.accountId, spec.entity, custom_fields, {
                current: spec.parse(current.custom_fields),
              });
        const values = {
          ...fields,
          ...(custom ? { custom_fields: JSON.stringify(custom) } : {}),
          ...spec.search({ ...current, ...fields }),
        };
        // Nothing that differs (only ignored keys, or the current values): nothing is written or recorded.
        if (changesNothing(current, values)) return current;
        // The body's fields are columns of the record (its schema is the table's writable part).
        return records.change(trx, auth, id, values as unknown as V);
      }),
  };
}

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export interface ArchivableRoutesSpec<R> extends ExternalIdRouteSpec<R> {
  setArchived: (db: Db, auth: AuthContext, id: number, archived: boolean) => Promise<R>;
}

/** Texts of the archive, restore and external-identifier operations. */
export interface ArchivableTexts {
  archive: { summary: string; description?: string };
  restore: { summary: string; description?: string };
  externalId: { description: string };
}

const described = (t: { summary: string; description?: string }) =>
  t.description === undefined ? { summary: t.summary } : { summary: t.summary, description: t.description };

/** DELETE /<resource>/{id} (archive), POST …/restore and PUT …/external-identifier, in that order. */
export function archivableRoutes<R>(app: App, s: ArchivableRoutesSpec<R>, texts: ArchivableTexts): void {
  const { tags, write: config } = s;
  app.delete(
    `${s.path}/:id`,
    {
      config,
      schema: {
        tags,
        ...described(texts.archive),
        params: IdParams,
        response: { 204: Type.Null({ description: 'Archived' }) },
      },
    },
    async (req, reply) => {
      await s.setArchived(app.db, req.auth, req.params.id, true);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${s.path}/:id/restore`,
    {
      config,
      schema: { tags, ...described(texts.restore), params: IdParams, response: { 200: Data(s.schema) } },
    },
    async (req) => ({ data: s.toData(await s.setArchived(app.db, req.auth, req.params.id, false)) }),
  );

  externalIdRoute(app, s, texts.externalId.description);
}

/** An operation's texts (`description` left out of the document when undefined). */
interface Described {
  summary: string;
  description?: string;
}

type CreateSpec<R, C extends TSchema> = Pick<
  ArchivableRoutesSpec<R>,
  'path' | 'tags' | 'write' | 'schema' | 'toData'
> & {
  create: C;
  insert: (db: Db, auth: AuthContext, body: Static<C>) => Promise<R>;
};

/** POST /<resource>: 201 with its location; `conflict` describes its 409, if it has one. */
export function createRoute<R extends { id: number }, C extends TSchema>(
  app: App,
  s: CreateSpec<R, C>,
  { conflict, ...texts }: Described & { conflict?: string },
): void {
  sharedCreateRoute(
    app,
    {
      path: s.path,
      tags: s.tags,
      config: s.write,
      ...texts,
      body: s.create,
      response: s.schema,
      location: s.path,
      responses: conflict === undefined ? undefined : { 409: problemResponse(conflict) },
    },
    (db, auth, body: Static<C>) => s.insert(db, auth, body),
    s.toData,
  );
}

type UpdateSpec<R, U extends TSchema> = Pick<
  ArchivableRoutesSpec<R>,
  'path' | 'tags' | 'write' | 'schema' | 'toData'
> & {
  update: U;
  change: (db: Db, auth: AuthContext, id: number, body: Static<U>) => Promise<R>;
};

/** PATCH /<resource>/{id}. */
export function updateRoute<R, U extends TSchema>(app: App, s: UpdateSpec<R, U>, texts: Described): void {
  sharedUpdateRoute(
    app,
    { path: `${s.path}/:id`, tags: s.tags, config: s.write, ...texts, body: s.update, item: s.schema },
    s.change,
    s.toData,
  );
}

/** The whole HTTP surface of an archivable record with custom fields (companies, contacts). */
export interface RecordRoutesSpec<R, Q extends TSchema, C extends TSchema, U extends TSchema>
  extends ArchivableRoutesSpec<R>,
    CreateSpec<R, C>,
    UpdateSpec<R, U> {
  read: { scopes: string[] };
  /** Every table the list and GET answers read: kept pages go stale when one of them changes (plugins/page-cache.ts). */
  reads: readonly string[];
  query: Q;
  list: (db: Db, auth: AuthContext, q: Static<Q>) => Promise<Page<R>>;
  get: (db: Db, auth: AuthContext, id: number) => Promise<R>;
}

export interface RecordTexts extends ArchivableTexts {
  list: Described;
  create: Described & { conflict: string };
  get: Described;
  update: Described;
}

/** GET (list), POST, GET /{id}, PATCH /{id}, then archivableRoutes: in that order. */
export function recordRoutes<
  R extends { id: number },
  Q extends TSchema,
  C extends TSchema,
  U extends TSchema,
>(app: App, s: RecordRoutesSpec<R, Q, C, U>, texts: RecordTexts): void {
  const read = { tags: s.tags, config: s.read };
  listRoute(
    app,
    {
      tags: s.tags,
      config: { ...s.read, pageCache: s.reads },
      path: s.path,
      ...texts.list,
      querystring: s.query,
      item: s.schema,
    },
    s.list,
    s.toData,
  );
  createRoute(app, s, texts.create);
  getRoute(
    app,
    {
      ...read,
      config: { ...s.read, pageCache: s.reads },
      path: `${s.path}/:id`,
      ...texts.get,
      item: s.schema,
    },
    s.get,
    s.toData,
  );
  updateRoute(app, s, texts.update);
  archivableRoutes(app, s, texts);
}

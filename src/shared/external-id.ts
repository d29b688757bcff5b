/**
 * The one external-identifier behaviour (issue 17), for every resource with
 * `PUT /<resource>/{id}/external-identifier`: clients, companies, contacts and tasks.
 *
 * The specification says contacts and companies "can force-overwrite external_id"; clients and
 * tasks only "set" it. We decided that all four follow the contacts/companies rule, so that an
 * integrator learns one behaviour: without `force` a record never silently loses or replaces
 * an identifier another system relies on (409 `external_id_set` / `external_id_taken`); with
 * `force` the value is moved in one transaction. The rule is a pure function; the services give
 * the helper their repository operations (no SQL here).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, type TSchema, Type } from 'typebox';
import type { Db } from '../db/index.js';
import type { AuthContext } from '../plugins/auth.js';
import { AppError, type ErrorCode, validationFailed } from './errors.js';
import { Data, IdParams, Ignored, Nullable, problemResponse, Text } from './schemas.js';

export const ExternalIdBody = Type.Object(
  {
    external_id: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
    force: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Overwrite: replace a different value this record already has, and take the value over from another record that holds it (that record loses it).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExternalIdBody = Static<typeof ExternalIdBody>;

/** `external_id` in a PATCH body: it has its own endpoint, so PATCH accepts and ignores it. */
export const IgnoredExternalId = (path: string) =>
  Ignored(Text(), `Accepted and ignored: set it with PUT ${path}/{id}/external-identifier`);

const RULES = [
  'Sets `external_id` (`null` clears it). Setting the value the record already has changes nothing.',
  'Without `"force": true` it is refused with **409**: `external_id_set` when the record already has a different value (clearing counts as replacing),',
  '`external_id_taken` when another record of the same kind in the account holds the value.',
  'With `force` both are overwritten in one transaction: the other record loses its `external_id`',
].join(' ');

/** The rules as the endpoint documents them, for a resource that records update events. */
export const EXTERNAL_ID_DESCRIPTION = `${RULES} (and an update event is recorded for it).`;

/**
 * The endpoint's description: `recorded` names the update event each changed record records,
 * null for a resource that records no events (clients).
 */
export const externalIdDescription = (recorded: { noun: string; event: string } | null) =>
  recorded
    ? `${EXTERNAL_ID_DESCRIPTION} Each changed ${recorded.noun} records a \`${recorded.event}\` event.`
    : `${RULES}.`;

/** The description of the endpoint's 409 response. */
export const EXTERNAL_ID_CONFLICT = '`external_id_set` or `external_id_taken`, and `force` was not given';

export type ExternalIdDecision =
  | { kind: 'unchanged' }
  | { kind: 'set'; clearHolder: boolean }
  | { kind: 'refused'; code: Extract<ErrorCode, 'external_id_set' | 'external_id_taken'> };

/**
 * The external-identifier rules as a pure function. `holderId` is the other record that
 * currently holds `requested` (undefined if none).
 */
export function decideExternalId(
  current: string | null,
  requested: string | null,
  holderId: number | undefined,
  force: boolean,
): ExternalIdDecision {
  if (current === requested) return { kind: 'unchanged' };
  if (current !== null && !force) return { kind: 'refused', code: 'external_id_set' };
  const clash = requested !== null && holderId !== undefined;
  if (clash && !force) return { kind: 'refused', code: 'external_id_taken' };
  return { kind: 'set', clearHolder: clash };
}

/** What the helper needs from a resource's service, inside the caller's transaction. */
export interface ExternalIdStore<R> {
  /** The resource as messages name it: 'Client', 'Company', 'Contact', 'Task'. */
  noun: string;
  /** The record of this kind in the account that holds `value`, if any. */
  findHolder: (value: string) => Promise<{ id: number } | undefined>;
  /** Writes `external_id` of record `id` (with updated_at and its event, if the resource records events). */
  write: (id: number, value: string | null) => Promise<R>;
}

const takenError = (noun: string, holderId: number, value: string, hint = '') =>
  new AppError('external_id_taken', `${noun} ${holderId} already has external_id "${value}"${hint}`, {
    errors: [{ field: 'external_id', message: 'is already in use' }],
  });

/** On create: a value another record of the kind holds is refused with 409 `external_id_taken`. */
export async function assertExternalIdFree(
  store: Pick<ExternalIdStore<unknown>, 'noun' | 'findHolder'>,
  value: string | null | undefined,
): Promise<void> {
  if (!value) return;
  const holder = await store.findHolder(value);
  if (holder) throw takenError(store.noun, holder.id, value);
}

/**
 * PUT …/external-identifier on `current` (already read in the caller's transaction). Returns
 * the changed record, or undefined when nothing changed (the caller answers `current`).
 */
export async function applyExternalId<R>(
  store: ExternalIdStore<R>,
  current: { id: number; external_id: string | null },
  body: ExternalIdBody,
): Promise<R | undefined> {
  const { id } = current;
  const holder = body.external_id === null ? undefined : await store.findHolder(body.external_id);
  const holderId = holder && holder.id !== id ? holder.id : undefined;
  const decision = decideExternalId(current.external_id, body.external_id, holderId, body.force ?? false);
  if (decision.kind === 'unchanged') return undefined;
  if (decision.kind === 'refused') {
    if (decision.code === 'external_id_taken') {
      throw takenError(store.noun, holderId!, body.external_id!, '; send "force": true to move it here');
    }
    throw new AppError(
      'external_id_set',
      `${store.noun} ${id} already has external_id "${current.external_id}"; send "force": true to replace it`,
      { errors: [{ field: 'external_id', message: 'is already set' }] },
    );
  }
  if (decision.clearHolder) await store.write(holderId!, null);
  return store.write(id, body.external_id);
}

/**
 * Import files: an external id used twice in one section is refused, naming where (clearer
 * than the database's error).
 */
export function uniqueExternalIds(section: string, items: { external_id?: string }[]): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    if (item.external_id === undefined) return;
    const first = seen.get(item.external_id);
    if (first !== undefined) {
      const field = `${section}.${i}.external_id`;
      throw validationFailed(
        [{ field, message: 'is used twice in the file' }],
        `${field}: same as ${section}.${first}`,
      );
    }
    seen.set(item.external_id, i);
  });
}

/** What a route builder needs from a resource: where it lives and how it answers. */
export interface ExternalIdRouteSpec<R> {
  /** '/clients' */
  path: string;
  tags: string[];
  write: { scopes: string[] };
  /** The answer's schema (`data` of the 200s). */
  schema: TSchema;
  toData: (row: R) => unknown;
  setExternalId: (db: Db, auth: AuthContext, id: number, body: ExternalIdBody) => Promise<R>;
}

/** PUT /<resource>/{id}/external-identifier, answering the changed record. */
export function externalIdRoute<R>(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  s: ExternalIdRouteSpec<R>,
  description: string,
): void {
  app.put(
    `${s.path}/:id/external-identifier`,
    {
      config: s.write,
      schema: {
        tags: s.tags,
        summary: 'Set the external identifier',
        description,
        params: IdParams,
        body: ExternalIdBody,
        response: { 200: Data(s.schema), 409: problemResponse(EXTERNAL_ID_CONFLICT) },
      },
    },
    async (req) => ({ data: s.toData(await s.setExternalId(app.db, req.auth, req.params.id, req.body)) }),
  );
}

import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { archivable } from '../../shared/archivable.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError } from '../../shared/errors.js';
import { partyOf } from '../../shared/party.js';
import { clientCreates } from './clients.create-batch.js';
import type { ClientBasicRow, ClientRow } from './clients.repository.js';
import * as repo from './clients.repository.js';
import type {
  ClientBasic,
  ClientCreate,
  ClientFull,
  ClientListQuery,
  ClientUpdate,
} from './clients.schemas.js';

export function toClientFull(r: ClientRow): ClientFull {
  return {
    id: r.id,
    name: r.name,
    shortcode: r.shortcode,
    external_id: r.external_id,
    ...partyOf(r),
    language: r.language,
    buyer_reference: r.buyer_reference,
    invoice_email: r.invoice_email,
    einvoice_format: r.einvoice_format as ClientFull['einvoice_format'],
    is_consumer: Boolean(r.is_consumer),
    dunning_blocked: Boolean(r.dunning_blocked),
    currency: r.currency,
    payment_term_days: r.payment_term_days,
    notes: r.notes,
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function toClientBasic(r: ClientBasicRow): ClientBasic {
  return { id: r.id, name: r.name, shortcode: r.shortcode, archived_at: r.archived_at };
}

const clients = archivable({
  noun: 'Client',
  find: repo.findClient,
  findByExternalId: (db: Db, accountId: number, value: string) =>
    repo.findClientBy(db, accountId, 'external_id', value),
  update: repo.updateClient,
  // Beyond the specification (issue 45): the client as a `client:read` token reads it.
  events: {
    resourceType: 'client',
    toData: toClientFull,
    updated: 'client:updated',
    deleted: 'client:deleted',
  },
});

/** Read (404 when not in the account), archive (DELETE) or restore, PUT …/external-identifier. */
export const { get: getClient, setArchived, setExternalId } = clients;

export const listClients = (db: Db, auth: AuthContext, q: ClientListQuery) =>
  repo.listClientsBasic(db, auth.accountId, q);

export const listClientsFull = (db: Db, auth: AuthContext, q: ClientListQuery) =>
  repo.listClientsFull(db, auth.accountId, q);

/** 409 `shortcode_taken` when another client of the account has the shortcode. */
async function assertShortcodeFree(db: Db, auth: AuthContext, value: string, selfId?: number) {
  const other = await repo.findClientBy(db, auth.accountId, 'shortcode', value);
  if (other && other.id !== selfId) {
    throw new AppError('shortcode_taken', `Client ${other.id} already has shortcode "${value}"`, {
      errors: [{ field: 'shortcode', message: 'is already in use' }],
    });
  }
}

/** The flags as the columns keep them (0/1). */
function stored<T extends { is_consumer?: boolean; dunning_blocked?: boolean }>(body: T) {
  const { is_consumer, dunning_blocked, ...rest } = body;
  return {
    ...rest,
    ...(is_consumer === undefined ? {} : { is_consumer: is_consumer ? 1 : 0 }),
    ...(dunning_blocked === undefined ? {} : { dunning_blocked: dunning_blocked ? 1 : 0 }),
  };
}

/** Client creates, batched on PostgreSQL (clients.create-batch.ts). */
const creates = clientCreates((trx, auth, row) => clients.emit(trx, auth, 'client:created', row));

export async function createClient(db: Db, auth: AuthContext, body: ClientCreate): Promise<ClientRow> {
  const values = { ...stored(body), account_id: auth.accountId };
  // Nothing to check first: the INSERT and its event are the whole write.
  if (!body.shortcode && !body.external_id) return creates.unchecked(db, auth, values);
  return transact(db, async (trx) => {
    if (body.shortcode) await assertShortcodeFree(trx, auth, body.shortcode);
    await clients.assertExternalIdFree(trx, auth, body.external_id);
    return creates.write(trx, auth, values);
  });
}

export async function updateClient(
  db: Db,
  auth: AuthContext,
  id: number,
  body: ClientUpdate,
): Promise<ClientRow> {
  // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
  const current = await getClient(db, auth, id);
  if (changesNothing(current, body)) return current;
  return transact(db, (trx) => clients.change(trx, auth, id, stored(body)));
}

/** PUT …/shortcode: unique within the account (409 `shortcode_taken`); `null` clears it. */
export function setShortcode(
  db: Db,
  auth: AuthContext,
  id: number,
  value: string | null,
): Promise<ClientRow> {
  return transact(db, async (trx) => {
    await getClient(trx, auth, id);
    if (value !== null) await assertShortcodeFree(trx, auth, value, id);
    return clients.change(trx, auth, id, { shortcode: value });
  });
}

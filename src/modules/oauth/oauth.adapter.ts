import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { nowIso } from '../../shared/time.js';
import { hashToken } from '../../shared/tokens.js';
import { insertAccessTokenMirror, revokeAccessToken } from '../integration/integration.service.js';
import { deleteGrant } from './grants.service.js';
import * as readModel from './oauth.read-model.js';
import * as repo from './oauth.repository.js';

/** Access tokens the bearer check must know: mirrored into `access_tokens` (migration 930). */
const MIRRORED = new Set(['AccessToken', 'ClientCredentials']);

/**
 * Bearer secrets: their row is keyed by the value's hash and their payload leaves the value
 * (`jti`) out, so a row read from the database gives nothing to present. Whoever presents
 * the value is given it back in the payload (oidc-provider's opaque tokens are their id).
 */
const HASHED = new Set(['AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode']);

const isoIn = (seconds: number | undefined) =>
  typeof seconds === 'number' ? new Date(Date.now() + seconds * 1000).toISOString() : null;

/**
 * oidc-provider's storage on our data layer: one row per (model, id) in `oauth_store`, so
 * every process on the database sees every code, token, grant and session at once.
 *
 * - A consumed code or refresh token stays stored with `consumed_at`: oidc-provider sees
 *   `consumed` and treats a second use as replay (it revokes the whole grant).
 * - An expired row is never returned (and purged now and then).
 * - `revokeByGrantId` ends the whole grant in one transaction, whatever model asked: its
 *   codes, refresh tokens, the grant, and its access tokens in `access_tokens` too.
 * - Opaque access tokens are their id: the id's hash goes to `access_tokens` with the
 *   consenting user and the grant, so the API's bearer check (plugins/auth.ts) stays one path.
 * - Codes, refresh and access tokens are stored under their hash only (see HASHED).
 */
export class KyselyAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly db: Db,
  ) {}

  /** The row's key: a bearer secret's hash, else the id itself. */
  private key(id: string): string {
    return HASHED.has(this.model) ? hashToken(id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const expires_at = isoIn(expiresIn);
    const userId = payload.accountId !== undefined ? Number(payload.accountId) : null;
    const clientId = payload.clientId ?? null;
    const { jti: _value, ...withoutValue } = payload;
    const row = {
      model: this.model,
      id: this.key(id),
      payload: JSON.stringify(HASHED.has(this.model) ? withoutValue : payload),
      grant_id: this.model === 'Grant' ? id : (payload.grantId ?? null),
      uid: payload.uid ?? null,
      client_id: clientId,
      user_id: Number.isSafeInteger(userId) ? userId : null,
      expires_at,
    };
    // Now and then, rows past their expiry go (they are never read: see `live`).
    if (Math.random() < 0.01) await repo.purgeExpired(this.db, nowIso());
    if (!MIRRORED.has(this.model)) {
      await repo.upsertStored(this.db, row);
      return;
    }
    const client = clientId ? await readModel.findClientIntegration(this.db, clientId) : undefined;
    await transact(this.db, async (trx) => {
      await repo.upsertStored(trx, row);
      if (!client) return;
      await insertAccessTokenMirror(trx, {
        integration_id: client.id,
        token_hash: hashToken(id),
        scopes: payload.scope ?? '',
        expires_at,
        user_id: this.model === 'AccessToken' ? row.user_id : null,
        grant_id: row.grant_id,
      });
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = this.live(await repo.findStored(this.db, this.model, this.key(id)));
    if (payload && HASHED.has(this.model)) payload.jti = id;
    return payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.live(await repo.findStoredByUid(this.db, this.model, uid));
  }

  async findByUserCode(): Promise<AdapterPayload | undefined> {
    return undefined; // the device flow is not enabled
  }

  async consume(id: string): Promise<void> {
    await repo.consumeStored(this.db, this.model, this.key(id), nowIso());
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'Grant') {
      await transact(this.db, (trx) => deleteGrant(trx, id, nowIso()));
      return;
    }
    if (!MIRRORED.has(this.model)) {
      await repo.deleteStored(this.db, this.model, this.key(id));
      return;
    }
    await transact(this.db, async (trx) => {
      await repo.deleteStored(trx, this.model, this.key(id));
      await revokeAccessToken(trx, hashToken(id), nowIso());
    });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await transact(this.db, (trx) => deleteGrant(trx, grantId, nowIso()));
  }

  private live(
    row: { payload: string; expires_at: string | null; consumed_at: string | null } | undefined,
  ): AdapterPayload | undefined {
    if (!row) return undefined;
    if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  }
}

import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { decryptSecret } from '../src/modules/webhooks/webhooks.crypto.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';

const ALL_SCOPES = [
  'task:create',
  'task:update',
  'task:delete',
  'comment:create',
  'comment:update',
  'comment:delete',
  'contact:create',
  'contact:update',
  'contact:delete',
  'company:create',
  'company:update',
  'company:delete',
  'incoming-invoice:extract',
  'dunning:create',
  'dunning:send',
  'invoice:create',
  'invoice:book',
  'invoice:delete',
  'payment:create',
  'client:create',
  'client:update',
  'client:delete',
  'invoice:send',
  'invoice:send-failed',
];

describeEachDb('webhooks: registration', (ctx) => {
  let api: Api;
  let sibling: Api;
  let stranger: Api;
  let noScope: Api;

  before(async () => {
    // incoming-invoice:extract carries documents, dunning:create letters, invoice:send messages:
    // the subscriber reads them too.
    api = await ctx.as(
      'integration incoming-invoice:read dunning:read outgoing-invoice:read payments:read client:read',
    );
    sibling = await ctx.as('integration');
    stranger = await ctx.as('integration', { accountId: ctx.other.accountId });
    noScope = await ctx.as('client:read task-management:read');
  });

  it('registers a webhook: 201, Location, the secret once, scopes in the Events table order', async () => {
    const res = await api.post('/webhooks', {
      url: 'https://hooks.example.com/in',
      scopes: ['contact:update', 'task:create', 'task:create'],
    });
    assert.equal(res.status, 201);
    const w = res.body.data;
    assert.equal(res.headers.location, `/api/v1/webhooks/${w.id}`);
    assert.equal(w.url, 'https://hooks.example.com/in');
    assert.deepEqual(w.scopes, ['task:create', 'contact:update']);
    assert.equal(w.status, 'active');
    assert.equal(w.disabled_at, null);
    assert.match(w.signature_secret_key, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(w.signature_secret_key.slice(6), 'base64').length, 32);

    const one = await api.get(`/webhooks/${w.id}`);
    assert.equal(one.status, 200);
    const { signature_secret_key: _, ...listed } = w;
    assert.deepEqual(one.body.data, listed);
    assert.ok(!('signature_secret_key' in one.body.data));
  });

  it('never lists the secret, and stores it only encrypted (AES-256-GCM under SECRET_KEY)', async () => {
    const res = await api.post('/webhooks', { url: 'https://hooks.example.com/enc', scopes: ALL_SCOPES });
    const secret: string = res.body.data.signature_secret_key;
    const list = await api.get('/webhooks?per_page=100');
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes(secret));
    assert.ok(!list.text.includes('secret_key'));
    const listed = list.body.data.find((w: { id: number }) => w.id === res.body.data.id);
    assert.deepEqual(listed.scopes, ALL_SCOPES);

    const row = await ctx.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    const keyB64 = secret.slice(6);
    assert.ok(!stored.includes(keyB64), 'secret key bytes must not be stored in plain text');
    assert.ok(!stored.includes(Buffer.from(keyB64, 'base64').toString('hex')));
    assert.match(row.secret_enc, /^v1:/);
    assert.equal(decryptSecret(ctx.app.config.secretKey, row.secret_enc, ctx.account.accountId), secret);
    assert.throws(() => decryptSecret('another server key', row.secret_enc, ctx.account.accountId));
    assert.throws(() => decryptSecret(ctx.app.config.secretKey, row.secret_enc, ctx.other.accountId));
  });

  it('an Idempotency-Key replays the answer with the secret, yet the stored answer does not hold it', async () => {
    const body = { url: 'https://hooks.example.com/idem', scopes: ['company:create'] };
    const headers = { 'idempotency-key': 'create-hook-1' };
    const first = await api.post('/webhooks', body, headers);
    assert.equal(first.status, 201);
    const secret: string = first.body.data.signature_secret_key;
    assert.match(secret, /^whsec_/);
    const replay = await api.post('/webhooks', body, headers);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, first.body);
    const rotated = await api.post(
      `/webhooks/${first.body.data.id}/rotate-secret`,
      {},
      { 'idempotency-key': 'rot-1' },
    );
    const again = await api.post(
      `/webhooks/${first.body.data.id}/rotate-secret`,
      {},
      { 'idempotency-key': 'rot-1' },
    );
    assert.equal(again.body.data.signature_secret_key, rotated.body.data.signature_secret_key);
    const stored = JSON.stringify(await ctx.db.selectFrom('idempotency_keys').selectAll().execute());
    for (const s of [secret, rotated.body.data.signature_secret_key]) {
      assert.ok(!stored.includes(s.slice(6)), 'no secret in the idempotency store');
    }
    assert.ok(stored.includes('sealed:v1:'));
  });

  it('lists only the calling integration’s webhooks, with paging', async () => {
    const mine = await sibling.post('/webhooks', {
      url: 'https://sib.example.com/a',
      scopes: ['task:create'],
    });
    await sibling.post('/webhooks', { url: 'https://sib.example.com/b', scopes: ['task:update'] });
    const list = await sibling.get('/webhooks?per_page=1');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.meta, { page: 1, per_page: 1, total: 2 });
    assert.equal(list.body.data[0].id, mine.body.data.id);
    assert.match(String(list.headers.link), /rel="next"/);
    const theirs = await api.get('/webhooks?per_page=100');
    assert.ok(!theirs.body.data.some((w: { url: string }) => w.url.startsWith('https://sib.')));
    const foreign = await stranger.get('/webhooks');
    assert.equal(foreign.body.meta.total, 0);
  });

  it('another integration or account neither sees nor deletes a webhook (404)', async () => {
    const w = (await api.post('/webhooks', { url: 'https://hooks.example.com/own', scopes: ['task:delete'] }))
      .body.data;
    for (const other of [sibling, stranger]) {
      expectProblem(await other.get(`/webhooks/${w.id}`), 404, 'not_found');
      expectProblem(await other.delete(`/webhooks/${w.id}`), 404, 'not_found');
      expectProblem(await other.post(`/webhooks/${w.id}/rotate-secret`), 404, 'not_found');
      expectProblem(await other.post(`/webhooks/${w.id}/enable`), 404, 'not_found');
      expectProblem(await other.get(`/webhooks/${w.id}/deliveries`), 404, 'not_found');
    }
    assert.equal((await api.get(`/webhooks/${w.id}`)).status, 200);
  });

  it('deletes a webhook: 204, then 404', async () => {
    const w = (await api.post('/webhooks', { url: 'https://hooks.example.com/del', scopes: ['task:delete'] }))
      .body.data;
    const res = await api.delete(`/webhooks/${w.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    expectProblem(await api.get(`/webhooks/${w.id}`), 404, 'not_found');
    expectProblem(await api.delete(`/webhooks/${w.id}`), 404, 'not_found');
    expectProblem(await api.delete('/webhooks/999999'), 404, 'not_found');
  });

  it('401 without a token, 403 without the integration scope on every endpoint', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/webhooks'],
      ['POST', '/webhooks', { url: 'not even valid' }],
      ['GET', '/webhooks/1'],
      ['DELETE', '/webhooks/1'],
      ['POST', '/webhooks/1/rotate-secret', {}],
      ['POST', '/webhooks/1/enable', {}],
      ['GET', '/webhooks/1/deliveries'],
      ['GET', '/webhooks/1/deliveries/1'],
      ['POST', '/webhooks/1/deliveries/1/resend', {}],
    ];
    for (const [method, path, body] of calls) {
      const r401 = await ctx.anon.request(method as 'GET', path, body);
      expectProblem(r401, 401, 'unauthorized');
      const r403 = await noScope.request(method as 'GET', path, body);
      assert.deepEqual(expectProblem(r403, 403, 'insufficient_scope').required_scopes, ['integration']);
    }
  });

  it('audits what an integration does to its webhooks (who: the token user, through the API; never the secret)', async () => {
    const w = (await api.post('/webhooks', { url: 'https://hooks.example.com/aud', scopes: ['task:create'] }))
      .body.data;
    assert.equal((await api.post(`/webhooks/${w.id}/rotate-secret`)).status, 200);
    assert.equal((await api.delete(`/webhooks/${w.id}`)).status, 204);
    const rows = await ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target_type', '=', 'webhook')
      .where('target_id', '=', String(w.id))
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor_kind, r.actor_user_id, r.account_id]),
      [
        ['webhook.create', 'token', ctx.account.users.admin, ctx.account.accountId],
        ['webhook.rotate_secret', 'token', ctx.account.users.admin, ctx.account.accountId],
        ['webhook.delete', 'token', ctx.account.users.admin, ctx.account.accountId],
      ],
    );
    assert.ok(rows.every((r) => !/whsec_/.test(r.detail ?? '')));
  });

  it('422 on unknown scope names, a missing or non-HTTP(S) URL; nothing is written', async () => {
    const before = await countRows(ctx.db, 'webhooks');
    let p = expectProblem(
      await api.post('/webhooks', { url: 'https://x.example.com/', scopes: ['task:create', 'task:created'] }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      p.errors!.map((e) => e.field),
      ['scopes.1'],
    );
    // The answer names the valid subscriptions, so a misspelt one can be corrected from it.
    assert.equal(p.errors![0]!.message, `must be one of: ${ALL_SCOPES.join(', ')}`);
    p = expectProblem(await api.post('/webhooks', { scopes: [] }), 422, 'validation_failed');
    assert.deepEqual(p.errors!.map((e) => e.field).sort(), ['scopes', 'url']);
    for (const url of [
      'ftp://files.example.com/in',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://x.example.com/',
      'hooks.example.com/no-scheme',
      'https://user:pw@hooks.example.com/',
    ]) {
      p = expectProblem(
        await api.post('/webhooks', { url, scopes: ['task:create'] }),
        422,
        'validation_failed',
      );
      assert.deepEqual(
        p.errors!.map((e) => e.field),
        ['url'],
        url,
      );
    }
    assert.equal(await countRows(ctx.db, 'webhooks'), before);
  });

  it('rotates the secret: a new one shown once, the previous one valid for 24 h', async () => {
    const w = (await api.post('/webhooks', { url: 'https://hooks.example.com/rot', scopes: ['task:create'] }))
      .body.data;
    const res = await api.post(`/webhooks/${w.id}/rotate-secret`);
    assert.equal(res.status, 200);
    const rotated = res.body.data;
    assert.match(rotated.signature_secret_key, /^whsec_/);
    assert.notEqual(rotated.signature_secret_key, w.signature_secret_key);
    const overlap = Date.parse(rotated.previous_secret_expires_at) - Date.now();
    assert.ok(overlap > 23.9 * 3600_000 && overlap <= 24 * 3600_000, String(overlap));
    const row = await ctx.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', w.id)
      .executeTakeFirstOrThrow();
    const key = ctx.app.config.secretKey;
    assert.equal(decryptSecret(key, row.secret_enc, ctx.account.accountId), rotated.signature_secret_key);
    assert.equal(decryptSecret(key, row.previous_secret_enc!, ctx.account.accountId), w.signature_secret_key);
    const shown = await api.get(`/webhooks/${w.id}`);
    assert.ok(!shown.text.includes('whsec_'));
    assert.equal(shown.body.data.previous_secret_expires_at, rotated.previous_secret_expires_at);
  });

  it('re-enables a disabled webhook', async () => {
    const w = (await api.post('/webhooks', { url: 'https://hooks.example.com/dis', scopes: ['task:create'] }))
      .body.data;
    await ctx.db
      .updateTable('webhooks')
      .set({ active: 0, disabled_at: new Date().toISOString(), disabled_reason: 'test' })
      .where('id', '=', w.id)
      .execute();
    const shown = await api.get(`/webhooks/${w.id}`);
    assert.equal(shown.body.data.status, 'disabled');
    assert.equal(shown.body.data.disabled_reason, 'test');
    const res = await api.post(`/webhooks/${w.id}/enable`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, 'active');
    assert.equal(res.body.data.disabled_at, null);
    assert.equal(res.body.data.disabled_reason, null);
  });

  it('documents every webhook operation with its scope in OpenAPI', async () => {
    const doc = (await ctx.anon.get('/api/v1/openapi.json')).body;
    for (const [path, method] of [
      ['/api/v1/webhooks', 'get'],
      ['/api/v1/webhooks', 'post'],
      ['/api/v1/webhooks/{id}', 'delete'],
      ['/api/v1/webhooks/{id}/rotate-secret', 'post'],
      ['/api/v1/webhooks/{id}/deliveries', 'get'],
      ['/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend', 'post'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path}`);
      assert.deepEqual(op['x-required-scopes'], ['integration']);
    }
  });
});

describeEachDb(
  'webhooks: address guard (WEBHOOK_ALLOW_PRIVATE off)',
  (ctx) => {
    let api: Api;
    before(async () => {
      api = await ctx.as('integration');
    });

    it('refuses loopback, private, link-local, metadata and non-HTTP targets with 422', async () => {
      const before = await countRows(ctx.db, 'webhooks');
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost/hook',
        'http://api.localhost/hook',
        'http://10.0.0.5/hook',
        'http://172.16.3.4/hook',
        'http://192.168.1.1/hook',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[fd00:ec2::254]/hook',
        'http://[fe80::1]/hook',
        'http://0x7f000001/hook',
        'http://2130706433/hook',
        'http://0.0.0.0/hook',
        'http://100.100.100.200/hook',
        'ftp://93.184.215.14/hook',
      ]) {
        const p = expectProblem(
          await api.post('/webhooks', { url, scopes: ['task:create'] }),
          422,
          'validation_failed',
        );
        assert.deepEqual(
          p.errors!.map((e) => e.field),
          ['url'],
          url,
        );
        // A private target is refused by a setting: the answer names it; a wrong scheme is not about it.
        assert.equal(
          p.errors![0]!.message.includes('WEBHOOK_ALLOW_PRIVATE=true'),
          !url.startsWith('ftp:'),
          `${url}: ${p.errors![0]!.message}`,
        );
      }
      assert.equal(await countRows(ctx.db, 'webhooks'), before);
    });

    it('accepts a public address', async () => {
      const res = await api.post('/webhooks', { url: 'https://93.184.215.14/hook', scopes: ['task:create'] });
      assert.equal(res.status, 201);
    });
  },
  { config: { webhookAllowPrivate: false } },
);

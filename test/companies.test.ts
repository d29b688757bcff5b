import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, countRows, describeEachDb, expectProblem, type TestContext } from './helpers.js';

/** Event rows of one company, oldest first, with parsed payloads. */
async function companyEvents(ctx: TestContext, id: number) {
  const rows = await ctx.db
    .selectFrom('events')
    .select(['kind', 'payload', 'account_id', 'resource_type'])
    .where('resource_type', '=', 'company')
    .where('resource_id', '=', id)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) }));
}

// Every assert.ok carries a message: without one, a failing assert.ok re-reads the source to
// describe the expression, and under tsx that hung the test process.
const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((c) => c.id);

describeEachDb('companies', (ctx) => {
  let writer: Api;
  let reader: Api;
  let writeOnly: Api;
  let none: Api;

  before(async () => {
    writer = await ctx.as('contact-data:read contact-data:write');
    reader = await ctx.as('contact-data:read');
    writeOnly = await ctx.as('contact-data:write');
    none = await ctx.as('client:read client:write');
    await importData(
      ctx.db,
      {
        custom_fields: [
          { entity: 'company', key: 'tier', label: 'Tier', type: 'select', options: ['gold', 'silver'] },
          { entity: 'company', key: 'seats', label: 'Seats', type: 'number' },
          { entity: 'company', key: 'vip', label: 'VIP', type: 'boolean' },
          { entity: 'company', key: 'since', label: 'Customer since', type: 'date' },
          { entity: 'contact', key: 'tier', label: 'Contact tier', type: 'text' },
        ],
      },
      { accountId: ctx.account.accountId },
    );
  });

  it('creates a company: 201, Location, every field back, company:created recorded', async () => {
    const body = {
      name: 'Stark Industries',
      email: 'billing@stark.example',
      phone: '+1 555 0100',
      website: 'https://stark.example',
      street: '10880 Malibu Point',
      zip: '90265',
      city: 'Malibu',
      country_code: 'US',
      vat_id: 'US123',
      tax_number: '12-3456789',
      notes: 'Pays late',
      custom_fields: { tier: 'gold', seats: 12, vip: true, since: '2024-02-29' },
      external_id: 'crm-stark',
    };
    const res = await writer.post('/companies', body);
    assert.equal(res.status, 201);
    const c = res.body.data;
    assert.equal(res.headers.location, `/api/v1/companies/${c.id}`);
    assert.deepEqual(
      { ...c, id: undefined, archived_at: undefined, created_at: undefined, updated_at: undefined },
      { ...body, id: undefined, archived_at: undefined, created_at: undefined, updated_at: undefined },
    );
    assert.equal(c.archived_at, null);
    assert.match(c.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.deepEqual((await reader.get(`/companies/${c.id}`)).body.data, c);

    const events = await companyEvents(ctx, c.id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['company:created'],
    );
    assert.deepEqual(events[0]!.payload, c);
    assert.equal(events[0]!.account_id, ctx.account.accountId);

    const minimal = await writer.post('/companies', { name: 'Minimal' });
    assert.equal(minimal.body.data.email, null);
    assert.deepEqual(minimal.body.data.custom_fields, {});
  });

  it('401 without or with a bad token on every endpoint', async () => {
    const { body } = await writer.post('/companies', { name: 'Auth' });
    const id = body.data.id;
    for (const [method, path] of [
      ['GET', '/companies'],
      ['POST', '/companies'],
      ['GET', `/companies/${id}`],
      ['PATCH', `/companies/${id}`],
      ['DELETE', `/companies/${id}`],
      ['POST', `/companies/${id}/restore`],
      ['PUT', `/companies/${id}/external-identifier`],
    ] as const) {
      const res = await ctx.anon.request(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      expectProblem(res, 401, 'unauthorized');
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
    }
    const bad = new (writer.constructor as typeof Api)(ctx.app, 'pat_nope');
    expectProblem(await bad.get('/companies'), 401, 'invalid_token');
  });

  it('403 names the missing scope, before validating the body, and changes nothing', async () => {
    const { body } = await writer.post('/companies', { name: 'Scoped' });
    const id = body.data.id;
    const companies = await countRows(ctx.db, 'companies');
    const events = await countRows(ctx.db, 'events');
    for (const api of [none, writeOnly]) {
      for (const path of ['/companies', `/companies/${id}`]) {
        const p = expectProblem(await api.get(path), 403, 'insufficient_scope');
        assert.deepEqual(p.required_scopes, ['contact-data:read']);
      }
    }
    for (const api of [none, reader]) {
      for (const res of [
        await api.post('/companies', { name: 42 }),
        await api.patch(`/companies/${id}`, { name: 'x' }),
        await api.delete(`/companies/${id}`),
        await api.post(`/companies/${id}/restore`),
        await api.put(`/companies/${id}/external-identifier`, { external_id: 'x', force: true }),
      ]) {
        const p = expectProblem(res, 403, 'insufficient_scope');
        assert.deepEqual(p.required_scopes, ['contact-data:write']);
      }
    }
    assert.equal(await countRows(ctx.db, 'companies'), companies);
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.equal((await reader.get(`/companies/${id}`)).body.data.archived_at, null);
    // With the write scope alone, writes work.
    assert.equal((await writeOnly.patch(`/companies/${id}`, { city: 'Kiel' })).status, 200);
  });

  it('422 names each bad field and writes nothing (no row, no event)', async () => {
    const companies = await countRows(ctx.db, 'companies');
    const events = await countRows(ctx.db, 'events');
    const p = expectProblem(
      await writer.post('/companies', {
        name: '',
        email: 'not-an-email',
        country_code: 'Germany',
        website: 'x'.repeat(2049),
        custom_fields: { nested: { no: 1 }, list: [1] },
      }),
      422,
      'validation_failed',
    );
    const fields = new Set(p.errors!.map((e) => e.field));
    for (const f of [
      'name',
      'email',
      'country_code',
      'website',
      'custom_fields.nested',
      'custom_fields.list',
    ]) {
      assert.ok(fields.has(f), `expected ${f} in ${[...fields].join(', ')}`);
    }
    expectProblem(await writer.post('/companies', {}), 422);
    expectProblem(await writer.post('/companies', { name: 'x', custom_fields: ['a'] }), 422);
    // Values are checked against the account's definitions for companies.
    const defs = expectProblem(
      await writer.post('/companies', {
        name: 'x',
        custom_fields: { seats: 'many', tier: 'bronze', since: '2023-02-29', nope: 1 },
      }),
      422,
      'validation_failed',
    );
    assert.deepEqual(defs.errors!.map((e) => e.field).sort(), [
      'custom_fields.nope',
      'custom_fields.seats',
      'custom_fields.since',
      'custom_fields.tier',
    ]);
    expectProblem(await writer.post('/companies', { name: 'x', custom_fields: { '': 1 } }), 422);
    expectProblem(
      await writer.post('/companies', { name: 'x', custom_fields: { ['k'.repeat(101)]: 1 } }),
      422,
    );
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    expectProblem(await writer.post('/companies', { name: 'x', custom_fields: many }), 422);
    const { body } = await writer.post('/companies', { name: 'Valid' });
    const before = await countRows(ctx.db, 'events');
    const bad = expectProblem(await writer.patch(`/companies/${body.data.id}`, { name: null, zip: 5 }), 422);
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['name', 'zip']);
    expectProblem(
      await writer.put(`/companies/${body.data.id}/external-identifier`, { external_id: '' }),
      422,
    );
    expectProblem(await writer.put(`/companies/${body.data.id}/external-identifier`, {}), 422);
    expectProblem(await writer.get('/companies?per_page=101'), 422);
    expectProblem(await writer.get('/companies/abc'), 422);
    assert.equal((await reader.get(`/companies/${body.data.id}`)).body.data.name, 'Valid');
    assert.equal(await countRows(ctx.db, 'companies'), companies + 1);
    assert.equal(await countRows(ctx.db, 'events'), before);
    assert.equal(before, events + 1);
  });

  it('404 for unknown ids and for another account’s company, on every endpoint', async () => {
    const { body } = await writer.post('/companies', { name: 'Mine Ltd', external_id: 'mine-1' });
    const id = body.data.id;
    const stranger = await ctx.as('contact-data:read contact-data:write', { accountId: ctx.other.accountId });
    const events = await countRows(ctx.db, 'events');
    for (const [api, target] of [
      [stranger, id],
      [writer, 999999],
    ] as const) {
      expectProblem(await api.get(`/companies/${target}`), 404, 'not_found');
      expectProblem(await api.patch(`/companies/${target}`, { name: 'stolen' }), 404, 'not_found');
      expectProblem(await api.delete(`/companies/${target}`), 404, 'not_found');
      expectProblem(await api.post(`/companies/${target}/restore`), 404, 'not_found');
      expectProblem(
        await api.put(`/companies/${target}/external-identifier`, { external_id: 'x', force: true }),
        404,
        'not_found',
      );
    }
    assert.ok(
      !ids(await stranger.get('/companies?archived=true&per_page=100')).includes(id),
      'not in the other account’s list',
    );
    assert.deepEqual(ids(await stranger.get('/companies?external_id=mine-1')), []);
    // The same external id is free in another account.
    assert.equal((await stranger.post('/companies', { name: 'Theirs', external_id: 'mine-1' })).status, 201);
    assert.equal(await countRows(ctx.db, 'events'), events + 1);
    assert.deepEqual((await reader.get(`/companies/${id}`)).body.data, body.data);
  });

  it('PATCH changes the given fields, never external_id; custom_fields merged; company:updated', async () => {
    const { body } = await writer.post('/companies', {
      name: 'Patch Co',
      city: 'Bonn',
      external_id: 'patch-ext',
      custom_fields: { tier: 'gold', seats: 3 },
    });
    const id = body.data.id;
    const res = await writer.patch(`/companies/${id}`, {
      name: 'Patched Co',
      email: 'p@patched.example',
      external_id: 'changed',
      custom_fields: { vip: false, seats: null },
    });
    assert.equal(res.status, 200);
    const c = res.body.data;
    assert.equal(c.name, 'Patched Co');
    assert.equal(c.email, 'p@patched.example');
    assert.equal(c.city, 'Bonn');
    assert.equal(c.external_id, 'patch-ext');
    // Keys left out keep their value, null clears one.
    assert.deepEqual(c.custom_fields, { tier: 'gold', vip: false });
    assert.ok(c.updated_at >= body.data.updated_at, 'updated_at moves forward');
    assert.equal((await writer.patch(`/companies/${id}`, { city: null })).body.data.city, null);
    // Only ignored keys: nothing changes, nothing is recorded.
    const noop = await writer.patch(`/companies/${id}`, { external_id: 'again' });
    assert.equal(noop.status, 200);
    assert.equal(noop.body.data.external_id, 'patch-ext');
    const events = await companyEvents(ctx, id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['company:created', 'company:updated', 'company:updated'],
    );
    assert.deepEqual(events[1]!.payload, c);
    // Search follows the rename.
    assert.deepEqual(ids(await reader.get('/companies?q=patched co')), [id]);
    assert.deepEqual(ids(await reader.get('/companies?q=patch co')), []);
  });

  it('archives with DELETE and restores; archived stay readable, lists leave them out', async () => {
    const { body } = await writer.post('/companies', { name: 'Archive Me' });
    const id = body.data.id;
    const del = await writer.delete(`/companies/${id}`);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const read = await reader.get(`/companies/${id}`);
    assert.ok(read.body.data.archived_at, 'archived_at is set');
    assert.ok(!ids(await reader.get('/companies?q=archive me')).includes(id), 'left out of the list');
    assert.deepEqual(ids(await reader.get('/companies?q=archive me&archived=true')), [id]);
    // Archiving again changes nothing and records nothing.
    assert.equal((await writer.delete(`/companies/${id}`)).status, 204);
    assert.equal((await reader.get(`/companies/${id}`)).body.data.archived_at, read.body.data.archived_at);

    const restored = await writer.post(`/companies/${id}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.data.archived_at, null);
    assert.deepEqual(ids(await reader.get('/companies?q=archive me')), [id]);
    assert.equal((await writer.post(`/companies/${id}/restore`)).status, 200);

    const events = await companyEvents(ctx, id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['company:created', 'company:deleted', 'company:updated'],
    );
    assert.deepEqual(events[1]!.payload, read.body.data);
    assert.deepEqual(events[2]!.payload, restored.body.data);
  });

  it('external identifier: set, 409 on clash or replacement, force overwrites in one go', async () => {
    const a = (await writer.post('/companies', { name: 'Ext A' })).body.data;
    const b = (await writer.post('/companies', { name: 'Ext B' })).body.data;
    const set = await writer.put(`/companies/${a.id}/external-identifier`, { external_id: 'hub-1' });
    assert.equal(set.status, 200);
    assert.equal(set.body.data.external_id, 'hub-1');
    // The same value again: nothing changes, nothing is recorded.
    const same = await writer.put(`/companies/${a.id}/external-identifier`, { external_id: 'hub-1' });
    assert.equal(same.body.data.updated_at, set.body.data.updated_at);

    const events = await countRows(ctx.db, 'events');
    const taken = expectProblem(
      await writer.put(`/companies/${b.id}/external-identifier`, { external_id: 'hub-1' }),
      409,
      'external_id_taken',
    );
    assert.deepEqual(taken.errors, [{ field: 'external_id', message: 'is already in use' }]);
    expectProblem(
      await writer.post('/companies', { name: 'Dup', external_id: 'hub-1' }),
      409,
      'external_id_taken',
    );
    expectProblem(
      await writer.put(`/companies/${a.id}/external-identifier`, { external_id: 'hub-2' }),
      409,
      'external_id_set',
    );
    expectProblem(
      await writer.put(`/companies/${a.id}/external-identifier`, { external_id: null }),
      409,
      'external_id_set',
    );
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.equal((await reader.get(`/companies/${a.id}`)).body.data.external_id, 'hub-1');
    assert.equal((await reader.get(`/companies/${b.id}`)).body.data.external_id, null);

    const forced = await writer.put(`/companies/${b.id}/external-identifier`, {
      external_id: 'hub-1',
      force: true,
    });
    assert.equal(forced.status, 200);
    assert.equal(forced.body.data.external_id, 'hub-1');
    const aNow = (await reader.get(`/companies/${a.id}`)).body.data;
    assert.equal(aNow.external_id, null);
    assert.deepEqual(ids(await reader.get('/companies?external_id=hub-1')), [b.id]);
    assert.deepEqual((await companyEvents(ctx, a.id)).at(-1)!.payload, aNow);
    assert.deepEqual((await companyEvents(ctx, b.id)).at(-1)!.payload, forced.body.data);
    assert.equal(await countRows(ctx.db, 'events'), events + 2);

    // Force replaces this record's own different value; force also clears it.
    const replaced = await writer.put(`/companies/${b.id}/external-identifier`, {
      external_id: 'hub-9',
      force: true,
    });
    assert.equal(replaced.body.data.external_id, 'hub-9');
    const cleared = await writer.put(`/companies/${b.id}/external-identifier`, {
      external_id: null,
      force: true,
    });
    assert.equal(cleared.body.data.external_id, null);
    assert.deepEqual(
      (await companyEvents(ctx, b.id)).map((e) => e.kind),
      ['company:created', 'company:updated', 'company:updated', 'company:updated'],
    );
    // An archived company still holds its external id.
    await writer.put(`/companies/${a.id}/external-identifier`, { external_id: 'hub-arch' });
    await writer.delete(`/companies/${a.id}`);
    expectProblem(
      await writer.put(`/companies/${b.id}/external-identifier`, { external_id: 'hub-arch' }),
      409,
      'external_id_taken',
    );
    assert.deepEqual(ids(await reader.get('/companies?external_id=hub-arch')), []);
    assert.deepEqual(ids(await reader.get('/companies?external_id=hub-arch&archived=true')), [a.id]);
  });

  it('search: name or email, case-insensitive (also beyond ASCII), wildcards are plain text', async () => {
    const mk = async (name: string, email?: string) =>
      (await writer.post('/companies', { name, ...(email ? { email } : {}) })).body.data.id as number;
    const mueller = await mk('MÜLLER Söhne Zzq', 'info@mueller-zzq.example');
    const pct = await mk('Zzq 50% Rabatt GmbH');
    const plain = await mk('Zzq 500 Rabatt GmbH');
    const under = await mk('zzq_under AG', 'a_b@zzq.example');
    const noUnder = await mk('zzqXunder AG');
    const quoted = await mk('Say "Zzq" Inc');
    const q = async (term: string) => ids(await reader.get(`/companies?q=${encodeURIComponent(term)}`));
    assert.deepEqual(await q('müller'), [mueller]);
    assert.deepEqual(await q('SÖHNE'), [mueller]);
    assert.deepEqual(await q('MUELLER-ZZQ.EXAMPLE'), [mueller]);
    assert.deepEqual(await q('zzq 50%'), [pct]);
    assert.deepEqual(await q('50'), [pct, plain]);
    assert.deepEqual(await q('zzq_'), [under]);
    assert.deepEqual(await q('q_u'), [under]);
    assert.deepEqual(await q('a_b@'), [under]);
    assert.deepEqual(await q('zzq*'), []);
    assert.deepEqual(await q('zz?'), []);
    assert.deepEqual(await q('[z]zq'), []);
    assert.deepEqual(await q('"zzq"'), [quoted]);
    assert.deepEqual(await q('y "z'), [quoted]);
    assert.deepEqual((await q('zzq')).sort(), [mueller, pct, plain, under, noUnder, quoted].sort());
    assert.deepEqual(await q('zq'), await q('ZZQ'));
    // Paging keeps the filter and counts matches only.
    const page = await reader.get('/companies?q=zzq&per_page=2');
    assert.deepEqual(page.body.meta, { page: 1, per_page: 2, total: 6 });
    assert.match(String(page.headers.link), /q=zzq/);
  });

  it('lists by id, filters by updated_since, pages with Link', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const list = await reader.get('/companies?per_page=100');
    assert.equal(list.status, 200);
    const all = ids(list);
    assert.deepEqual(
      all,
      [...all].sort((x, y) => x - y),
    );
    assert.equal(list.body.meta.total, all.length);
    const since = await reader.get(`/companies?updated_since=${encodeURIComponent(before)}&per_page=100`);
    assert.ok(since.body.meta.total > 0, 'recent changes are listed');
    const future = new Date(Date.now() + 60_000).toISOString();
    assert.equal(
      (await reader.get(`/companies?updated_since=${encodeURIComponent(future)}`)).body.meta.total,
      0,
    );
    const p1 = await reader.get('/companies?per_page=1');
    assert.match(String(p1.headers.link), /rel="next"/);
  });

  it('required custom fields must be given on create, and cannot be cleared', async () => {
    await importData(
      ctx.db,
      {
        custom_fields: [{ entity: 'company', key: 'region', label: 'Region', type: 'text', required: true }],
      },
      { accountId: ctx.other.accountId },
    );
    const api = await ctx.as('contact-data:read contact-data:write', { accountId: ctx.other.accountId });
    const missing = expectProblem(await api.post('/companies', { name: 'No region' }), 422);
    assert.deepEqual(missing.errors, [{ field: 'custom_fields.region', message: 'is required' }]);
    const ok = await api.post('/companies', { name: 'North', custom_fields: { region: 'north' } });
    assert.equal(ok.status, 201);
    expectProblem(await api.patch(`/companies/${ok.body.data.id}`, { custom_fields: { region: null } }), 422);
    // A PATCH that leaves custom_fields out does not touch them.
    const renamed = await api.patch(`/companies/${ok.body.data.id}`, { name: 'North AG' });
    assert.deepEqual(renamed.body.data.custom_fields, { region: 'north' });
    // The definitions of one account do not apply to another.
    assert.equal((await writer.post('/companies', { name: 'No region here' })).status, 201);
  });

  it('OpenAPI documents every companies and contacts operation with scopes and its error codes', async () => {
    const doc = (await ctx.anon.get('/api/v1/openapi.json')).body;
    const expected: [string, string, string, number[]][] = [
      ['get', '/companies', 'contact-data:read', [200, 401, 403, 422]],
      ['post', '/companies', 'contact-data:write', [201, 401, 403, 409, 422]],
      ['get', '/companies/{id}', 'contact-data:read', [200, 401, 403, 404]],
      ['patch', '/companies/{id}', 'contact-data:write', [200, 401, 403, 404, 422]],
      ['delete', '/companies/{id}', 'contact-data:write', [204, 401, 403, 404]],
      ['post', '/companies/{id}/restore', 'contact-data:write', [200, 401, 403, 404]],
      ['put', '/companies/{id}/external-identifier', 'contact-data:write', [200, 401, 403, 404, 409, 422]],
      ['get', '/contacts', 'contact-data:read', [200, 401, 403, 422]],
      ['post', '/contacts', 'contact-data:write', [201, 401, 403, 409, 422]],
      ['get', '/contacts/{id}', 'contact-data:read', [200, 401, 403, 404]],
      ['patch', '/contacts/{id}', 'contact-data:write', [200, 401, 403, 404, 422]],
      ['delete', '/contacts/{id}', 'contact-data:write', [204, 401, 403, 404]],
      ['post', '/contacts/{id}/restore', 'contact-data:write', [200, 401, 403, 404]],
      ['put', '/contacts/{id}/external-identifier', 'contact-data:write', [200, 401, 403, 404, 409, 422]],
      ['put', '/contacts/{id}/company/attach', 'contact-data:write', [200, 401, 403, 404, 409, 422]],
      ['put', '/contacts/{id}/company/detach', 'contact-data:write', [200, 401, 403, 404, 409]],
    ];
    for (const [method, path, scope, codes] of expected) {
      const op = doc.paths[`/api/v1${path}`]?.[method];
      assert.ok(op, `${method} ${path} is documented`);
      assert.deepEqual(op['x-required-scopes'], [scope], `${method} ${path} scopes`);
      assert.ok(op.summary, `${method} ${path} has a summary`);
      for (const code of codes) assert.ok(op.responses[code], `${method} ${path} documents ${code}`);
      if (codes.includes(409)) assert.match(op.description, /409/, `${method} ${path} explains its 409`);
    }
    const contact = doc.components.schemas.Contact;
    for (const f of [
      'salutation',
      'first_name',
      'last_name',
      'email',
      'phone',
      'mobile',
      'position',
      'company_id',
      'external_id',
      'custom_fields',
      'archived_at',
    ]) {
      assert.ok(contact.properties[f], `Contact.${f} is documented`);
    }
  });
});

import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('clients', (ctx) => {
  let writer: Api;
  let reader: Api;
  let none: Api;

  before(async () => {
    writer = await ctx.as('client:write client:read');
    reader = await ctx.as('client:read');
    none = await ctx.as([]);
  });

  it('creates a client: 201, Location, full data back', async () => {
    const res = await writer.post('/clients', {
      name: 'Wayne Enterprises',
      email: 'ap@wayne.example',
      country_code: 'US',
      shortcode: 'WAYNE',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.location, `/api/v1/clients/${res.body.data.id}`);
    assert.equal(res.body.data.name, 'Wayne Enterprises');
    assert.equal(res.body.data.shortcode, 'WAYNE');
    assert.equal(res.body.data.external_id, null);
    assert.equal(res.body.data.archived_at, null);
    const again = await reader.get(`/clients/${res.body.data.id}`);
    assert.deepEqual(again.body.data, res.body.data);
  });

  it('refuses without token (401) and without client:write (403, before validating the body)', async () => {
    const res401 = await ctx.anon.post('/clients', { name: 'x' });
    expectProblem(res401, 401, 'unauthorized');
    assert.match(String(res401.headers['www-authenticate']), /^Bearer/);
    expectProblem(
      await new (writer.constructor as typeof Api)(ctx.app, 'pat_nope').get('/clients'),
      401,
      'invalid_token',
    );
    const res403 = await reader.post('/clients', { not: 'even valid' });
    const p = expectProblem(res403, 403, 'insufficient_scope');
    assert.deepEqual(p.required_scopes, ['client:write']);
  });

  it('422 names each bad field and writes nothing', async () => {
    const before = await countRows(ctx.db, 'clients');
    const res = await writer.post('/clients', { name: '', email: 'not-an-email', payment_term_days: -1 });
    const p = expectProblem(res, 422, 'validation_failed');
    assert.deepEqual(p.errors!.map((e) => e.field).sort(), ['email', 'name', 'payment_term_days']);
    assert.equal(await countRows(ctx.db, 'clients'), before);
    expectProblem(
      await writer.post('/clients', '{"name": ', { 'content-type': 'application/json' }),
      400,
      'invalid_json',
    );
    expectProblem(await writer.post('/clients', { name: 42 }), 422);
  });

  it('basic list without scope, full list with client:read; archived left out unless asked', async () => {
    const a = await writer.post('/clients', { name: 'Listed One' });
    const b = await writer.post('/clients', { name: 'Listed Two' });
    await writer.delete(`/clients/${b.body.data.id}`);
    const basic = await none.get('/clients?per_page=100');
    assert.equal(basic.status, 200);
    const ids = basic.body.data.map((c: { id: number }) => c.id);
    assert.ok(ids.includes(a.body.data.id));
    assert.ok(!ids.includes(b.body.data.id));
    assert.deepEqual(Object.keys(basic.body.data[0]).sort(), ['archived_at', 'id', 'name', 'shortcode']);
    const withArchived = await none.get('/clients?archived=true&per_page=100');
    assert.ok(withArchived.body.data.some((c: { id: number }) => c.id === b.body.data.id));
    expectProblem(await none.get('/clients/full'), 403, 'insufficient_scope');
    const full = await reader.get('/clients/full?q=listed');
    assert.equal(full.status, 200);
    assert.deepEqual(
      full.body.data.map((c: { name: string }) => c.name),
      ['Listed One'],
    );
    assert.ok('external_id' in full.body.data[0]);
  });

  it('searches case-insensitively beyond ASCII, and takes LIKE wildcards literally', async () => {
    assert.equal((await writer.post('/clients', { name: 'ÄRZTEHAUS Süd' })).status, 201);
    await writer.post('/clients', { name: 'Ärztin 100% Öko' });
    await writer.post('/clients', { name: 'Arzt Nord' });
    const names = async (q: string) =>
      (await reader.get(`/clients?q=${encodeURIComponent(q)}&per_page=100`)).body.data.map(
        (c: { name: string }) => c.name,
      );
    assert.deepEqual(await names('ärzte'), ['ÄRZTEHAUS Süd']);
    assert.deepEqual(await names('SÜD'), ['ÄRZTEHAUS Süd']);
    assert.deepEqual(await names('ÄRZT'), ['ÄRZTEHAUS Süd', 'Ärztin 100% Öko']);
    assert.deepEqual(await names('100%'), ['Ärztin 100% Öko']);
    assert.deepEqual(await names('0%_'), []);
  });

  it('pages with meta and Link headers, ordered by id', async () => {
    for (let i = 0; i < 5; i++) await writer.post('/clients', { name: `Paged ${i}` });
    const p1 = await reader.get('/clients?q=paged&per_page=2');
    assert.deepEqual(p1.body.meta, { page: 1, per_page: 2, total: 5 });
    assert.match(String(p1.headers.link), /rel="next"/);
    assert.match(String(p1.headers.link), /page=3>; rel="last"/);
    const p3 = await reader.get('/clients?q=paged&per_page=2&page=3');
    assert.equal(p3.body.data.length, 1);
    assert.doesNotMatch(String(p3.headers.link), /rel="next"/);
    const names = [
      ...p1.body.data,
      ...(await reader.get('/clients?q=paged&per_page=2&page=2')).body.data,
    ].map((c: { name: string }) => c.name);
    assert.deepEqual(names, ['Paged 0', 'Paged 1', 'Paged 2', 'Paged 3']);
    expectProblem(await reader.get('/clients?per_page=101'), 422);
    expectProblem(await reader.get('/clients?page=0'), 422);
  });

  it('GET /clients/{id} widens to ClientFullData with any client: scope', async () => {
    const { body } = await writer.post('/clients', { name: 'Widening', email: 'w@x.example' });
    const basic = await none.get(`/clients/${body.data.id}`);
    assert.deepEqual(Object.keys(basic.body.data).sort(), ['archived_at', 'id', 'name', 'shortcode']);
    const onlyWrite = await ctx.as('client:write');
    const full = await onlyWrite.get(`/clients/${body.data.id}`);
    assert.equal(full.body.data.email, 'w@x.example');
  });

  it('another account’s client is a 404, for every endpoint', async () => {
    const { body } = await writer.post('/clients', { name: 'Mine' });
    const id = body.data.id;
    const stranger = await ctx.as('client:read client:write', { accountId: ctx.other.accountId });
    expectProblem(await stranger.get(`/clients/${id}`), 404, 'not_found');
    expectProblem(await stranger.patch(`/clients/${id}`, { name: 'stolen' }), 404);
    expectProblem(await stranger.delete(`/clients/${id}`), 404);
    expectProblem(await stranger.post(`/clients/${id}/restore`), 404);
    expectProblem(await stranger.put(`/clients/${id}/external-identifier`, { external_id: 'x' }), 404);
    expectProblem(await stranger.put(`/clients/${id}/shortcode`, { shortcode: 'X' }), 404);
    const list = await stranger.get('/clients/full?per_page=100');
    assert.ok(!list.body.data.some((c: { id: number }) => c.id === id));
    assert.equal((await reader.get(`/clients/${id}`)).body.data.name, 'Mine');
  });

  it('PATCH updates fields but never external_id or shortcode', async () => {
    const { body } = await writer.post('/clients', {
      name: 'Patchy',
      shortcode: 'PATCHY',
      external_id: 'ext-patchy',
    });
    const res = await writer.patch(`/clients/${body.data.id}`, {
      name: 'Patched',
      city: 'Hamburg',
      external_id: 'changed',
      shortcode: 'NO',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'Patched');
    assert.equal(res.body.data.city, 'Hamburg');
    assert.equal(res.body.data.external_id, 'ext-patchy');
    assert.equal(res.body.data.shortcode, 'PATCHY');
    assert.ok(res.body.data.updated_at >= body.data.updated_at);
    expectProblem(await writer.patch('/clients/999999', { name: 'x' }), 404);
    expectProblem(await writer.patch(`/clients/${body.data.id}`, { name: null }), 422);
    expectProblem(await reader.patch(`/clients/${body.data.id}`, { name: 'x' }), 403);
  });

  it('archives with DELETE (204, still readable) and restores', async () => {
    const { body } = await writer.post('/clients', { name: 'Archivable' });
    const del = await writer.delete(`/clients/${body.data.id}`);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const read = await reader.get(`/clients/${body.data.id}`);
    assert.ok(read.body.data.archived_at);
    const restored = await writer.post(`/clients/${body.data.id}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.data.archived_at, null);
    expectProblem(await reader.delete(`/clients/${body.data.id}`), 403);
    expectProblem(await writer.delete('/clients/999999'), 404);
  });

  it('sets external identifier and shortcode; clashes are 409, force moves the external id', async () => {
    const a = (await writer.post('/clients', { name: 'Ext A' })).body.data;
    const b = (await writer.post('/clients', { name: 'Ext B' })).body.data;
    const set = await writer.put(`/clients/${a.id}/external-identifier`, { external_id: 'crm-1' });
    assert.equal(set.status, 200);
    assert.equal(set.body.data.external_id, 'crm-1');
    expectProblem(
      await writer.put(`/clients/${b.id}/external-identifier`, { external_id: 'crm-1' }),
      409,
      'external_id_taken',
    );
    const forced = await writer.put(`/clients/${b.id}/external-identifier`, {
      external_id: 'crm-1',
      force: true,
    });
    assert.equal(forced.body.data.external_id, 'crm-1');
    assert.equal((await reader.get(`/clients/${a.id}`)).body.data.external_id, null);
    const byExt = await reader.get('/clients/full?external_id=crm-1');
    assert.deepEqual(
      byExt.body.data.map((c: { id: number }) => c.id),
      [b.id],
    );

    assert.equal(
      (await writer.put(`/clients/${a.id}/shortcode`, { shortcode: 'EXTA' })).body.data.shortcode,
      'EXTA',
    );
    expectProblem(
      await writer.put(`/clients/${b.id}/shortcode`, { shortcode: 'EXTA' }),
      409,
      'shortcode_taken',
    );
    expectProblem(await writer.post('/clients', { name: 'dup', shortcode: 'EXTA' }), 409, 'shortcode_taken');
    expectProblem(await writer.put(`/clients/${b.id}/shortcode`, { shortcode: 'has space' }), 422);
    expectProblem(await reader.put(`/clients/${b.id}/shortcode`, { shortcode: 'X' }), 403);
  });

  it('external identifier: replacing or clearing its own value needs force; the same value changes nothing', async () => {
    const c = (await writer.post('/clients', { name: 'Ext C', external_id: 'crm-own' })).body.data;
    const same = await writer.put(`/clients/${c.id}/external-identifier`, { external_id: 'crm-own' });
    assert.equal(same.status, 200);
    assert.equal(same.body.data.updated_at, c.updated_at, 'the same value writes nothing');
    for (const external_id of ['crm-other', null]) {
      const refused = await writer.put(`/clients/${c.id}/external-identifier`, { external_id });
      expectProblem(refused, 409, 'external_id_set');
      assert.deepEqual(refused.body.errors, [{ field: 'external_id', message: 'is already set' }]);
    }
    assert.equal((await reader.get(`/clients/${c.id}`)).body.data.external_id, 'crm-own', 'unchanged');
    const replaced = await writer.put(`/clients/${c.id}/external-identifier`, {
      external_id: 'crm-other',
      force: true,
    });
    assert.equal(replaced.body.data.external_id, 'crm-other');
    const cleared = await writer.put(`/clients/${c.id}/external-identifier`, {
      external_id: null,
      force: true,
    });
    assert.equal(cleared.body.data.external_id, null);
  });
});

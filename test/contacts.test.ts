import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, countRows, describeEachDb, expectProblem, type TestContext } from './helpers.js';

/** Event rows of one contact, oldest first, with parsed payloads. */
async function contactEvents(ctx: TestContext, id: number) {
  const rows = await ctx.db
    .selectFrom('events')
    .select(['kind', 'payload', 'account_id', 'integration_id'])
    .where('resource_type', '=', 'contact')
    .where('resource_id', '=', id)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) }));
}

const kinds = async (ctx: TestContext, id: number) => (await contactEvents(ctx, id)).map((e) => e.kind);
// Every assert.ok carries a message: without one, a failing assert.ok re-reads the source to
// describe the expression, and under tsx that hung the test process.
const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((c) => c.id);

describeEachDb('contacts', (ctx) => {
  let writer: Api;
  let reader: Api;
  let writeOnly: Api;
  let none: Api;
  let company: { id: number; name: string };

  before(async () => {
    writer = await ctx.as('contact-data:read contact-data:write');
    reader = await ctx.as('contact-data:read');
    writeOnly = await ctx.as('contact-data:write');
    none = await ctx.as('client:read client:write');
    company = (await writer.post('/companies', { name: 'Wayne Enterprises' })).body.data;
    await importData(
      ctx.db,
      {
        custom_fields: [
          { entity: 'contact', key: 'newsletter', label: 'Newsletter', type: 'boolean' },
          { entity: 'contact', key: 'score', label: 'Score', type: 'number' },
          { entity: 'contact', key: 'source', label: 'Source', type: 'text' },
          { entity: 'company', key: 'size', label: 'Size', type: 'select', options: ['S', 'M', 'L'] },
        ],
      },
      { accountId: ctx.account.accountId },
    );
  });

  const newContact = async (body: Record<string, unknown> = {}) =>
    (await writer.post('/contacts', { last_name: 'Doe', ...body })).body.data as {
      id: number;
      company_id: number | null;
      external_id: string | null;
      updated_at: string;
    };

  it('creates a contact: 201, Location, every field back, contact:created recorded', async () => {
    const body = {
      salutation: 'Ms',
      title: 'Dr.',
      first_name: 'Leslie',
      last_name: 'Thompkins',
      email: 'leslie@clinic.example',
      phone: '+1 555 0199',
      mobile: '+1 555 0100',
      position: 'Head of clinic',
      department: 'Medicine',
      street: 'Park Row 1',
      zip: '10001',
      city: 'Gotham',
      country_code: 'US',
      notes: 'Prefers phone',
      custom_fields: { newsletter: true, score: 4.5, source: 'fair' },
      external_id: 'crm-leslie',
      company_id: company.id,
    };
    const res = await writer.post('/contacts', body);
    assert.equal(res.status, 201);
    const c = res.body.data;
    assert.equal(res.headers.location, `/api/v1/contacts/${c.id}`);
    const { id, archived_at, created_at, updated_at, ...rest } = c;
    assert.deepEqual(rest, body);
    assert.equal(archived_at, null);
    assert.ok(created_at && updated_at && id > 0, 'id and timestamps are set');
    assert.deepEqual((await reader.get(`/contacts/${c.id}`)).body.data, c);
    const events = await contactEvents(ctx, c.id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['contact:created'],
    );
    assert.deepEqual(events[0]!.payload, c);
    assert.equal(events[0]!.account_id, ctx.account.accountId);

    const minimal = (await writer.post('/contacts', { last_name: 'Solo' })).body.data;
    assert.equal(minimal.first_name, null);
    assert.equal(minimal.company_id, null);
    assert.deepEqual(minimal.custom_fields, {});
  });

  it('401 without or with a bad token on every endpoint', async () => {
    const { id } = await newContact();
    for (const [method, path] of [
      ['GET', '/contacts'],
      ['POST', '/contacts'],
      ['GET', `/contacts/${id}`],
      ['PATCH', `/contacts/${id}`],
      ['DELETE', `/contacts/${id}`],
      ['POST', `/contacts/${id}/restore`],
      ['PUT', `/contacts/${id}/external-identifier`],
      ['PUT', `/contacts/${id}/company/attach`],
      ['PUT', `/contacts/${id}/company/detach`],
    ] as const) {
      const res = await ctx.anon.request(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      expectProblem(res, 401, 'unauthorized');
    }
    const bad = new (writer.constructor as typeof Api)(ctx.app, 'pat_nope');
    expectProblem(await bad.get('/contacts'), 401, 'invalid_token');
  });

  it('403 names the missing scope, before validating the body, and changes nothing', async () => {
    const { id } = await newContact({ company_id: company.id });
    const events = await countRows(ctx.db, 'events');
    const contacts = await countRows(ctx.db, 'contacts');
    for (const api of [none, writeOnly]) {
      for (const path of ['/contacts', `/contacts/${id}`]) {
        const p = expectProblem(await api.get(path), 403, 'insufficient_scope');
        assert.deepEqual(p.required_scopes, ['contact-data:read']);
      }
    }
    for (const api of [none, reader]) {
      for (const res of [
        await api.post('/contacts', { nonsense: true }),
        await api.patch(`/contacts/${id}`, { last_name: 'x' }),
        await api.delete(`/contacts/${id}`),
        await api.post(`/contacts/${id}/restore`),
        await api.put(`/contacts/${id}/external-identifier`, { external_id: 'x', force: true }),
        await api.put(`/contacts/${id}/company/attach`, { company_id: company.id }),
        await api.put(`/contacts/${id}/company/detach`),
      ]) {
        const p = expectProblem(res, 403, 'insufficient_scope');
        assert.deepEqual(p.required_scopes, ['contact-data:write']);
      }
    }
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.equal(await countRows(ctx.db, 'contacts'), contacts);
    const still = (await reader.get(`/contacts/${id}`)).body.data;
    assert.equal(still.company_id, company.id);
    assert.equal(still.archived_at, null);
  });

  it('422 names each bad field and writes nothing (no row, no event)', async () => {
    const contacts = await countRows(ctx.db, 'contacts');
    const events = await countRows(ctx.db, 'events');
    const p = expectProblem(
      await writer.post('/contacts', {
        first_name: 7,
        email: 'nope',
        country_code: 'de',
        salutation: 'x'.repeat(65),
        custom_fields: { deep: { x: 1 } },
        company_id: 0,
      }),
      422,
      'validation_failed',
    );
    const fields = new Set(p.errors!.map((e) => e.field));
    for (const f of [
      'last_name',
      'first_name',
      'email',
      'country_code',
      'salutation',
      'custom_fields.deep',
      'company_id',
    ]) {
      assert.ok(fields.has(f), `expected ${f} in ${[...fields].join(', ')}`);
    }
    // A company's custom field is not a contact's.
    const foreign = expectProblem(
      await writer.post('/contacts', { last_name: 'X', custom_fields: { size: 'L', newsletter: 'yes' } }),
      422,
    );
    assert.deepEqual(foreign.errors!.map((e) => e.field).sort(), [
      'custom_fields.newsletter',
      'custom_fields.size',
    ]);
    const unknown = expectProblem(
      await writer.post('/contacts', { last_name: 'Ghost', company_id: 999999 }),
      422,
      'invalid_reference',
    );
    assert.deepEqual(unknown.errors, [{ field: 'company_id', message: 'no such company' }]);
    const { id } = await newContact({ first_name: 'Valid' });
    const after = await countRows(ctx.db, 'events');
    const bad = expectProblem(await writer.patch(`/contacts/${id}`, { last_name: '', email: 'x' }), 422);
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['email', 'last_name']);
    expectProblem(await writer.put(`/contacts/${id}/company/attach`, {}), 422);
    expectProblem(await writer.put(`/contacts/${id}/company/attach`, { company_id: 'one' }), 422);
    expectProblem(await writer.put(`/contacts/${id}/external-identifier`, { external_id: 5 }), 422);
    expectProblem(await writer.get('/contacts?company_id=abc'), 422);
    assert.equal((await reader.get(`/contacts/${id}`)).body.data.first_name, 'Valid');
    assert.equal(await countRows(ctx.db, 'contacts'), contacts + 1);
    assert.equal(after, events + 1);
    assert.equal(await countRows(ctx.db, 'events'), after);
  });

  it('404 for unknown ids and for another account’s contact, on every endpoint', async () => {
    const { id } = await newContact({ last_name: 'Mine', external_id: 'mine-c' });
    const stranger = await ctx.as('contact-data:read contact-data:write', { accountId: ctx.other.accountId });
    const theirCompany = (await stranger.post('/companies', { name: 'Theirs' })).body.data;
    const events = await countRows(ctx.db, 'events');
    for (const [api, target] of [
      [stranger, id],
      [writer, 999999],
    ] as const) {
      expectProblem(await api.get(`/contacts/${target}`), 404, 'not_found');
      expectProblem(await api.patch(`/contacts/${target}`, { last_name: 'x' }), 404, 'not_found');
      expectProblem(await api.delete(`/contacts/${target}`), 404, 'not_found');
      expectProblem(await api.post(`/contacts/${target}/restore`), 404, 'not_found');
      expectProblem(
        await api.put(`/contacts/${target}/external-identifier`, { external_id: 'x', force: true }),
        404,
        'not_found',
      );
      expectProblem(
        await api.put(`/contacts/${target}/company/attach`, { company_id: theirCompany.id }),
        404,
      );
      expectProblem(await api.put(`/contacts/${target}/company/detach`), 404, 'not_found');
    }
    assert.ok(
      !ids(await stranger.get('/contacts?archived=true&per_page=100')).includes(id),
      'not in the other account’s list',
    );
    // Another account's company cannot be attached (and looks the same as an unknown one).
    expectProblem(
      await writer.put(`/contacts/${id}/company/attach`, { company_id: theirCompany.id }),
      422,
      'invalid_reference',
    );
    expectProblem(
      await writer.post('/contacts', { last_name: 'X', company_id: theirCompany.id }),
      422,
      'invalid_reference',
    );
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.equal((await reader.get(`/contacts/${id}`)).body.data.company_id, null);
  });

  it('PATCH changes the given fields, ignores external_id, refuses company_id; contact:update', async () => {
    const c = await newContact({
      first_name: 'Patch',
      external_id: 'patch-c',
      company_id: company.id,
      custom_fields: { score: 1 },
    });
    const other = (await writer.post('/companies', { name: 'Other Co' })).body.data;
    // company_id has its own endpoints (attach/detach): on PATCH it is an unknown field.
    const refused = expectProblem(
      await writer.patch(`/contacts/${c.id}`, { first_name: 'Patched', company_id: other.id }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      refused.errors?.map((e) => e.field),
      ['company_id'],
    );
    const res = await writer.patch(`/contacts/${c.id}`, {
      first_name: 'Patched',
      position: 'CTO',
      external_id: 'nope',
      custom_fields: { source: 'x' },
    });
    assert.equal(res.status, 200);
    const d = res.body.data;
    assert.equal(d.first_name, 'Patched');
    assert.equal(d.last_name, 'Doe');
    assert.equal(d.position, 'CTO');
    assert.equal(d.external_id, 'patch-c');
    assert.equal(d.company_id, company.id);
    assert.deepEqual(d.custom_fields, { score: 1, source: 'x' });
    assert.ok(d.updated_at >= c.updated_at, 'updated_at moves forward');
    const events = await contactEvents(ctx, c.id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['contact:created', 'contact:update'],
    );
    assert.deepEqual(events[1]!.payload, d);
    assert.ok(ids(await reader.get('/contacts?q=patched doe')).includes(c.id), 'found by the new name');
    assert.ok(!ids(await reader.get('/contacts?q=patch doe')).includes(c.id), 'not found by the old name');
  });

  it('archives with DELETE and restores; archived stay readable, lists leave them out', async () => {
    const c = await newContact({ last_name: 'Archivable' });
    const del = await writer.delete(`/contacts/${c.id}`);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const read = (await reader.get(`/contacts/${c.id}`)).body.data;
    assert.ok(read.archived_at, 'archived_at is set');
    assert.deepEqual(ids(await reader.get('/contacts?q=archivable')), []);
    assert.deepEqual(ids(await reader.get('/contacts?q=archivable&archived=true')), [c.id]);
    assert.equal((await writer.delete(`/contacts/${c.id}`)).status, 204);
    const restored = await writer.post(`/contacts/${c.id}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.data.archived_at, null);
    assert.deepEqual(ids(await reader.get('/contacts?q=archivable')), [c.id]);
    assert.equal((await writer.post(`/contacts/${c.id}/restore`)).status, 200);
    const events = await contactEvents(ctx, c.id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['contact:created', 'contact:deleted', 'contact:update'],
    );
    assert.deepEqual(events[1]!.payload, read);
    assert.deepEqual(events[2]!.payload, restored.body.data);
  });

  it('attach and detach: one company at most, archived or unknown companies refused', async () => {
    const c = await newContact({ last_name: 'Linked' });
    const second = (await writer.post('/companies', { name: 'Second Co' })).body.data;
    const attached = await writer.put(`/contacts/${c.id}/company/attach`, { company_id: company.id });
    assert.equal(attached.status, 200);
    assert.equal(attached.body.data.company_id, company.id);
    assert.ok(
      ids(await reader.get(`/contacts?company_id=${company.id}&per_page=100`)).includes(c.id),
      'listed under its company',
    );
    // The same company again: nothing changes, nothing is recorded.
    await writer.put(`/contacts/${c.id}/company/attach`, { company_id: company.id });
    // Another company replaces the first.
    const moved = await writer.put(`/contacts/${c.id}/company/attach`, { company_id: second.id });
    assert.equal(moved.body.data.company_id, second.id);
    assert.ok(
      !ids(await reader.get(`/contacts?company_id=${company.id}&per_page=100`)).includes(c.id),
      'no longer listed under the first company',
    );

    const events = await countRows(ctx.db, 'events');
    await writer.delete(`/companies/${company.id}`);
    const archived = expectProblem(
      await writer.put(`/contacts/${c.id}/company/attach`, { company_id: company.id }),
      409,
      'conflict',
    );
    assert.match(archived.detail, /archived/);
    assert.deepEqual(archived.errors, [{ field: 'company_id', message: 'company is archived' }]);
    expectProblem(
      await writer.post('/contacts', { last_name: 'Late', company_id: company.id }),
      409,
      'conflict',
    );
    expectProblem(
      await writer.put(`/contacts/${c.id}/company/attach`, { company_id: 999999 }),
      422,
      'invalid_reference',
    );
    await writer.post(`/companies/${company.id}/restore`);
    assert.equal(await countRows(ctx.db, 'events'), events + 2); // company:deleted, company:updated
    assert.equal((await reader.get(`/contacts/${c.id}`)).body.data.company_id, second.id);

    const detached = await writer.put(`/contacts/${c.id}/company/detach`);
    assert.equal(detached.status, 200);
    assert.equal(detached.body.data.company_id, null);
    const again = expectProblem(await writer.put(`/contacts/${c.id}/company/detach`), 409, 'conflict');
    assert.match(again.detail, /not attached/);

    const evs = await contactEvents(ctx, c.id);
    assert.deepEqual(
      evs.map((e) => e.kind),
      ['contact:created', 'contact:update', 'contact:update', 'contact:update'],
    );
    assert.equal(evs[1]!.payload.company_id, company.id);
    assert.equal(evs[2]!.payload.company_id, second.id);
    assert.deepEqual(evs[3]!.payload, detached.body.data);
  });

  it('a contact of an archived company stays attached and can be detached', async () => {
    const co = (await writer.post('/companies', { name: 'Fading Co' })).body.data;
    const c = await newContact({ company_id: co.id });
    await writer.delete(`/companies/${co.id}`);
    assert.equal((await reader.get(`/contacts/${c.id}`)).body.data.company_id, co.id);
    assert.equal((await writer.put(`/contacts/${c.id}/company/detach`)).body.data.company_id, null);
  });

  it('external identifier: set, 409 on clash or replacement, force overwrites in one go', async () => {
    const a = await newContact({ last_name: 'ExtA' });
    const b = await newContact({ last_name: 'ExtB' });
    const set = await writer.put(`/contacts/${a.id}/external-identifier`, { external_id: 'hub-c1' });
    assert.equal(set.body.data.external_id, 'hub-c1');
    await writer.put(`/contacts/${a.id}/external-identifier`, { external_id: 'hub-c1' });
    assert.deepEqual(await kinds(ctx, a.id), ['contact:created', 'contact:update']);

    const events = await countRows(ctx.db, 'events');
    expectProblem(
      await writer.put(`/contacts/${b.id}/external-identifier`, { external_id: 'hub-c1' }),
      409,
      'external_id_taken',
    );
    expectProblem(
      await writer.put(`/contacts/${b.id}/external-identifier`, { external_id: 'hub-c1', force: false }),
      409,
      'external_id_taken',
    );
    expectProblem(await writer.post('/contacts', { last_name: 'D', external_id: 'hub-c1' }), 409);
    expectProblem(
      await writer.put(`/contacts/${a.id}/external-identifier`, { external_id: 'other' }),
      409,
      'external_id_set',
    );
    assert.equal(await countRows(ctx.db, 'events'), events);
    // A company's external id is a different namespace.
    assert.equal(
      (
        await writer.put(`/companies/${company.id}/external-identifier`, {
          external_id: 'hub-c1',
          force: true,
        })
      ).status,
      200,
    );

    const forced = await writer.put(`/contacts/${b.id}/external-identifier`, {
      external_id: 'hub-c1',
      force: true,
    });
    assert.equal(forced.body.data.external_id, 'hub-c1');
    const aNow = (await reader.get(`/contacts/${a.id}`)).body.data;
    assert.equal(aNow.external_id, null);
    assert.deepEqual(ids(await reader.get('/contacts?external_id=hub-c1')), [b.id]);
    assert.deepEqual((await contactEvents(ctx, a.id)).at(-1)!.payload, aNow);
    assert.deepEqual((await contactEvents(ctx, b.id)).at(-1)!.payload, forced.body.data);
    const replaced = await writer.put(`/contacts/${b.id}/external-identifier`, {
      external_id: 'hub-c2',
      force: true,
    });
    assert.equal(replaced.body.data.external_id, 'hub-c2');
    assert.deepEqual(await kinds(ctx, b.id), ['contact:created', 'contact:update', 'contact:update']);
  });

  it('search: name, email or company name, case-insensitive, wildcards are plain text', async () => {
    const acme = (await writer.post('/companies', { name: 'Qxv ACME 100% Ltd', email: 'hq@acme.example' }))
      .body.data;
    const mk = async (body: Record<string, unknown>) => (await newContact(body)).id;
    const ada = await mk({ first_name: 'Ada', last_name: 'Qxvlace', email: 'ADA@analytical.example' });
    const joerg = await mk({ first_name: 'JÖRG', last_name: 'Qxvmüller' });
    const staff = await mk({ last_name: 'Worker', company_id: acme.id });
    const under = await mk({ last_name: 'qxv_under' });
    const plain = await mk({ last_name: 'qxvXunder' });
    const q = async (term: string) => ids(await reader.get(`/contacts?q=${encodeURIComponent(term)}`));
    assert.deepEqual(await q('ada qxvlace'), [ada]);
    assert.deepEqual(await q('QXVLACE'), [ada]);
    assert.deepEqual(await q('analytical.EXAMPLE'), [ada]);
    assert.deepEqual(await q('jörg qxvMÜLLER'), [joerg]);
    assert.deepEqual(await q('qxv acme'), [staff]);
    assert.deepEqual(await q('100%'), [staff]);
    assert.deepEqual(await q('10%0'), []);
    // The company's email is not the company name.
    assert.deepEqual(await q('hq@acme'), []);
    assert.deepEqual(await q('qxv_'), [under]);
    assert.deepEqual(await q('qxv*'), []);
    assert.deepEqual((await q('qxv')).sort(), [ada, joerg, staff, under, plain].sort());
    // Shorter than a trigram: no index, same answer.
    assert.deepEqual((await q('QX')).sort(), [ada, joerg, staff, under, plain].sort());
    const page = await reader.get('/contacts?q=qxv&per_page=2');
    assert.deepEqual(page.body.meta, { page: 1, per_page: 2, total: 5 });
    // Filters combine: company and term.
    assert.deepEqual(ids(await reader.get(`/contacts?q=worker&company_id=${acme.id}`)), [staff]);
    assert.deepEqual(ids(await reader.get(`/contacts?q=qxvlace&company_id=${acme.id}`)), []);
    // Archived contacts match only with archived=true; a renamed company is found by its new name.
    await writer.delete(`/contacts/${staff}`);
    assert.deepEqual(await q('qxv acme'), []);
    await writer.post(`/contacts/${staff}/restore`);
    await writer.patch(`/companies/${acme.id}`, { name: 'Renamed Qxv Corp' });
    assert.deepEqual(await q('qxv acme'), []);
    assert.deepEqual(await q('renamed qxv'), [staff]);
  });

  it('events belong to the acting integration and account', async () => {
    const c = await newContact({ last_name: 'Evented' });
    const [created] = await contactEvents(ctx, c.id);
    assert.equal(created!.account_id, ctx.account.accountId);
    assert.ok(created!.integration_id, 'the acting integration is recorded');
  });

  it('imports companies and contacts (contacts refer to a company by key); a bad file imports nothing', async () => {
    const result = await importData(
      ctx.db,
      {
        companies: [
          { key: 'imp', name: 'Imported Qzw AG', external_id: 'imp-co', custom_fields: { size: 'L' } },
          { key: 'gone', name: 'Gone Qzw AG', archived: true },
        ],
        contacts: [
          { company: 'imp', first_name: 'Ina', last_name: 'Qzwport', external_id: 'imp-c' },
          { company: 'gone', last_name: 'Oldqzw', archived: true },
          { last_name: 'Loneqzw', email: 'LONE@qzw.example' },
        ],
      },
      { accountId: ctx.account.accountId },
    );
    assert.deepEqual(result.created, { companies: 2, contacts: 3 });
    const co = (await reader.get('/companies?external_id=imp-co')).body.data[0];
    assert.deepEqual(co.custom_fields, { size: 'L' });
    const [ina] = (await reader.get('/contacts?external_id=imp-c')).body.data;
    assert.equal(ina.company_id, co.id);
    assert.deepEqual(ids(await reader.get('/contacts?q=imported qzw')), [ina.id]);
    assert.equal((await reader.get('/contacts?q=qzw')).body.meta.total, 2);
    assert.equal((await reader.get('/contacts?q=qzw&archived=true')).body.meta.total, 3);

    const contacts = await countRows(ctx.db, 'contacts');
    const companies = await countRows(ctx.db, 'companies');
    await assert.rejects(
      importData(
        ctx.db,
        { companies: [{ key: 'x', name: 'X' }], contacts: [{ company: 'nope', last_name: 'Y' }] },
        { accountId: ctx.account.accountId },
      ),
      /contacts\.0\.company/,
    );
    await assert.rejects(
      importData(
        ctx.db,
        {
          contacts: [
            { last_name: 'A', external_id: 'dup' },
            { last_name: 'B', external_id: 'dup' },
          ],
        },
        { accountId: ctx.account.accountId },
      ),
      /contacts\.1\.external_id/,
    );
    await assert.rejects(
      importData(
        ctx.db,
        { contacts: [{ first_name: 'No last name' }] },
        { accountId: ctx.account.accountId },
      ),
      /last_name/,
    );
    await assert.rejects(
      importData(
        ctx.db,
        { contacts: [{ last_name: 'A' }, { last_name: 'B', custom_fields: { score: 'high' } }] },
        { accountId: ctx.account.accountId },
      ),
      /contacts\.1\.custom_fields\.score/,
    );
    assert.equal(await countRows(ctx.db, 'contacts'), contacts);
    assert.equal(await countRows(ctx.db, 'companies'), companies);
    // Import writes no webhook events.
    assert.equal((await contactEvents(ctx, ina.id)).length, 0);
  });

  it('the demo data imports, with companies and contacts linked', async () => {
    const doc = JSON.parse(await readFile(new URL('../seed/demo.json', import.meta.url), 'utf8'));
    const { account_id, created } = await importData(ctx.db, doc);
    assert.ok(created.companies! >= 3 && created.contacts! >= 4, JSON.stringify(created));
    const linked = await ctx.db
      .selectFrom('contacts')
      .innerJoin('companies', 'companies.id', 'contacts.company_id')
      .select(['contacts.account_id as ca', 'companies.account_id as coa'])
      .where('contacts.account_id', '=', account_id)
      .execute();
    assert.ok(linked.length >= 3, 'contacts are linked to companies');
    assert.ok(
      linked.every((r) => r.ca === r.coa),
      'links stay within the account',
    );
  });
});

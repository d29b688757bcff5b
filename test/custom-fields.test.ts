import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { validateCustomFields } from '../src/modules/custom-fields/custom-fields.service.js';
import { type Api, countRows, createAccount, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

describeEachDb('custom fields', (ctx) => {
  let w: WorkFixture;
  let integration: Api;

  before(async () => {
    w = await seedWork(ctx);
    integration = await ctx.as('integration');
  });

  it('GET /custom-fields lists the definitions per entity', async () => {
    const res = await integration.get('/custom-fields');
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.total, 6);
    const channel = res.body.data.find((d: { key: string }) => d.key === 'channel');
    assert.deepEqual(
      { ...channel, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        entity: 'task',
        key: 'channel',
        label: 'Channel',
        type: 'select',
        options: ['web', 'mobile'],
        required: false,
        position: 2,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const projectFields = await integration.get('/custom-fields?entity=project');
    assert.deepEqual(
      projectFields.body.data.map((d: { key: string; type: string; options: string[] }) => [
        d.key,
        d.type,
        d.options,
      ]),
      [['cost_center', 'text', []]],
    );
    assert.equal((await integration.get('/custom-fields?entity=contact')).body.meta.total, 0);
    assert.equal((await integration.get('/custom-fields?per_page=2&page=3')).body.data.length, 2);
  });

  it('401, 403 without the integration scope, 422 on a bad filter, other account sees its own', async () => {
    expectProblem(await ctx.anon.get('/custom-fields'), 401, 'unauthorized');
    const p = expectProblem(
      await (await ctx.as('task-management:read task-management:write')).get('/custom-fields'),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(p.required_scopes, ['integration']);
    const bad = expectProblem(await integration.get('/custom-fields?entity=invoice'), 422);
    assert.deepEqual(
      bad.errors!.map((e) => e.field),
      ['entity'],
    );
    const stranger = await ctx.as('integration', { accountId: ctx.other.accountId });
    assert.equal((await stranger.get('/custom-fields')).body.meta.total, 0);
  });

  it('values show on the records they apply to', async () => {
    const reader = await ctx.as('task-management:read');
    assert.deepEqual((await reader.get(`/projects/${w.projects.web}`)).body.data.custom_fields, {
      cost_center: 'CC-7',
    });
    assert.deepEqual((await reader.get(`/tasks/${w.tasks.wireframes}`)).body.data.custom_fields, {
      channel: 'web',
    });
  });

  it('required fields must be given on create, and stay set on update', async () => {
    const acct = await createAccount(ctx.db);
    await importData(
      ctx.db,
      {
        custom_fields: [
          { entity: 'task', key: 'budget_code', label: 'Budget code', type: 'text', required: true },
        ],
        clients: [{ key: 'c', name: 'C' }],
        projects: [{ key: 'p', client: 'c', name: 'P' }],
      },
      { accountId: acct.accountId },
    );
    const project = await ctx.db
      .selectFrom('projects')
      .select('id')
      .where('account_id', '=', acct.accountId)
      .executeTakeFirstOrThrow();
    const api = await ctx.as('task-management:read task-management:write', { userId: acct.users.admin });
    const tasks = await countRows(ctx.db, 'tasks');
    const missing = expectProblem(await api.post('/tasks', { project_id: project.id, name: 'T' }), 422);
    assert.deepEqual(missing.errors, [{ field: 'custom_fields.budget_code', message: 'is required' }]);
    assert.equal(await countRows(ctx.db, 'tasks'), tasks);
    const ok = await api.post('/tasks', {
      project_id: project.id,
      name: 'T',
      custom_fields: { budget_code: 'B1' },
    });
    assert.equal(ok.status, 201, ok.text);
    const cleared = expectProblem(
      await api.patch(`/tasks/${ok.body.data.id}`, { custom_fields: { budget_code: null } }),
      422,
    );
    assert.deepEqual(cleared.errors, [{ field: 'custom_fields.budget_code', message: 'is required' }]);
    const renamed = await api.patch(`/tasks/${ok.body.data.id}`, { name: 'T2' });
    assert.deepEqual(renamed.body.data.custom_fields, { budget_code: 'B1' });
  });

  it('validateCustomFields is usable by other modules (contacts, companies)', async () => {
    await importData(
      ctx.db,
      {
        custom_fields: [
          { entity: 'contact', key: 'birthday', label: 'Birthday', type: 'date' },
          { entity: 'company', key: 'tier', label: 'Tier', type: 'select', options: ['gold', 'silver'] },
        ],
      },
      { accountId: ctx.account.accountId },
    );
    const id = ctx.account.accountId;
    assert.deepEqual(await validateCustomFields(ctx.db, id, 'contact', { birthday: '1990-05-01' }), {
      birthday: '1990-05-01',
    });
    assert.deepEqual(
      await validateCustomFields(ctx.db, id, 'company', { tier: null }, { current: { tier: 'gold' } }),
      {},
    );
    await assert.rejects(
      validateCustomFields(ctx.db, id, 'company', { tier: 'bronze' }),
      (err: { status: number; errors: { field: string }[] }) =>
        err.status === 422 && err.errors[0]!.field === 'custom_fields.tier',
    );
    // A task field is not a contact field.
    await assert.rejects(
      validateCustomFields(ctx.db, id, 'contact', { channel: 'web' }),
      /custom_fields\.channel/,
    );
  });

  it('the import refuses malformed definitions', async () => {
    const before = await countRows(ctx.db, 'custom_field_definitions');
    await assert.rejects(
      importData(
        ctx.db,
        { custom_fields: [{ entity: 'task', key: 'kind', label: 'Kind', type: 'select' }] },
        { accountId: ctx.account.accountId },
      ),
      /needs options/,
    );
    await assert.rejects(
      importData(
        ctx.db,
        { custom_fields: [{ entity: 'task', key: 'Bad Key', label: 'x', type: 'text' }] },
        { accountId: ctx.account.accountId },
      ),
      /custom_fields\.0\.key/,
    );
    assert.equal(await countRows(ctx.db, 'custom_field_definitions'), before);
  });
});

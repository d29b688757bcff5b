import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('user groups', (ctx) => {
  let reader: Api;
  let groups: { id: number; name: string }[];
  let users: { id: number; email: string }[];

  before(async () => {
    await importData(
      ctx.db,
      {
        users: [
          { key: 'u1', email: 'ug1@test.example', first_name: 'Una', last_name: 'One', position: 'Dev' },
          { key: 'u2', email: 'ug2@test.example', first_name: 'Tom', last_name: 'Two', active: false },
        ],
        user_groups: [
          { key: 'dev', name: 'Development', description: 'Builders', members: ['u2', 'u1'] },
          { key: 'empty', name: 'Empty group' },
        ],
      },
      { accountId: ctx.account.accountId },
    );
    groups = await ctx.db
      .selectFrom('user_groups')
      .select(['id', 'name'])
      .where('account_id', '=', ctx.account.accountId)
      .orderBy('id')
      .execute();
    users = await ctx.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('email', 'like', 'ug%')
      .orderBy('id')
      .execute();
    reader = await ctx.as('user_group:read');
  });

  it('GET /user-group lists groups with their members', async () => {
    const res = await reader.get('/user-group');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { page: 1, per_page: 50, total: 2 });
    const [dev, empty] = res.body.data;
    assert.equal(dev.name, 'Development');
    assert.equal(dev.description, 'Builders');
    assert.deepEqual(dev.members, [
      { id: users[0]!.id, first_name: 'Una', last_name: 'One', position: 'Dev', active: true },
      { id: users[1]!.id, first_name: 'Tom', last_name: 'Two', position: null, active: false },
    ]);
    assert.deepEqual(empty.members, []);
    assert.equal(empty.description, null);
    const mine = await reader.get(`/user-group?user_id=${users[1]!.id}`);
    assert.deepEqual(
      mine.body.data.map((g: { id: number }) => g.id),
      [groups[0]!.id],
    );
    assert.equal((await reader.get('/user-group?q=empt')).body.data[0].id, groups[1]!.id);
    assert.equal((await reader.get('/user-group?per_page=1')).body.data.length, 1);
  });

  it('GET /user-group/{id} returns one group with members', async () => {
    const res = await reader.get(`/user-group/${groups[0]!.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, groups[0]!.id);
    assert.deepEqual(
      res.body.data.members.map((m: { id: number }) => m.id),
      users.map((u) => u.id),
    );
    assert.ok(res.body.data.created_at && res.body.data.updated_at);
  });

  it('401, 403 without user_group:read, 404 (unknown, other account), 422', async () => {
    const none = await ctx.as([]);
    for (const path of ['/user-group', `/user-group/${groups[0]!.id}`]) {
      expectProblem(await ctx.anon.get(path), 401, 'unauthorized');
      const p = expectProblem(await none.get(path), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['user_group:read']);
    }
    expectProblem(await reader.get('/user-group/999999'), 404, 'not_found');
    const stranger = await ctx.as('user_group:read', { accountId: ctx.other.accountId });
    expectProblem(await stranger.get(`/user-group/${groups[0]!.id}`), 404, 'not_found');
    assert.equal((await stranger.get('/user-group')).body.meta.total, 0);
    expectProblem(await reader.get('/user-group/abc'), 422);
    expectProblem(await reader.get('/user-group?per_page=1000'), 422);
  });
});

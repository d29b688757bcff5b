import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

const BASIC_KEYS = ['active', 'first_name', 'id', 'last_name', 'position'];

describeEachDb('users', (ctx) => {
  let none: Api;
  let userRead: Api;

  before(async () => {
    none = await ctx.as([]);
    userRead = await ctx.as('user:read');
  });

  it('GET /whoami returns the token’s user in full', async () => {
    const asMember = await ctx.as([], { userId: ctx.account.users.member });
    const res = await asMember.get('/whoami');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, ctx.account.users.member);
    assert.equal(res.body.data.role, 'member');
    assert.match(res.body.data.email, /^member\d+@test\.example$/);
    expectProblem(await ctx.anon.get('/whoami'), 401);
  });

  it('GET /users lists basic data of the account only', async () => {
    const res = await none.get('/users');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((u: { id: number }) => u.id),
      [ctx.account.users.admin, ctx.account.users.member],
    );
    assert.deepEqual(Object.keys(res.body.data[0]).sort(), BASIC_KEYS);
    assert.equal(res.body.meta.total, 2);
    expectProblem(await ctx.anon.get('/users'), 401);
  });

  it('GET /users/full needs user:read and is a superset of the basic form', async () => {
    const p = expectProblem(await none.get('/users/full'), 403, 'insufficient_scope');
    assert.deepEqual(p.required_scopes, ['user:read']);
    const res = await userRead.get('/users/full');
    assert.equal(res.status, 200);
    for (const k of BASIC_KEYS) assert.ok(k in res.body.data[0]);
    assert.ok('email' in res.body.data[0]);
    assert.deepEqual(res.body.data[0].user_group_ids, []);
    const filtered = await userRead.get(`/users/full?email=${encodeURIComponent(res.body.data[1].email)}`);
    assert.deepEqual(
      filtered.body.data.map((u: { id: number }) => u.id),
      [ctx.account.users.member],
    );
  });

  it('GET /users/{id}: full with any user: scope, or user-profile: for oneself, basic otherwise', async () => {
    const { admin, member } = ctx.account.users;
    assert.deepEqual(Object.keys((await none.get(`/users/${member}`)).body.data).sort(), BASIC_KEYS);
    assert.ok('email' in (await userRead.get(`/users/${member}`)).body.data);
    const profile = await ctx.as('user-profile:read', { userId: member });
    assert.ok('email' in (await profile.get(`/users/${member}`)).body.data, 'own profile is full');
    assert.deepEqual(Object.keys((await profile.get(`/users/${admin}`)).body.data).sort(), BASIC_KEYS);
  });

  it('404 for unknown users and users of another account; 422 for a bad id', async () => {
    expectProblem(await none.get('/users/999999'), 404, 'not_found');
    expectProblem(await userRead.get(`/users/${ctx.other.users.admin}`), 404);
    expectProblem(await none.get('/users/0'), 422);
    expectProblem(await none.get('/users/abc'), 422);
  });
});

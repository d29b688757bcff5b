import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

const ALL =
  'client:read client:write contact-data:read contact-data:write task-management:read task-management:write project:write ' +
  'outgoing-invoice:read outgoing-invoice:write offer:read offer:write incoming-invoice:read';

type Hit = { kind: string; id: number; title: string; snippet: string };
const hits = (res: { body: { data: Hit[] } }) => res.body.data.map((h) => `${h.kind}:${h.title}`);

describeEachDb('search', (ctx) => {
  let api: Api;
  let clientId: number;
  let contactId: number;
  let taskId: number;

  before(async () => {
    api = await ctx.as(ALL);
    const client = await api.post('/clients', {
      name: 'Müller Bau GmbH',
      email: 'info@mueller-bau.example',
      vat_id: 'DE123456789',
    });
    assert.equal(client.status, 201, client.text);
    clientId = client.body.data.id;
    const company = await api.post('/companies', {
      name: 'Bergmann Logistik',
      email: 'post@bergmann.example',
    });
    assert.equal(company.status, 201, company.text);
    const contact = await api.post('/contacts', {
      first_name: 'Jürgen',
      last_name: 'Straßer',
      email: 'j.strasser@example.org',
    });
    assert.equal(contact.status, 201, contact.text);
    contactId = contact.body.data.id;
    const project = await api.post('/projects', { client_id: clientId, name: 'Website relaunch' });
    assert.equal(project.status, 201, project.text);
    const task = await api.post('/tasks', {
      project_id: project.body.data.id,
      name: 'Design review',
      description: 'Check the Müller colours on the website',
    });
    assert.equal(task.status, 201, task.text);
    taskId = task.body.data.id;
    const invoice = await api.post('/outgoing-invoices', {
      client_id: clientId,
      title: 'Relaunch phase one',
    });
    assert.equal(invoice.status, 201, invoice.text);
    const offer = await api.post('/offers', { client_id: clientId, title: 'Relaunch offer' });
    assert.equal(offer.status, 201, offer.text);
    // The other tenant has a Müller too: never found from this account.
    const foreign = await ctx.as('client:read client:write', { accountId: ctx.other.accountId });
    assert.equal((await foreign.post('/clients', { name: 'Müller Foreign' })).status, 201);
  });

  it('finds by prefix, with diacritics folded both ways and umlauts spelled out', async () => {
    for (const q of ['Müller', 'muller', 'MUEL', 'mueller']) {
      const res = await api.get(`/search?q=${encodeURIComponent(q)}&kinds=client`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(hits(res), ['client:Müller Bau GmbH'], q);
    }
    const res = await api.get('/search?q=jurg%20stras');
    assert.deepEqual(hits(res), ['contact:Jürgen Straßer']);
    assert.equal(res.body.data[0].id, contactId);
  });

  it('searches numbers, e-mails, VAT ids and texts, the title first', async () => {
    assert.deepEqual(hits(await api.get('/search?q=DE1234')), ['client:Müller Bau GmbH']);
    assert.deepEqual(hits(await api.get('/search?q=post%40bergmann')), ['company:Bergmann Logistik']);
    const res = await api.get('/search?q=muller');
    assert.deepEqual(hits(res), ['client:Müller Bau GmbH', 'task:Design review']);
    assert.equal(res.body.data[1].id, taskId);
    assert.match(res.body.data[1].snippet, /colours/);
    assert.deepEqual(hits(await api.get('/search?q=relaunch')).sort(), [
      'offer:Relaunch offer',
      'outgoing_invoice:Relaunch phase one',
      'project:Website relaunch',
    ]);
  });

  it('follows writes in the same transaction: update and delete', async () => {
    const contact = await api.post('/contacts', { last_name: 'Quaxelbrink' });
    assert.deepEqual(hits(await api.get('/search?q=quaxel')), ['contact:Quaxelbrink']);
    await api.patch(`/contacts/${contact.body.data.id}`, { last_name: 'Zorbington' });
    assert.deepEqual(hits(await api.get('/search?q=quaxel')), []);
    assert.deepEqual(hits(await api.get('/search?q=zorbing')), ['contact:Zorbington']);
    assert.equal((await api.delete(`/contacts/${contact.body.data.id}`)).status, 204);
    assert.deepEqual(hits(await api.get('/search?q=zorbing')), []);
    assert.equal((await api.post(`/contacts/${contact.body.data.id}/restore`)).status, 200);
    assert.deepEqual(hits(await api.get('/search?q=zorbing')), ['contact:Zorbington']);
  });

  it('shows only the kinds the token may read; none readable: 403', async () => {
    const clientsOnly = await ctx.as('client:read');
    assert.deepEqual(hits(await clientsOnly.get('/search?q=muller')), ['client:Müller Bau GmbH']);
    const tasksOnly = await ctx.as('task-management:read');
    assert.deepEqual(hits(await tasksOnly.get('/search?q=muller')), ['task:Design review']);
    // Projects are listed to every token.
    assert.deepEqual(hits(await (await ctx.as('efforts:read')).get('/search?q=relaunch')), [
      'project:Website relaunch',
    ]);
    assert.deepEqual(hits(await tasksOnly.get('/search?q=muller&kinds=client,task')), ['task:Design review']);
    expectProblem(await tasksOnly.get('/search?q=muller&kinds=client'), 403, 'insufficient_scope');
    expectProblem(
      await (await ctx.as('efforts:read')).get('/search?q=muller&kinds=client,offer'),
      403,
      'insufficient_scope',
    );
  });

  it('bounds: limit, kinds, q; 401 without a token', async () => {
    assert.equal((await api.get('/search?q=relaunch&limit=1')).body.data.length, 1);
    assert.deepEqual((await api.get('/search?q=%2B%2B')).body.data, []);
    expectProblem(await api.get('/search?q=x&limit=51'), 422);
    expectProblem(await api.get('/search?q=x&limit=0'), 422);
    expectProblem(await api.get('/search?q=x&kinds=user'), 422);
    expectProblem(await api.get('/search?q='), 422);
    expectProblem(await api.get('/search'), 422);
    expectProblem(await api.get(`/search?q=${'a'.repeat(201)}`), 422);
    expectProblem(await api.get('/search?q=x&extra=1'), 422);
    expectProblem(await ctx.anon.get('/search?q=muller'), 401);
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { bytesToUpload, storeFile } from '../src/modules/files/files.service.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('files', (ctx) => {
  let api: Api;
  let fileId: number;
  const bytes = Buffer.from('%PDF-1.4\n' + 'x'.repeat(5000) + '\n%%EOF\n');

  before(async () => {
    api = await ctx.as([]);
    const row = await storeFile(
      ctx.db,
      { accountId: ctx.account.accountId, userId: ctx.account.users.admin },
      bytesToUpload('Angebot Müller "final".pdf', 'application/pdf', bytes),
      { type: 'task', id: 1 },
    );
    fileId = row.id;
  });

  it('GET /files/{id} returns metadata with hashes', async () => {
    const res = await api.get(`/files/${fileId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.size, bytes.length);
    assert.equal(res.body.data.content_type, 'application/pdf');
    assert.equal(res.body.data.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(res.body.data.md5, createHash('md5').update(bytes).digest('hex'));
    assert.equal(res.body.data.download_url, `/api/v1/files/${fileId}/download`);
  });

  it('downloads the exact bytes with headers, ETag/304 and Range', async () => {
    const res = await ctx.app.inject({
      url: `/api/v1/files/${fileId}/download`,
      headers: { authorization: `Bearer ${api.token}` },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.rawPayload, bytes);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="Angebot M_ller _final_.pdf"; filename\*=UTF-8''Angebot%20M%C3%BCller%20%22final%22.pdf$/,
    );
    const etag = String(res.headers.etag);
    const cached = await ctx.app.inject({
      url: `/api/v1/files/${fileId}/download`,
      headers: { authorization: `Bearer ${api.token}`, 'if-none-match': etag },
    });
    assert.equal(cached.statusCode, 304);
    const part = await ctx.app.inject({
      url: `/api/v1/files/${fileId}/download`,
      headers: { authorization: `Bearer ${api.token}`, range: 'bytes=0-7' },
    });
    assert.equal(part.statusCode, 206);
    assert.equal(part.body, '%PDF-1.4');
    assert.equal(part.headers['content-range'], `bytes 0-7/${bytes.length}`);
    const bad = await ctx.app.inject({
      url: `/api/v1/files/${fileId}/download`,
      headers: { authorization: `Bearer ${api.token}`, range: `bytes=${bytes.length + 10}-` },
    });
    assert.equal(bad.statusCode, 416);
    assert.match(String(bad.headers['content-type']), /^application\/problem\+json/);
    assert.equal(bad.json().code, 'range_not_satisfiable');
    assert.equal(bad.headers['content-range'], `bytes */${bytes.length}`);
  });

  it('401 without token, 404 for unknown ids and for another account', async () => {
    expectProblem(await ctx.anon.get(`/files/${fileId}`), 401);
    expectProblem(await ctx.anon.get(`/files/${fileId}/download`), 401);
    expectProblem(await api.get('/files/999999'), 404);
    const stranger = await ctx.as([], { accountId: ctx.other.accountId });
    expectProblem(await stranger.get(`/files/${fileId}`), 404);
    expectProblem(await stranger.get(`/files/${fileId}/download`), 404);
    expectProblem(await api.get('/files/abc'), 422);
  });
});

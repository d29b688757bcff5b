import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDb } from './helpers.js';

describeEachDb('openapi document', (ctx) => {
  it('is served without a token as OpenAPI 3.1', async () => {
    const res = await ctx.anon.get('/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.ok(res.body.components.securitySchemes.bearerAuth);
    assert.ok(res.body.components.securitySchemes.oauth2);
  });

  it('documents every route of the app with its scopes and error answers', async () => {
    const doc = (await ctx.anon.get('/openapi.json')).body;
    assert.ok(ctx.app.apiRoutes.length > 10);
    for (const { method, url } of ctx.app.apiRoutes) {
      const path = url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[method.toLowerCase()];
      assert.ok(op, `${method} ${path} is missing from the document`);
      assert.ok(op.summary, `${method} ${path} has no summary`);
      assert.ok(op.responses['500'], `${method} ${path} documents no error`);
      if (path !== '/api/v1/oauth/token') {
        assert.ok(Array.isArray(op['x-required-scopes']), `${method} ${path} has no scopes`);
        assert.ok(op.responses['401'] && op.responses['403'], `${method} ${path} lacks 401/403`);
        assert.deepEqual(op.security[0].bearerAuth, op['x-required-scopes']);
      }
    }
  });

  it('shows the scopes the specification names', async () => {
    const doc = (await ctx.anon.get('/openapi.json')).body;
    assert.deepEqual(doc.paths['/api/v1/clients/full'].get['x-required-scopes'], ['client:read']);
    assert.deepEqual(doc.paths['/api/v1/users/full'].get['x-required-scopes'], ['user:read']);
    assert.deepEqual(doc.paths['/api/v1/whoami'].get['x-required-scopes'], []);
  });

  it('renders the reference page at /docs', async () => {
    const res = await ctx.app.inject({ url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /swagger-ui/i);
  });
});

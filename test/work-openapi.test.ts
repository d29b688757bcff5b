import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDb } from './helpers.js';

/** The specification's tables for projects, tasks, comments, efforts, user groups and custom fields. */
const SPEC: [string, string, string[]][] = [
  ['get', '/projects', []],
  ['get', '/projects/{id}', []],
  ['get', '/projects/{id}/team', []],
  ['get', '/projects/{id}/guests', []],
  ['get', '/projects/{id}/phases', ['task-management:read']],
  ['get', '/projects/{id}/milestones', ['task-management:read']],
  ['get', '/projects/{id}/epics', ['task-management:read']],
  ['get', '/projects/{id}/tasks', ['task-management:read']],
  ['get', '/portfolios', []],
  ['get', '/project-groups', []],
  ['get', '/tasks', ['task-management:read']],
  ['post', '/tasks', ['task-management:write']],
  ['get', '/tasks/{task}', ['task-management:read']],
  ['delete', '/tasks/{task}', ['task-management:write']],
  ['patch', '/tasks/{task}', ['task-management:write']],
  ['put', '/tasks/{id}/external-identifier', ['client:write']],
  ['post', '/tasks/{id}/upload', ['task-management:write']],
  ['get', '/tasks/{id}/comments', ['task-management:read']],
  ['post', '/tasks/comments', ['task-management:write']],
  ['get', '/tasks/comments/{id}', ['task-management:read']],
  ['patch', '/tasks/comments/{id}', ['task-management:write']],
  ['delete', '/tasks/comments/{id}', ['task-management:write']],
  ['post', '/tasks/comments/{id}/upload', ['task-management:write']],
  ['get', '/efforts', ['efforts:read']],
  ['get', '/user-group', ['user_group:read']],
  ['get', '/user-group/{id}', ['user_group:read']],
  ['get', '/custom-fields', ['integration']],
];

describeEachDb('work management in the OpenAPI document', (ctx) => {
  it('documents every endpoint with its scopes, parameters and answers', async () => {
    const res = await ctx.anon.get('/openapi.json');
    assert.equal(res.status, 200);
    const doc = res.body;
    for (const [method, path, scopes] of SPEC) {
      const op = doc.paths[`/api/v1${path}`]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
      assert.deepEqual(op['x-required-scopes'], scopes, `${method} ${path} scopes`);
      assert.ok(op.summary && op.tags?.length, `${method} ${path} has summary and tags`);
      const success = op.responses['200'] ?? op.responses['201'] ?? op.responses['204'];
      assert.ok(success, `${method} ${path} documents its success answer`);
      assert.ok(op.responses['401'] && op.responses['403'], `${method} ${path} documents 401/403`);
      for (const m of path.matchAll(/\{(\w+)\}/g)) {
        assert.ok(
          op.parameters.some((p: { in: string; name: string }) => p.in === 'path' && p.name === m[1]),
          `${method} ${path} documents path parameter ${m[1]}`,
        );
      }
    }
    for (const path of ['/tasks/{id}/upload', '/tasks/comments/{id}/upload']) {
      const op = doc.paths[`/api/v1${path}`].post;
      assert.equal(op.requestBody.content['multipart/form-data'].schema.properties.file.format, 'binary');
      assert.ok(op.responses['413'] && op.responses['415'], `${path} documents 413 and 415`);
    }
    for (const name of ['Project', 'Task', 'TaskComment', 'Effort', 'UserGroup', 'CustomFieldDefinition']) {
      assert.ok(JSON.stringify(doc).includes(`#/components/schemas/${name}`), `${name} is a named schema`);
    }
  });
});

import assert from 'node:assert/strict';
import { it } from 'node:test';
import Fastify from 'fastify';
import { Money, Nullable } from '../src/shared/schemas.js';
import { decimalsOf, validatorCompiler } from '../src/shared/validation.js';

// `multipleOf: 0.01` fails in binary floating point (70.07 / 0.01 = 7006.999…); Money counts
// decimals instead, and the serializer (which tests union members itself) must accept them.
it('money amounts with two decimals pass validation and nullable serialization', async () => {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.post(
    '/m',
    {
      schema: {
        body: { type: 'object', properties: { amount: Money }, required: ['amount'] },
        response: { 200: { type: 'object', properties: { amount: Nullable(Money) } } },
      },
    },
    async (req) => ({ amount: (req.body as { amount: number }).amount }),
  );
  for (const amount of [70.07, 19.99, 1.13, 0.29, 1234567.89, 99999999999.99, -0.01, 5]) {
    const res = await app.inject({ method: 'POST', url: '/m', payload: { amount } });
    assert.equal(res.statusCode, 200, `${amount}: ${res.body}`);
    assert.deepEqual(res.json(), { amount });
  }
  for (const amount of [1.001, 0.0000001, 12.345]) {
    const bad = await app.inject({ method: 'POST', url: '/m', payload: { amount } });
    assert.equal(bad.statusCode, 400, String(amount));
    assert.match(bad.json().message, /at most 2 decimals/);
  }
  await app.close();
});

it('counts decimals exactly', () => {
  const cases: [number, number][] = [
    [5, 0],
    [70.07, 2],
    [0.1, 1],
    [1e-7, 7],
    [1.5e-7, 8],
    [1e21, 0],
    [-12.345, 3],
  ];
  for (const [value, decimals] of cases) assert.equal(decimalsOf(value), decimals, String(value));
});

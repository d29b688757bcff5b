import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/shared/errors.js';
import { dataPart } from '../../src/shared/http.js';

/** The one reader of a multipart `data` part (incoming invoices, external outgoing uploads). */
describe('dataPart', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof AppError);
      return { code: e.code, detail: e.message, errors: e.errors };
    }
    assert.fail('no error');
  };

  it('parses the JSON of the part', () => {
    assert.deepEqual(dataPart('{"a":1,"b":[2]}', { default: {} }), { a: 1, b: [2] });
  });

  it('absent: the default, or a 422 naming data with the given message', () => {
    assert.deepEqual(dataPart(undefined, { default: {} }), {});
    assert.deepEqual(
      refusal(() => dataPart(undefined, { required: 'the invoice JSON is required' })),
      {
        code: 'validation_failed',
        detail: 'data: the invoice JSON is required',
        errors: [{ field: 'data', message: 'the invoice JSON is required' }],
      },
    );
  });

  it('unparseable: 422 "data: is not valid JSON" whichever policy', () => {
    for (const absent of [{ default: {} }, { required: 'x' }]) {
      assert.deepEqual(
        refusal(() => dataPart('{"a":', absent)),
        {
          code: 'validation_failed',
          detail: 'data: is not valid JSON',
          errors: [{ field: 'data', message: 'is not valid JSON' }],
        },
      );
    }
  });
});

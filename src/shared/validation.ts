import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true, // name every bad field, not just the first
    useDefaults: true,
    removeAdditional: true,
    addUsedSchema: false, // response/body schemas with $id are compiled more than once
    strict: false,
    // JSON numbers are binary floats: 70.07 / 0.01 is 7006.999…, so an exact multipleOf check
    // would refuse valid cent amounts. Compare with a tolerance far below one cent instead.
    multipleOfPrecision: 9,
    ...options,
  });
  addFormats.default(ajv);
  return ajv;
}

// Bodies are strict JSON: "1" is not a number. Query strings and path parameters are text,
// so they are coerced ("?page=2", "?archived=true").
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<
    FastifySchemaCompiler<unknown>
  >;

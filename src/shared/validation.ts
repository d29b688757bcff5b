import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/** Decimals of a number as written in its shortest round-trip form ("1e-7" has 7). */
export function decimalsOf(value: number): number {
  const [mantissa, exp] = String(value).toLowerCase().split('e');
  const frac = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, frac - Number(exp ?? 0));
}

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
  ajv.addKeyword({
    keyword: 'x-max-decimals',
    type: 'number',
    schemaType: 'number',
    error: { message: ({ schema }) => `must have at most ${schema} decimals` },
    validate: (max: number, value: number) => decimalsOf(value) <= max,
  });
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

import { type Static, type TAddOptional, type TNull, type TSchema, type TUnion, Type } from 'typebox';

/** `T | null`, spelled so that the response serializer keeps nulls as nulls. */
export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  const plain = schema as { type?: unknown; anyOf?: unknown; $id?: unknown; const?: unknown; enum?: unknown };
  // A scalar becomes `type: [t, 'null']`: the same meaning as `anyOf: [T, null]`, but the
  // response serializer writes it directly instead of testing each member of a union per field
  // (which dominated list answers).
  if (typeof plain.type === 'string' && plain.type !== 'object' && plain.type !== 'array' && !plain.$id) {
    if (plain.anyOf === undefined && plain.const === undefined && plain.enum === undefined) {
      return Type.Unsafe({ ...schema, type: [plain.type, 'null'] }) as unknown as TUnion<[T, TNull]>;
    }
  }
  return Type.Union([schema, Type.Null()]);
}

/**
 * A field the specification says an endpoint does not change (e.g. `external_id` on PATCH):
 * accepted, so a client may send back what it read, and removed before the handler sees it
 * (the `x-ignored` keyword, see validation.ts). Typed like the field itself.
 */
export function Ignored<T extends TSchema>(schema: T, description: string) {
  return Type.Optional(Type.Unsafe<Static<T>>({ ...schema, description, 'x-ignored': true }));
}

/** A nullable string of at most `max` characters: the text field of every resource. */
export const Text = (max = 255, description?: string) =>
  Nullable(Type.String(description === undefined ? { maxLength: max } : { maxLength: max, description }));

export const Id = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Positive integer id' });
export const IdParams = Type.Object({ id: Id });
export type IdParams = Static<typeof IdParams>;

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 timestamp in UTC' });
export const DateString = Type.String({ format: 'date', description: 'Calendar date, YYYY-MM-DD' });
export const CountryCode = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' });
export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });
export const Email = Type.String({ format: 'email', maxLength: 254 });
/**
 * Money in the document currency: a JSON number with at most two decimals. The decimals are
 * checked on the number's shortest decimal form (`x-max-decimals`, see validation.ts), not with
 * `multipleOf: 0.01`, which binary floating point gets wrong (70.07 / 0.01 = 7006.999…).
 */
export const Money = Type.Number({
  'x-max-decimals': 2,
  description: 'Amount in the document currency, at most two decimals',
});

/** A sale or cost rate as written (issue 37): money an hour, never negative. */
export const RateInput = { ...Money, minimum: 0, maximum: 10_000_000 };

export const Problem = Type.Object(
  {
    type: Type.String({
      description:
        'The problem type: a path of this service (`/problems/{code}`) whose page says what it means',
    }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    code: Type.String({ description: 'Stable machine-readable error code' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    required_scopes: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

export const PagingQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
};
/**
 * `sort` and `after` of the lists that take them (src/shared/paging.ts); `fields` are the
 * sortable fields besides `id`.
 */
export const SortedPagingQuery = (fields: readonly string[]) => ({
  ...PagingQuery,
  sort: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: '^-?[a-z_]+(,-?[a-z_]+)*$',
      // The fields paging.ts accepts (it names them when it refuses one); the document restates
      // them as the pattern (openapi-responses.ts).
      'x-sortable': ['id', ...fields],
      description: `Order: comma-separated fields, \`-\` for descending (\`sort=-${fields[0] ?? 'id'},id\`), ties broken by \`id\`. Sortable: ${['id', ...fields].map((f) => `\`${f}\``).join(', ')}; nulls sort last ascending, first descending. Default: \`id\`.`,
    }),
  ),
  after: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'Cursor paging instead of `page`: the rows after this cursor, which is taken from the `after` of the `Link` header’s `next` (empty: from the start). Costs the same at any depth; the answer’s `meta` then has no `page`.',
    }),
  ),
});
export const ArchivedQuery = {
  archived: Type.Optional(Type.Boolean({ description: 'true: include archived records' })),
};
export const UpdatedSinceQuery = {
  updated_since: Type.Optional(Type.String({ format: 'date-time' })),
};

export const ListMeta = Type.Object({
  page: Type.Optional(Type.Integer({ description: 'Absent when the list was paged by cursor (`after`)' })),
  per_page: Type.Integer(),
  total: Type.Integer(),
});

/** A documented problem+json answer, for a route's OpenAPI responses. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});

export const Data = <T extends TSchema>(schema: T) => Type.Object({ data: schema });
export const List = <T extends TSchema>(schema: T) =>
  Type.Object({ data: Type.Array(schema), meta: ListMeta });

/** Picks properties of an object schema: basic forms are strict subsets of full forms. */
export function pick<T extends Record<string, TSchema>, const K extends keyof T>(
  props: T,
  keys: readonly K[],
): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = props[k];
  return out;
}

/** Every property optional: the shape of a PATCH body, or the optional part of a create body. */
export function optional<T extends Record<string, TSchema>>(
  props: T,
): { [K in keyof T]: TAddOptional<T[K]> } {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: TAddOptional<T[K]>;
  };
}

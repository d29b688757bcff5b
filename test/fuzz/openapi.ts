/** The service's own OpenAPI document, reduced to what request generators need. */

export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** Template without the API prefix, e.g. `/clients/{id}`. */
  path: string;
  /** The API prefix, or '' for routes outside it (/health). */
  prefix: string;
  key: string;
  params: Parameter[];
  /** Request bodies by content type. */
  bodies: Record<string, Schema>;
  public: boolean;
}

export const API_PREFIX = '/api/v1';

export function operations(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const bodies: Record<string, Schema> = {};
      for (const [ct, media] of Object.entries<Schema>(op.requestBody?.content ?? {}))
        bodies[ct] = deref(doc, media.schema);
      const short = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
      out.push({
        method: method.toUpperCase(),
        path: short,
        prefix: short === path ? '' : API_PREFIX,
        key: `${method.toUpperCase()} ${short}`,
        params: (op.parameters ?? []).map((p: Schema) => ({
          name: p.name,
          in: p.in,
          required: Boolean(p.required),
          schema: deref(doc, p.schema ?? {}),
        })),
        bodies,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
}

/** Resolves `$ref`s (local components only) deeply; the document has no cycles. */
export function deref(doc: Schema, schema: Schema, depth = 0): Schema {
  if (!schema || typeof schema !== 'object' || depth > 30) return schema;
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, depth + 1));
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    return deref(doc, doc.components?.schemas?.[name] ?? {}, depth + 1);
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = typeof v === 'object' ? deref(doc, v, depth + 1) : v;
  return out;
}

/** The alternatives of a schema that are not `null`. */
export function nonNull(schema: Schema): Schema[] {
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts) return alts.flatMap((s: Schema) => nonNull(s));
  if (schema.type === 'null') return [];
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t: string) => t !== 'null');
    return types.length ? [{ ...schema, type: types[0] }] : [];
  }
  return [schema];
}

export function mainType(schema: Schema): string | undefined {
  const s = nonNull(schema)[0];
  if (!s) return 'null';
  if (s.const !== undefined) return typeof s.const;
  if (s.enum) return typeof s.enum[0];
  return s.type ?? (s.properties ? 'object' : undefined);
}

/** Fields named like a reference: `*_id`, `*_ids`. */
export const isIdName = (name: string) => /_ids?$/.test(name);

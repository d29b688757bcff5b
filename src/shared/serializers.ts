import { createHash } from 'node:crypto';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

const defaultFactory = SerializerSelector();
const serializers = new Map<string, Serializer>();

/**
 * Fastify's own serializer factory (fast-json-stringify), remembering each compiled function
 * by everything it depends on: the response schema's content, the shared schemas and the
 * options. Compiling every response schema was about half the time of building an app; a
 * process that builds several (the tests build one per suite) now compiles each schema once.
 * The functions are pure, so sharing them between apps changes no answer.
 */
export const cachingSerializerFactory: Factory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  // Fastify's compiler drops a shared schema for good once a route's schema has its $id.
  let shared = externalSchemas as Record<string, unknown> | undefined;
  let context = JSON.stringify([shared ?? null, options ?? null]);
  return (route) => {
    const id = (route.schema as { $id?: unknown } | undefined)?.$id;
    if (typeof id === 'string' && shared?.[id] !== undefined) {
      // Rare, and stateful in the compiler: not cached, so the compiler keeps its own state.
      shared = { ...shared };
      delete shared[id];
      context = JSON.stringify([shared, options ?? null]);
      return compile(route);
    }
    const key = createHash('sha256')
      .update(context)
      .update('\0')
      .update(JSON.stringify(route.schema ?? null))
      .digest('base64');
    let serializer = serializers.get(key);
    if (!serializer) {
      serializer = compile(route);
      serializers.set(key, serializer);
    }
    return serializer;
  };
};

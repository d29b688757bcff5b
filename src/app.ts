import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { API_PREFIX, type Config } from './config.js';
import { createDb, type DbHandle } from './db/index.js';
import { migrateToLatest } from './db/migrator.js';
import { requestScoped } from './db/transact.js';
import { registerModules } from './modules/index.js';
import { tokenSource } from './modules/integration/integration.service.js';
import type { OAuthOptions } from './modules/oauth/oauth.provider.js';
import { oauthServerPlugin } from './modules/oauth/oauth.server.js';
import { authPlugin } from './plugins/auth.js';
import { closingPlugin } from './plugins/closing.js';
import { corsPlugin } from './plugins/cors.js';
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { healthRoutes } from './plugins/health.js';
import { idempotencyPlugin } from './plugins/idempotency.js';
import { openapiPlugin } from './plugins/openapi.js';
import { pageCachePlugin } from './plugins/page-cache.js';
import { problemTypeRoutes } from './plugins/problem-types.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { wellFormedJsonParser } from './shared/http.js';
import { loggerOptions, requestLogger } from './shared/logging.js';
import { cachingSerializerFactory } from './shared/serializers.js';
import { validatorCompiler } from './shared/validation.js';
import { webPlugin } from './web/web.plugin.js';

export interface BuildOptions {
  /** An open database to use (tests); otherwise one is opened from config and closed with the app. */
  db?: DbHandle;
  /** Apply migrations before serving (default true). */
  migrate?: boolean;
  logger?: boolean | object;
  /** The OAuth authorization server's options (tests shorten lifetimes). */
  oauth?: OAuthOptions;
}

const pidTag = process.pid.toString(36);
let requestCount = 0;

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const handle = options.db ?? createDb(config.db);
  if (options.migrate !== false) await migrateToLatest(handle.db);

  const requestTimeout = config.requestTimeoutSeconds * 1000;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel),
    childLoggerFactory: requestLogger,
    bodyLimit: config.bodyLimit,
    requestIdHeader: 'x-request-id',
    // Behind a reverse proxy (TRUST_PROXY): req.ip is the client's, for rate limits and logs.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    // Unique across the processes of one service (WORKERS=N): the pid, then a counter.
    genReqId: () => `${pidTag}-${(++requestCount).toString(36)}`,
    // plugins/closing.ts answers requests that arrive while closing, as problem+json.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A request (headers and body) must arrive within this time: a client that sends its body
    // slowly is answered 408 instead of holding a connection open. Node checks every second,
    // and only while the headers timeout is not longer (it swaps the two otherwise).
    requestTimeout,
    http: { connectionsCheckingInterval: 1000, headersTimeout: requestTimeout },
    clientErrorHandler,
    frameworkErrors,
    // Each response schema compiled once per process, not once per app (shared/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: cachingSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  // The database, or inside an idempotent request its transaction (db/transact.ts).
  app.decorate('db', requestScoped(handle.db));
  app.decorate('dbKind', handle.kind);
  app.setValidatorCompiler(validatorCompiler);
  // JSON only (multipart on upload routes, see modules/index.ts): a text/plain body is a 415,
  // not a string to validate.
  app.removeContentTypeParser('text/plain');
  const parseJson = wellFormedJsonParser(app.getDefaultJsonParser('error', 'error') as never);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    parseJson(req, body as string, done),
  );
  if (!options.db) app.addHook('onClose', async () => handle.destroy());

  await app.register(errorsPlugin);
  await app.register(closingPlugin);
  await app.register(corsPlugin);
  await app.register(openapiPlugin);
  await app.register(authPlugin, { tokens: tokenSource });
  await app.register(rateLimitPlugin);
  await app.register(idempotencyPlugin);
  await app.register(pageCachePlugin, { maxBytes: config.pageCacheMb * 1024 * 1024 });
  await app.register(registerModules, { prefix: API_PREFIX });
  await app.register(healthRoutes);
  await app.register(problemTypeRoutes);
  await app.register(webPlugin);
  await app.register(oauthServerPlugin, options.oauth ?? {});

  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.redirect('/docs'),
  );
  return app as unknown as FastifyInstance;
}

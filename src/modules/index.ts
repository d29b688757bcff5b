import type { FastifyInstance } from 'fastify';
import { clientsRoutes } from './clients/clients.routes.js';
import { integrationRoutes } from './integration/integration.routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { usersRoutes } from './users/users.routes.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';

/** Every resource module, registered under the API prefix. One line per module. */
export async function registerModules(api: FastifyInstance): Promise<void> {
  await api.register(oauthRoutes);
  await api.register(usersRoutes);
  await api.register(clientsRoutes);
  await api.register(settingsRoutes);
  await api.register(integrationRoutes);
  await api.register(webhooksRoutes);
}

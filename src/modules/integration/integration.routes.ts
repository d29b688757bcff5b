import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Data, Id, Timestamp } from '../../shared/schemas.js';
import { parseScopes } from '../../shared/tokens.js';
import { getIntegration } from './integration.service.js';

const IntegrationInfo = Type.Object(
  {
    id: Id,
    name: Type.String(),
    account_id: Id,
    user_id: Id,
    client_id: Type.String(),
    scopes: Type.Array(Type.String(), { description: 'Scopes granted to the integration' }),
    token_scopes: Type.Array(Type.String(), { description: 'Scopes the presented token carries' }),
    created_at: Timestamp,
  },
  { $id: 'Integration' },
);

export const integrationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/integration',
    {
      config: { scopes: [] },
      schema: {
        tags: ['Integration'],
        summary: 'Information on the current integration',
        response: { 200: Data(IntegrationInfo) },
      },
    },
    async (req) => {
      const row = await getIntegration(app.db, req.auth.integrationId);
      return {
        data: {
          id: row.id,
          name: row.name,
          account_id: row.account_id,
          user_id: row.user_id,
          client_id: row.client_id,
          scopes: parseScopes(row.scopes),
          token_scopes: [...req.auth.scopes],
          created_at: row.created_at,
        },
      };
    },
  );
};

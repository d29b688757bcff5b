import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SearchQuery, SearchResult } from './search.schemas.js';
import * as service from './search.service.js';

export const searchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/search',
    {
      // Any token: the kinds it may read follow from its scopes (search.domain.ts KIND_SCOPES).
      config: { scopes: [] },
      schema: {
        tags: ['Search'],
        summary: 'Search across clients, contacts, companies, projects, tasks, invoices and offers',
        description:
          'Full-text search over names, numbers, e-mails, VAT ids and texts, best hits first. A token finds only the kinds its read scopes allow (client:read, contact-data:read for contacts and companies, task-management:read for tasks, projects for every token, outgoing-invoice:read, incoming-invoice:read, offer:read); 403 when it may read none of the kinds asked for.',
        querystring: SearchQuery,
        response: { 200: SearchResult },
      },
    },
    async (req) => ({ data: await service.search(app.db, req.auth, req.query) }),
  );
};

import type { FastifyInstance } from 'fastify';
import { langOf, translator } from '../i18n.js';
import { sessionUser } from '../session.js';
import { consoleView } from './shell.js';

/** The console's first page: numbers at a glance (src/web/console/dashboard.read-model.ts). */
export async function dashboardPage(app: FastifyInstance): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (req, reply) => {
    const user = await sessionUser(req);
    // Sign-in lands here; a member has no console and goes on to their own page.
    if (user?.role !== 'admin') return reply.redirect('/me', 303);
    const t = translator(langOf(req));
    return consoleView(req, reply, 'console-dashboard', { title: t('console.nav.dashboard') });
  });
}

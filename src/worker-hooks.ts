import type { FastifyInstance } from 'fastify';

export interface BackgroundWork {
  stop(): Promise<void>;
}

/**
 * Background work the API process runs beside serving requests (the webhook delivery
 * worker, when `RUN_WORKER` is on). The webhooks module plugs its worker in here.
 */
export async function startBackgroundWork(app: FastifyInstance): Promise<BackgroundWork> {
  if (!app.config.runWorker) return { stop: async () => {} };
  return { stop: async () => {} };
}

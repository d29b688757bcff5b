/**
 * The front door of webhooks for the service's retention job (src/retention.ts): finished
 * deliveries (the delivery log) older than the retention window go; pending ones stay; events
 * go with the change feed's window once no delivery names them.
 */
export { pruneDeliveries, pruneEvents } from './webhooks.queue.repository.js';
/** The address checks webhooks make, for other outbound connections an account names (mailboxes). */
export { blockedReason, type Resolver, systemResolver } from './webhooks.ssrf.js';

/**
 * The front door of clients for other modules: the import reads its section here. Clients
 * depend on no other module.
 */
export { clientsSection } from './clients.import.js';

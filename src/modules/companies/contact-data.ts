/** Moved to src/shared/external-id.ts; kept until test/unit/contact-data.test.ts imports it from there. */
export { decideExternalId } from '../../shared/external-id.js';

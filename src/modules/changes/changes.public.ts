// The change feed's front door for the retention job (src/retention.ts).
export { pruneFeed } from './changes.service.js';

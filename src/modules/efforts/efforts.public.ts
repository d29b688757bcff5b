/** The front door of efforts for the rest of the application: the change feed's read, the import section. */
export { effortsSection } from './efforts.import.js';
export { getEffort } from './efforts.service.js';

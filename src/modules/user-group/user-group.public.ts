/** The front door of user groups for the import (src/import/sections.ts). */
export { userGroupsSection } from './user-group.import.js';

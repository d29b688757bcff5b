/**
 * The front door of projects for the rest of the application: what the change feed reads and
 * the import sections (portfolios, project groups, projects with their parts).
 */
export { portfoliosSection, projectGroupsSection, projectsSection } from './projects.import.js';
export { getProject } from './projects.service.js';

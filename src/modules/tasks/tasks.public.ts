/**
 * The front door of tasks for other modules: the task schemas a project's task list answers
 * with, and the service functions other modules read tasks through.
 */

/** The import section of tasks (with their comments). */
export { tasksSection } from './tasks.import.js';
export { ProjectTaskListQuery, Task } from './tasks.schemas.js';
export { getTask, listTasks, projectIdOfTask } from './tasks.service.js';

import { fieldsFromLayout } from '../layout/fields.js';
import type { JobSteps } from './steps.js';

/**
 * The job's steps as the application runs them: the layout reader shared with the PDF text
 * layer, and the service that stores an outcome on the document.
 *
 * TODO(issue 11): import `applyExtraction` from the service directly once it has landed; until
 * then it is looked up when the worker starts, and without it the outcome is not stored (a
 * warning says so), so that the queue itself runs and can be tested.
 */
export async function defaultSteps(warn: (msg: string) => void): Promise<JobSteps> {
  const store = await lookup<JobSteps['store']>('../incoming-invoices.service.js', 'applyExtraction');
  if (!store) warn('extraction jobs: applyExtraction is missing; outcomes are not stored');
  return { fieldsFromLayout, store: store ?? (async () => {}) };
}

async function lookup<F>(specifier: string, name: string): Promise<F | undefined> {
  // Under tsx the sources are `.ts`; a build has `.js`.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const mod = (await import(new URL(specifier, import.meta.url).href.replace(/\.js$/, ext))) as Record<
    string,
    unknown
  >;
  return typeof mod[name] === 'function' ? (mod[name] as F) : undefined;
}

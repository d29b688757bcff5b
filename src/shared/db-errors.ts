import type { FastifyError } from 'fastify';
import { dbFault, isUniqueViolation, sqlState } from '../db/faults.js';
import { AppError, ERROR_CODES, type ErrorCode, type FieldError, validationFailed } from './errors.js';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Ajv issues -> `{ field, message }`, with `field` a dotted path such as `line_items.0.quantity`. */
function fieldErrors(issues: ValidationIssue[], context?: string): FieldError[] {
  // A nullable field that fails reports three issues (its type, "must be null", "anyOf");
  // keep the one that says what is wrong with the value.
  const paths = new Map<string, number>();
  for (const v of issues) paths.set(v.instancePath ?? '', (paths.get(v.instancePath ?? '') ?? 0) + 1);
  const useful = issues.filter(
    (v) =>
      (paths.get(v.instancePath ?? '') ?? 0) < 2 ||
      !(v.keyword === 'anyOf' || (v.keyword === 'type' && v.params?.type === 'null')),
  );
  const seen = new Set<string>();
  return useful.flatMap((v) => {
    let field = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    if (v.keyword === 'required' && typeof v.params?.missingProperty === 'string') {
      field = field ? `${field}.${v.params.missingProperty}` : v.params.missingProperty;
    } else if (v.keyword === 'additionalProperties' && typeof v.params?.additionalProperty === 'string') {
      field = field ? `${field}.${v.params.additionalProperty}` : v.params.additionalProperty;
    }
    const error = { field: field || context || '(root)', message: v.message ?? 'is invalid' };
    const key = `${error.field}\0${error.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [error];
  });
}

/** Database constraint violations, on both SQLite and PostgreSQL, become client errors. */
function fromDatabase(err: unknown): AppError | undefined {
  const code = sqlState(err);
  if (isUniqueViolation(err) || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new AppError('already_exists', 'A record with this value already exists', { cause: err });
  }
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new AppError('invalid_reference', 'A referenced record does not exist', { cause: err });
  }
  // The database, not the request: unreachable or overloaded (a client retries after a
  // moment), read-only, or full. The error handler logs the original error with its code.
  switch (dbFault(err)) {
    case 'unavailable':
      return new AppError('unavailable', 'The database is unavailable; retry later', {
        cause: err,
        headers: { 'retry-after': '5' },
      });
    case 'read_only':
      return new AppError('read_only', undefined, { cause: err, headers: { 'retry-after': '60' } });
    case 'storage_full':
      return new AppError('storage_full', undefined, { cause: err });
  }
  return undefined;
}

/**
 * Any error -> the one AppError the error handler answers with: Ajv validation issues become
 * field errors (422), Fastify's body and media-type errors their 4xx, database constraint
 * violations and faults their codes (unique -> 409, foreign key -> 422, unavailable -> 503).
 * Shared, not an HTTP plugin: a service that validates by hand (booking) uses it as well.
 */
export function toAppError(err: FastifyError | Error): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (e.validation) {
    return validationFailed(fieldErrors(e.validation, e.validationContext));
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', e.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError('payload_too_large', e.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError(
        e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ? 'bad_request' : 'unsupported_media_type',
        e.message,
      );
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('bad_request', e.message);
  }
  // Before the database check: a client that went away mid-body is an ECONNRESET with a 400
  // from Node's HTTP server, not a lost database connection.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (Object.entries(ERROR_CODES).find(([, v]) => v.status === e.statusCode)?.[0] ??
      'bad_request') as ErrorCode;
    return new AppError(code, e.message);
  }
  const db = fromDatabase(e);
  if (db) return db;
  return new AppError('internal', undefined, { cause: err });
}

/**
 * The one error type services throw. `code` is stable and documented; the HTTP status and
 * title come from the registry below, so a code always means the same status everywhere.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, title: 'Bad request' },
  invalid_json: { status: 400, title: 'Body is not valid JSON' },
  invalid_multipart: { status: 400, title: 'Body is not valid multipart/form-data' },
  unauthorized: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Token is unknown, expired or revoked' },
  invalid_client: { status: 401, title: 'Client authentication failed' },
  insufficient_scope: { status: 403, title: 'Token lacks a required scope' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_author: { status: 403, title: 'Only the author may do this' },
  not_found: { status: 404, title: 'Resource not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request body was not received in time' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  already_exists: { status: 409, title: 'A record with this value already exists' },
  external_id_taken: { status: 409, title: 'External identifier is already in use' },
  external_id_set: { status: 409, title: 'External identifier is already set' },
  shortcode_taken: { status: 409, title: 'Shortcode is already in use' },
  invoice_booked: { status: 409, title: 'Booked invoices cannot be changed or deleted' },
  already_booked: { status: 409, title: 'Invoice is already booked' },
  invoice_not_booked: { status: 409, title: 'Only a booked invoice has this' },
  invoice_number_taken: { status: 409, title: 'Invoice number is already taken' },
  not_booked: { status: 409, title: 'Only a booked document is sent' },
  plan_final_invoice: { status: 409, title: 'A partial plan’s final invoice goes only with its plan' },
  plan_has_booked_invoices: { status: 409, title: 'A plan with booked invoices cannot be deleted' },
  document_has_payments: { status: 409, title: 'A document with payments keeps its document type' },
  effort_already_billed: { status: 409, title: 'An effort stands on an invoice already' },
  offer_already_invoiced: { status: 409, title: 'An invoice has been made from this offer already' },
  offer_not_accepted: { status: 409, title: 'Only an accepted offer is invoiced' },
  effort_billed: { status: 409, title: 'The effort stands on an invoice: its billed value cannot change' },
  period_locked: {
    status: 409,
    title: 'The period is locked (Festschreibung): its bookings no longer change',
  },
  offer_not_open: { status: 409, title: 'Only a created or sent offer can be accepted or declined' },
  offer_locked: { status: 409, title: 'An accepted or invoiced offer cannot be changed or deleted' },
  idempotency_in_progress: { status: 409, title: 'A request with this Idempotency-Key is still in progress' },
  cursor_expired: { status: 410, title: 'The cursor is older than the change feed keeps' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  invalid_reference: { status: 422, title: 'A referenced record does not exist' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key was used with a different request' },
  unprocessable: { status: 422, title: 'Request cannot be processed' },
  einvoice_invalid: { status: 422, title: 'The e-invoice breaks a rule of its format' },
  nothing_to_bill: { status: 422, title: 'No billable effort is left to invoice' },
  rate_limited: { status: 429, title: 'Too many requests' },
  header_too_large: { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
  read_only: { status: 503, title: 'The database is read-only' },
  mail_not_configured: { status: 503, title: 'Sending mail is not configured (SMTP_URL)' },
  storage_full: { status: 507, title: 'The database storage is full' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  /** Extra members of the problem document, e.g. `required_scopes`. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, detail?: string, options: AppErrorOptions = {}) {
    super(detail ?? ERROR_CODES[code].title, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = options.errors;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`);

/** 422 naming one bad field. */
export const invalidField = (field: string, message: string) =>
  new AppError('validation_failed', `${field}: ${message}`, { errors: [{ field, message }] });

/**
 * The one 422 with a list of field errors. Its detail names every field ("a: …; b: …") unless
 * the caller gives one (some endpoints answer with the first field's message alone).
 */
export const validationFailed = (
  errors: FieldError[],
  detail = errors.map((e) => `${e.field}: ${e.message}`).join('; '),
) => new AppError('validation_failed', detail, { errors });

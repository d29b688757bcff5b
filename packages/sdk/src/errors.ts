/** One field the service refused, as in the problem document's `errors`. */
export interface FieldError {
  field: string;
  message: string;
}

/** An RFC 9457 problem document as the service writes it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
  required_scopes?: string[];
  [member: string]: unknown;
}

/**
 * Every answer of 400 and above, thrown: branch on `code` (stable, snake_case, listed per
 * operation in the OpenAPI document), show `detail`, and `errors` for the fields of a 422.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: FieldError[];
  readonly requiredScopes: string[] | undefined;
  /** Seconds the service asked to wait (429, 503, 409 idempotency_in_progress). */
  readonly retryAfter: number | undefined;
  readonly problem: Problem;

  constructor(problem: Problem, retryAfter?: number) {
    super(`${problem.status} ${problem.code}: ${problem.detail ?? problem.title}`);
    this.name = 'ApiError';
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.requiredScopes = problem.required_scopes;
    this.retryAfter = retryAfter;
  }

  /** Whether repeating the same request later may succeed. */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503 || this.code === 'idempotency_in_progress';
  }
}

/** The ApiError of a failed answer; non-problem bodies (a proxy's HTML page) become `http_<status>`. */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text();
  const retry = Number(response.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && response.headers.has('retry-after') ? retry : undefined;
  let problem: Problem | undefined;
  try {
    const body = JSON.parse(text) as Partial<Problem> & { error?: string; error_description?: string };
    if (typeof body.code === 'string') problem = { ...body, status: response.status } as Problem;
    // The OAuth token endpoint answers RFC 6749 bodies: { error, error_description }.
    else if (typeof body.error === 'string')
      problem = {
        type: 'about:blank',
        title: body.error,
        status: response.status,
        code: body.error,
        detail: body.error_description,
      };
  } catch {
    // not JSON
  }
  return new ApiError(
    problem ?? {
      type: 'about:blank',
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      code: `http_${response.status}`,
      detail: text.slice(0, 500),
    },
    retryAfter,
  );
}

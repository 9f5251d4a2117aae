/**
 * The supervisor's failures as its clients see them: a status, a message, and where the
 * original has them an `error_key` with the message's template arguments (`extra_fields`),
 * and the job that failed (`job_id`). The gateway turns one into the error envelope.
 */
export class SupervisorError extends Error {
  readonly status: number;
  readonly errorKey?: string;
  readonly extraFields?: Record<string, unknown>;
  jobId?: string;
  /** the answer is the bare message as text/plain (the middleware's and the log routes' errors) */
  readonly plain: boolean;

  constructor(
    message: string,
    options: { status?: number; errorKey?: string; extraFields?: Record<string, unknown>; jobId?: string; plain?: boolean } = {},
  ) {
    super(message);
    this.name = 'SupervisorError';
    this.status = options.status ?? 400;
    this.errorKey = options.errorKey;
    this.extraFields = options.extraFields && Object.keys(options.extraFields).length ? options.extraFields : undefined;
    this.jobId = options.jobId;
    this.plain = options.plain ?? false;
  }
}

/** The original's text when a failure has none of its own. */
export const UNKNOWN_ERROR = 'Unknown error, see Supervisor logs';

/** A keyed error: `template` with `{name}` placeholders filled from `fields`. */
export function keyedError(status: number, errorKey: string, template: string, fields: Record<string, unknown> = {}): SupervisorError {
  const message = template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in fields ? String(fields[name]) : whole));
  return new SupervisorError(message, { status, errorKey, extraFields: fields });
}

export const notFound = (message: string) => new SupervisorError(message, { status: 404 });
export const badRequest = (message: string) => new SupervisorError(message, { status: 400 });

/** Supervisor's own unknown failure (stats of a container that is not running, ...). */
export function supervisorUnknownError(): SupervisorError {
  return keyedError(500, 'supervisor_unknown_error', 'An unknown error occurred with Supervisor. Check Supervisor logs for details');
}

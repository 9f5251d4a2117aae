/** The codes the event log fails with, so callers branch on a code rather than a message. */
export type StoreErrorCode =
  | 'HEARTH_LOG_OPEN_FAILED'
  | 'HEARTH_LOG_CLOSED'
  | 'HEARTH_LOG_WRITE_FAILED'
  | 'HEARTH_LOG_CORRUPT'
  | 'HEARTH_INVALID_EVENT'
  | 'HEARTH_INVALID_OPTIONS';

/** An error raised by the event log, carrying a `HEARTH_*` code. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** The message of any thrown value, for errors that name their cause. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

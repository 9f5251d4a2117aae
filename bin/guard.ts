/**
 * The last line of defence of a serving process. Nothing a client sends is meant to get here
 * (each layer answers its own errors); if something does, it is a bug, and it is said loudly:
 * an exception thrown out of any handler leaves state no one can vouch for, so Hearth stops
 * (the log is flushed, every acknowledged write is in it) with a distinct exit code for its
 * supervisor to restart it. A rejected promise nobody awaited is logged and Hearth runs on:
 * it unwound through promise code only, which left nothing half-done behind it.
 */
export function guardProcess(options: { logLine: (line: string, level: 'critical' | 'error') => void; stop: (code: number) => void }): void {
  process.on('uncaughtException', (err, origin) => {
    options.logLine(`Hearth: unexpected error (${origin}), a bug; stopping with code ${UNEXPECTED_EXIT}:\n${describe(err)}`, 'critical');
    options.stop(UNEXPECTED_EXIT);
  });
  process.on('unhandledRejection', (reason) => {
    options.logLine(`Hearth: a failed promise nobody awaited, a bug; running on:\n${describe(reason)}`, 'error');
  });
}

/** The exit code after an unexpected error (EX_SOFTWARE). */
export const UNEXPECTED_EXIT = 70;

function describe(err: unknown, depth = 0): string {
  if (err instanceof Error) {
    const cause = err.cause === undefined || depth > 4 ? '' : `\ncaused by: ${describe(err.cause, depth + 1)}`;
    return `${err.stack ?? `${err.name}: ${err.message}`}${cause}`;
  }
  try {
    return `thrown value: ${JSON.stringify(err)}`;
  } catch {
    return `thrown value of type ${typeof err}`;
  }
}

/**
 * The one orderly way out of a serving process: stop the running instance (its log flushed),
 * say so, exit with `code`. SIGINT and SIGTERM take it; a second call while leaving is ignored.
 */
export function orderlyExit(what: string, stop: () => Promise<void> | undefined): (code: number) => Promise<void> {
  let exiting = false;
  const exit = async (code: number) => {
    if (exiting) return;
    exiting = true;
    try {
      await stop();
      console.log(`${what} stopped; the log is flushed`);
    } finally {
      process.exit(code);
    }
  };
  process.on('SIGINT', () => void exit(0));
  process.on('SIGTERM', () => void exit(0));
  return exit;
}

import { plainError, text } from '../replies.ts';
import type { Router } from '../router.ts';
import type { Logs } from '../../actors/logging/logs.ts';

/** What the log routes need. */
export interface LoggingRouteDeps {
  logs: Pick<Logs, 'filePath' | 'readFile'>;
}

/**
 * `GET /api/error_log` (admin): the log file as plain text, as the original serves
 * home-assistant.log. Like the original, the route exists only when there is a file to serve.
 */
export function registerLoggingRoutes(root: Router, deps: LoggingRouteDeps): void {
  const router = root.of('api');
  if (deps.logs.filePath === undefined) return;
  router.get('/api/error_log', { access: 'admin' }, () => {
    let body: string | undefined;
    try {
      body = deps.logs.readFile();
    } catch {
      // moved or deleted under a running instance: the original's file answer is 404 then
      body = undefined;
    }
    return body === undefined ? plainError(404) : text(200, body);
  });
}

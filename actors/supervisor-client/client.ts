/**
 * The core's side of a supervisor: when the supervisor runs this core (env SUPERVISOR and
 * SUPERVISOR_TOKEN in its container), the core talks to the supervisor's REST API with that
 * token. The WebSocket command `supervisor/api` goes through here; what the supervisor answers is
 * unwrapped from its `{result, data}` envelope, and what goes wrong becomes a SupervisorApiError
 * whose message is the supervisor's own when it gave one.
 */

export interface SupervisorEndpoint {
  /** the supervisor's base URL as this core reaches it, e.g. http://supervisor:1703 */
  url: string;
  /** the core's token, issued by the supervisor */
  token: string;
}

/** The supervisor's endpoint from the environment, or undefined when no supervisor runs this core. */
export function supervisorFromEnv(env: Record<string, string | undefined>): SupervisorEndpoint | undefined {
  const url = (env.SUPERVISOR ?? '').trim();
  const token = (env.SUPERVISOR_TOKEN ?? '').trim();
  if (!url || !token) return undefined;
  // the original's env holds a bare host ("supervisor"); a URL is taken as it is
  return { url: (/^https?:\/\//.test(url) ? url : `http://${url}`).replace(/\/+$/, ''), token };
}

/** A call that failed: the supervisor refused it (its message), or it was not reached in time. */
export class SupervisorApiError extends Error {}

export interface SupervisorCallOptions {
  method: string;
  data?: Record<string, unknown>;
  /** seconds; null or 0 for none; 10 by default, as the original */
  timeout?: number | null;
  /** who asks (the original's X-Hass-Source header) */
  source?: string;
}

export const DEFAULT_TIMEOUT_S = 10;

export class SupervisorClient {
  constructor(private readonly endpoint: SupervisorEndpoint) {}

  /**
   * Calls `path` on the supervisor and answers its `data` ({} when it gave none). The path
   * stays on the supervisor's host: it must start with "/" (a bare name could otherwise be read
   * as part of the port or host).
   */
  async send(path: string, options: SupervisorCallOptions): Promise<unknown> {
    if (!path.startsWith('/')) throw new SupervisorApiError(`Invalid endpoint ${JSON.stringify(path)}: it must be a path starting with /`);
    const method = options.method.toUpperCase();
    if (!/^[A-Z]+$/.test(method)) throw new SupervisorApiError(`Invalid method ${JSON.stringify(options.method)}`);
    const timeout = options.timeout === undefined ? DEFAULT_TIMEOUT_S : options.timeout;
    const controller = new AbortController();
    const timer = timeout ? setTimeout(() => controller.abort(), timeout * 1000) : undefined;
    // GET and HEAD carry no body over fetch; the original sends the payload with every other method
    const hasBody = method !== 'GET' && method !== 'HEAD';
    try {
      const res = await fetch(this.endpoint.url + path, {
        method,
        headers: {
          Authorization: `Bearer ${this.endpoint.token}`,
          'X-Hass-Source': options.source ?? 'core.websocket_api',
          ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
        },
        body: hasBody ? JSON.stringify(options.data ?? {}) : undefined,
        signal: controller.signal,
        redirect: 'manual',
      });
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (res.status !== 200) {
        if (body && typeof body === 'object' && body.result === 'error') throw new SupervisorApiError(String(body.message ?? ''));
        throw new SupervisorApiError(`Request to ${path} method ${options.method} returned with code ${res.status}`);
      }
      if (!body || typeof body !== 'object') throw new SupervisorApiError(`Request to ${path} answered no JSON`);
      return body.data ?? {};
    } catch (err) {
      if (err instanceof SupervisorApiError) throw err;
      if (controller.signal.aborted) throw new SupervisorApiError(`Timeout on ${path} request`);
      throw new SupervisorApiError(`Client error on ${path} request ${(err as Error)?.cause ?? (err as Error)?.message ?? err}`);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

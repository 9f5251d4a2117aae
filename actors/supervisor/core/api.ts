import type { Clock } from '../../clock.ts';
import { coreWsCommand, CoreWsError } from './ws-command.ts';
import type { UserInfo } from '../../auth/admin.ts';

/**
 * The supervisor's client of the core's API. The core answers only a user's token: the
 * supervisor holds the refresh token the core sent it (`POST /core/options {refresh_token}`,
 * kept in the `core` settings section) and trades it at `POST /auth/token` for an access
 * token, kept until shortly before it expires. `request` is REST, `command` one WebSocket
 * command (`config/auth/list`). A failure to reach the core, or a refused token, is a
 * CoreApiError; the answer of a reached core is the caller's to judge.
 */

export class CoreApiError extends Error {}

export interface CoreApiOptions {
  /** the core's base URL as the supervisor reaches it (`http://127.0.0.1:1702`) */
  url(): Promise<string>;
  /** the refresh token the core handed over, null before it did */
  refreshToken(): string | null;
  clock: Clock;
  /** per request (default 10 s, as the original) */
  timeoutMs?: number;
}

// an access token is not used in its last minute, so a slow request does not carry a stale one
const EXPIRY_MARGIN_MS = 60_000;

/** A core user as config/auth/list shows it to the supervisor. */
export type CoreApiUser = Omit<UserInfo, 'credentials'>;

export class CoreApi {
  private cached?: { refreshToken: string; accessToken: string; until: number };
  private pending?: Promise<string>;

  constructor(private readonly options: CoreApiOptions) {}

  /** An access token of the supervisor's core user; fetched again only when the cached one nears its end. */
  async accessToken(): Promise<string> {
    const refreshToken = this.options.refreshToken();
    if (!refreshToken) throw new CoreApiError('the core has not handed the supervisor a refresh token yet');
    const now = this.options.clock.now();
    if (this.cached && this.cached.refreshToken === refreshToken && now < this.cached.until) return this.cached.accessToken;
    // concurrent callers share one exchange
    this.pending ??= this.exchange(refreshToken).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async exchange(refreshToken: string): Promise<string> {
    const base = await this.options.url();
    let res: Response;
    try {
      res = await fetch(`${base}/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new CoreApiError(`cannot reach the core at ${base}: ${(err as Error).message}`);
    }
    if (!res.ok) throw new CoreApiError(`the core refused the supervisor's refresh token (${res.status})`);
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new CoreApiError('the core answered the token exchange without an access token');
    const lifetimeMs = (body.expires_in ?? 1800) * 1000;
    this.cached = { refreshToken, accessToken: body.access_token, until: this.options.clock.now() + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS) };
    return body.access_token;
  }

  /** Forgets the cached access token (the core refused it: restarted with other keys, token revoked). */
  forget(): void {
    this.cached = undefined;
  }

  /** A REST request to the core's API (`path` from the root, e.g. `/api/hassio_auth`), JSON body. */
  async request(method: string, path: string, body?: unknown): Promise<Response> {
    const base = await this.options.url();
    const send = async (token: string) => {
      try {
        return await fetch(base + path, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
      } catch (err) {
        throw new CoreApiError(`cannot reach the core at ${base}: ${(err as Error).message}`);
      }
    };
    let res = await send(await this.accessToken());
    if (res.status === 401) {
      // the cached token may have died with a core restart: one more try with a fresh one
      this.forget();
      res = await send(await this.accessToken());
    }
    return res;
  }

  /** One WebSocket command; resolves to its result. */
  async command(message: Record<string, unknown>): Promise<unknown> {
    const base = await this.options.url();
    try {
      return await coreWsCommand(base, await this.accessToken(), message, this.options.timeoutMs ?? 10_000);
    } catch (err) {
      if (err instanceof CoreWsError) throw new CoreApiError(err.message);
      throw err;
    }
  }

  /** Whether the core's API answers the supervisor (`GET /api/` with its token). */
  async up(): Promise<boolean> {
    try {
      return (await this.request('GET', '/api/')).ok;
    } catch {
      return false;
    }
  }

  /** The core's users (`config/auth/list`). */
  async users(): Promise<CoreApiUser[]> {
    const result = await this.command({ type: 'config/auth/list' });
    if (!Array.isArray(result)) throw new CoreApiError('config/auth/list answered no list');
    return result as CoreApiUser[];
  }

  /** One core user by id (an ingress session's user), undefined when the core has none by that id. */
  async lookupUser(id: string): Promise<CoreApiUser | undefined> {
    return (await this.users()).find((u) => u.id === id);
  }
}

import { createHash } from 'node:crypto';
import { readFile, writeFile, rename } from 'node:fs/promises';
import type { Logger } from '../../logging/logs.ts';
import { keyedError } from '../errors.ts';
import { CoreApiError, type CoreApi } from '../core/api.ts';

/**
 * The auth helper (supervisor-wire §4.13): apps with `auth_api` check a user's name and password
 * against the core's users through the supervisor. The core takes a second or two per check, so
 * the last good answer per username is cached (both sides hashed by 19 rounds of chained SHA-256,
 * the password salted with the username) and the core is asked again in the background; while
 * the core is down the cache alone decides. The cache lives in `<data>/auth.json` (mode 0600).
 */

/** The original's hash: 19 rounds of sha256 over `value + round + salt`. */
export function rehash(value: string, salt = ''): string {
  for (let round = 1; round < 20; round++) value = createHash('sha256').update(`${value}${round}${salt}`).digest('hex');
  return value;
}

export interface AuthHelperDeps {
  file: string;
  core: Pick<CoreApi, 'up' | 'request' | 'users'>;
  logger: Logger;
}

/** One user as GET /auth/list shows it. */
export interface AuthListUser {
  username: string;
  name: string | null;
  is_owner: boolean;
  is_active: boolean;
  local_only: boolean;
  group_ids: string[];
}

export class AuthHelper {
  private cache: Record<string, string> = {};
  private readonly running = new Map<string, Promise<boolean>>();
  private loaded?: Promise<void>;

  constructor(private readonly deps: AuthHelperDeps) {}

  private load(): Promise<void> {
    return (this.loaded ??= readFile(this.deps.file, 'utf8').then(
      (text) => {
        try {
          const parsed = JSON.parse(text);
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) this.cache = parsed;
        } catch {
          // a damaged cache is an empty one: the core is asked again
          this.deps.logger.warning(`${this.deps.file} is not a credential cache: starting an empty one`);
        }
      },
      () => {},
    ));
  }

  private async save(): Promise<void> {
    const tmp = `${this.deps.file}.tmp`;
    await writeFile(tmp, JSON.stringify(this.cache), { mode: 0o600 });
    await rename(tmp, this.deps.file);
  }

  private cached(username: string, password: string): boolean | undefined {
    const stored = this.cache[rehash(username)];
    if (stored === undefined) return undefined;
    return stored === rehash(password, username);
  }

  /**
   * Whether `username` and `password` are a core user's, asked for the app `slug`. A cache hit
   * answers at once (the core is asked again behind it); no hit asks the core and waits.
   */
  async check(slug: string, username: string, password: string): Promise<boolean> {
    await this.load();
    const hit = this.cached(username, password);
    if (!(await this.deps.core.up())) {
      this.deps.logger.info('the core is not running: the credential cache decides');
      return hit === true;
    }
    if (hit === undefined) return this.ask(slug, username, password);
    if (!this.running.has(username)) void this.ask(slug, username, password).catch(() => {});
    return hit;
  }

  private ask(slug: string, username: string, password: string): Promise<boolean> {
    const p = (async () => {
      let res: Response;
      try {
        res = await this.deps.core.request('POST', '/api/hassio_auth', { username, password, addon: slug });
      } catch (err) {
        this.deps.logger.error(`cannot ask the core about a login: ${(err as Error).message}`);
        throw keyedError(500, 'auth_home_assistant_api_validation_error', 'Unable to validate authentication details with Home Assistant. Check Supervisor logs for details');
      }
      const key = rehash(username);
      const value = rehash(password, username);
      if (res.status === 200) {
        this.deps.logger.info(`Successful login for '${username}'`);
        if (this.cache[key] !== value) {
          this.cache[key] = value;
          await this.save();
        }
        return true;
      }
      this.deps.logger.warning(`Unauthorized login for '${username}'`);
      if (this.cache[key] === value) {
        delete this.cache[key];
        await this.save();
      }
      return false;
    })().finally(() => this.running.delete(username));
    this.running.set(username, p);
    return p;
  }

  /** DELETE /auth/cache */
  async reset(): Promise<void> {
    await this.load();
    this.cache = {};
    await this.save();
  }

  /** Resolves once the background checks under way have ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  /** POST /auth/reset: the core sets the user's password; 400 `auth_password_reset_error` when it does not. */
  async changePassword(username: string, password: string): Promise<void> {
    try {
      const res = await this.deps.core.request('POST', '/api/hassio_auth/password_reset', { username, password });
      if (res.status === 200) {
        this.deps.logger.info(`Successful password reset for '${username}'`);
        return;
      }
    } catch (err) {
      if (!(err instanceof CoreApiError)) throw err;
      this.deps.logger.error(`cannot ask the core to reset a password: ${err.message}`);
    }
    throw keyedError(400, 'auth_password_reset_error', "Username '{user}' does not exist. Check list of users using '{auth_list_command}'.", { user: username, auth_list_command: 'ha auth list' });
  }

  /** GET /auth/list: the core's users that have a username. */
  async list(): Promise<AuthListUser[]> {
    let users;
    try {
      users = await this.deps.core.users();
    } catch (err) {
      if (!(err instanceof CoreApiError)) throw err;
      this.deps.logger.error(`cannot list the core's users: ${err.message}`);
      throw keyedError(500, 'auth_list_users_error', "Can't request listing users on Home Assistant. Check Supervisor logs for details");
    }
    return users
      .filter((u) => u.username)
      .map((u) => ({ username: u.username!, name: u.name, is_owner: u.is_owner, is_active: u.is_active, local_only: u.local_only, group_ids: u.group_ids }));
  }
}


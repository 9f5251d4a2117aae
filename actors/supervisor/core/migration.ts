/**
 * The migration guard: before an update, stop, restart or rebuild (unless `force`) the original
 * asks the running core `GET /api/core/state` and refuses while an offline database migration
 * runs. Hearth's core has no offline migration (it reports `migration_in_progress: false`), yet
 * the guard asks as the original does, so a core that does report one is not cut off.
 *
 * The core answers only a user's token: the guard trades the `refresh_token` of the core
 * options (`POST /core/options`) for an access token at `POST /auth/token`. Without one, or
 * when the core cannot be reached, nothing is known to be migrating and the call goes ahead.
 */

export const MIGRATION_MESSAGE = 'Offline database migration in progress, try again after it has completed';

export interface MigrationProbe {
  /** the core's base URL (`http://127.0.0.1:1702`) */
  url: string;
  refreshToken: string | null;
  timeoutMs?: number;
  /** told why the core could not be asked */
  warn?: (line: string) => void;
}

/** Whether the core reports an offline (not live) database migration. */
export async function offlineMigrationRunning(probe: MigrationProbe): Promise<boolean> {
  if (!probe.refreshToken) return false;
  const signal = AbortSignal.timeout(probe.timeoutMs ?? 5000);
  try {
    const tokenRes = await fetch(`${probe.url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: probe.refreshToken }).toString(),
      signal,
    });
    if (!tokenRes.ok) {
      probe.warn?.(`the core refused the supervisor's refresh token (${tokenRes.status}): cannot ask it about a database migration`);
      return false;
    }
    const { access_token: access } = (await tokenRes.json()) as { access_token?: string };
    if (!access) return false;
    const stateRes = await fetch(`${probe.url}/api/core/state`, { headers: { Authorization: `Bearer ${access}` }, signal });
    if (!stateRes.ok) return false;
    const state = (await stateRes.json()) as { recorder_state?: { migration_in_progress?: boolean; migration_is_live?: boolean } };
    return state.recorder_state?.migration_in_progress === true && state.recorder_state?.migration_is_live !== true;
  } catch {
    // not running or not answering: nothing to protect
    return false;
  }
}

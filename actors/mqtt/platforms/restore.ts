import type { EntityState } from '../../entities/types.ts';
import { parseIsoTime } from '../../../store/time.ts';

/**
 * The time a restored state names (a button's last press, a scene's last activation, an event's
 * time) as epoch ms; null when there is none: nothing restored, unknown, unavailable or no time.
 */
export function restoredTime(restored: EntityState | undefined): number | null {
  const last = restored && restored.state !== 'unknown' && restored.state !== 'unavailable' ? parseIsoTime(restored.state) : NaN;
  return Number.isFinite(last) ? last : null;
}

/**
 * What an entity whose values expire (expire_after) restores after a restart, as the original's
 * sensors do: the last state, if it was a value and has not expired since it changed; with the
 * machine's expiry settings (`expireAfterMs`, and `remainingMs` of the restored value).
 */
export function expiryInput(
  restored: EntityState | undefined,
  expireAfterSeconds: number | undefined,
  now: number,
): { kept: EntityState | undefined; expireAfterMs: number | null; remainingMs: number } {
  const expireAfterMs = expireAfterSeconds ? expireAfterSeconds * 1000 : null;
  if (!restored || expireAfterMs === null || restored.state === 'unknown' || restored.state === 'unavailable') return { kept: undefined, expireAfterMs, remainingMs: 0 };
  const remainingMs = restored.last_changed + expireAfterMs - now;
  return remainingMs > 0 ? { kept: restored, expireAfterMs, remainingMs } : { kept: undefined, expireAfterMs, remainingMs: 0 };
}

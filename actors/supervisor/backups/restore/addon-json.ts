import { keyedError } from '../../errors.ts';
import { isObject } from '../../../json-object.ts';

/** An app's `addon.json` in a backup (supervisor-wire §5.4). */
export interface AddonJson {
  user: Record<string, unknown>;
  system: Record<string, unknown>;
  version: string;
  state: 'started' | 'stopped';
}


/** Checks `addon.json` as read from the app's archive; anything else is `app_backup_metadata_invalid_error`. */
export function parseAddonJson(slug: string, raw: Buffer | undefined): AddonJson {
  const invalid = (problem: string) => keyedError(400, 'app_backup_metadata_invalid_error', 'App {app} has invalid metadata in backup: {validation_error}', { app: slug, validation_error: problem });
  if (raw === undefined) throw invalid('addon.json is missing');
  let data: unknown;
  try {
    data = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid('addon.json is not valid JSON');
  }
  if (!isObject(data)) throw invalid('addon.json is not an object');
  if (!isObject(data.user)) throw invalid("expected a dictionary for dictionary value @ data['user']");
  if (!isObject(data.system)) throw invalid("expected a dictionary for dictionary value @ data['system']");
  if (typeof data.version !== 'string' || data.version === '') throw invalid("expected str for dictionary value @ data['version']");
  // the writer's mapping: `startup` counts as started, `error`/`unknown` as stopped
  const state = data.state === 'started' || data.state === 'startup' ? 'started' : 'stopped';
  if (data.state !== undefined && typeof data.state !== 'string') throw invalid("expected str for dictionary value @ data['state']");
  return { user: data.user, system: data.system, version: data.version, state };
}

// configuration.yaml read as Hearth reads it: its tags resolved (yaml-loader.ts), the core,
// http and recorder sections checked (core-section.ts, http-config.ts, auth-config.ts), the
// sections of domains kept raw for their owners.
import { join } from 'node:path';
import { validateExport, type ExportConfig } from '../export/config.ts';
import { ConfigurationError } from './config-error.ts';
import { validateCore } from './core-section.ts';
import { validateHttpSecurity } from './http-config.ts';
import { loadYamlFile } from './yaml-loader.ts';

// bin/instance.ts reads the auth settings of the core section through this module
export { authGroupsOfCore, authProvidersOfCore, mfaModulesOfCore } from './auth-config.ts';

/** Commit mode of the recorder (see store/). */
export type RecorderCommit = 'durable' | 'fast';

/** configuration.yaml as Hearth reads it. Sections of domains stay raw for their owners. */
export interface Configuration {
  core: Record<string, unknown>;
  /** true when the file had a `core:` section (the original's config_source `yaml`) */
  coreFromYaml: boolean;
  http: {
    cors_allowed_origins: string[];
    server_port?: number;
    /** the original's defaults: bans on, never banned (-1) */
    ip_ban_enabled: boolean;
    login_attempts_threshold: number;
    /** X-Forwarded-For honoured only with this and from one of `trusted_proxies` (`address/prefix`) */
    use_x_forwarded_for: boolean;
    trusted_proxies: string[];
  };
  recorder: { purge_keep_days: number; commit: RecorderCommit; export: ExportConfig };
  sections: Record<string, unknown>;
}

/**
 * Reads `<dir>/configuration.yaml` (absent: defaults) with the original's tags (yaml-loader.ts):
 * `!include`, `!include_dir_*`, `!env_var`, `!secret` from the secrets.yaml files up to `<dir>`.
 */
export async function loadConfiguration(dir: string): Promise<Configuration> {
  const file = join(dir, 'configuration.yaml');
  let doc: unknown;
  try {
    doc = await loadYamlFile(file, { configDir: dir });
  } catch (err: any) {
    if (err.code === 'ENOENT') return normalise({}, file);
    throw err;
  }
  return normalise(doc ?? {}, file);
}

function normalise(doc: unknown, file: string): Configuration {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ConfigurationError(`${file}: the top level must be a mapping of sections`);
  }
  const sections = { ...(doc as Record<string, unknown>) };
  // users of the original name this section after its brand; both spellings are read
  const coreName = sections.core !== undefined && sections.core !== null ? 'core' : 'homeassistant';
  const coreRaw = sections[coreName];
  delete sections.core;
  delete sections.homeassistant;
  const httpRaw = (sections.http ?? {}) as Record<string, unknown>;
  delete sections.http;
  const recRaw = (sections.recorder ?? {}) as Record<string, unknown>;
  delete sections.recorder;

  const keep = recRaw.purge_keep_days ?? 10;
  if (!Number.isInteger(keep) || (keep as number) < 1) {
    throw new ConfigurationError(`${file}: recorder: purge_keep_days must be an integer of at least 1, got ${JSON.stringify(keep)}`);
  }
  const commit = recRaw.commit ?? 'durable';
  if (commit !== 'durable' && commit !== 'fast') {
    throw new ConfigurationError(`${file}: recorder: commit must be 'durable' or 'fast', got ${JSON.stringify(commit)}`);
  }
  let exportConfig: ExportConfig;
  try {
    exportConfig = validateExport(recRaw.export, `${file}: recorder: export`);
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
  const origins = httpRaw.cors_allowed_origins ?? ['https://cast.home-assistant.io'];
  if (!Array.isArray(origins) && typeof origins !== 'string') {
    throw new ConfigurationError(`${file}: http: cors_allowed_origins must be a list of origins`);
  }
  if (coreRaw !== undefined && coreRaw !== null && (typeof coreRaw !== 'object' || Array.isArray(coreRaw))) {
    throw new ConfigurationError(`${file}: ${coreName}: must be a mapping`);
  }
  return {
    // checked here, where the file is known, so neither a start nor a reload goes ahead with it
    core: validateCore((coreRaw ?? {}) as Record<string, unknown>, `${file}: ${coreName}`),
    coreFromYaml: coreRaw !== undefined,
    http: {
      cors_allowed_origins: Array.isArray(origins) ? origins.map(String) : [String(origins)],
      server_port: typeof httpRaw.server_port === 'number' ? httpRaw.server_port : undefined,
      ...validateHttpSecurity(httpRaw, `${file}: http`),
    },
    recorder: { purge_keep_days: keep as number, commit, export: exportConfig },
    sections,
  };
}

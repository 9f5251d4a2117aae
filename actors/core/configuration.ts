import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, type ScalarTag } from 'yaml';

/** Commit mode of the recorder (see store/). */
export type RecorderCommit = 'durable' | 'fast';

/** configuration.yaml as Hearth reads it. Sections of domains stay raw for their owners. */
export interface Configuration {
  core: Record<string, unknown>;
  /** true when the file had a `core:` section (the original's config_source `yaml`) */
  coreFromYaml: boolean;
  http: { cors_allowed_origins: string[]; server_port?: number };
  recorder: { purge_keep_days: number; commit: RecorderCommit };
  sections: Record<string, unknown>;
}

/** A configuration error that names the file and the problem. */
export class ConfigurationError extends Error {}

/**
 * Reads `<dir>/configuration.yaml` (absent: defaults), resolving `!secret name` from
 * `<dir>/secrets.yaml`.
 */
export async function loadConfiguration(dir: string): Promise<Configuration> {
  const file = join(dir, 'configuration.yaml');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err: any) {
    if (err.code === 'ENOENT') return normalise({}, file);
    throw new ConfigurationError(`cannot read ${file}: ${err.message}`);
  }
  let secrets: Record<string, unknown> | undefined;
  const loadSecrets = async () => {
    try {
      secrets = (parse(await readFile(join(dir, 'secrets.yaml'), 'utf8')) ?? {}) as Record<string, unknown>;
    } catch (err: any) {
      if (err.code === 'ENOENT') secrets = {};
      else throw new ConfigurationError(`cannot read ${join(dir, 'secrets.yaml')}: ${err.message}`);
    }
  };
  if (text.includes('!secret')) await loadSecrets();
  const secretTag: ScalarTag = {
    tag: '!secret',
    resolve(name: string) {
      if (!secrets || !(name in secrets)) throw new ConfigurationError(`${file}: secret '${name}' is not defined in secrets.yaml`);
      return secrets[name] as any;
    },
  };
  let doc: unknown;
  try {
    doc = parse(text, { customTags: [secretTag] });
  } catch (err: any) {
    if (err instanceof ConfigurationError) throw err;
    throw new ConfigurationError(`${file}: invalid YAML: ${err.message}`);
  }
  return normalise(doc ?? {}, file);
}

function normalise(doc: unknown, file: string): Configuration {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ConfigurationError(`${file}: the top level must be a mapping of sections`);
  }
  const sections = { ...(doc as Record<string, unknown>) };
  // users of the original name this section after its brand; both spellings are read
  const coreRaw = sections.core ?? sections.homeassistant;
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
  const origins = httpRaw.cors_allowed_origins ?? ['https://cast.home-assistant.io'];
  if (!Array.isArray(origins) && typeof origins !== 'string') {
    throw new ConfigurationError(`${file}: http: cors_allowed_origins must be a list of origins`);
  }
  if (coreRaw !== undefined && coreRaw !== null && (typeof coreRaw !== 'object' || Array.isArray(coreRaw))) {
    throw new ConfigurationError(`${file}: core: must be a mapping`);
  }
  return {
    core: (coreRaw ?? {}) as Record<string, unknown>,
    coreFromYaml: coreRaw !== undefined,
    http: {
      cors_allowed_origins: Array.isArray(origins) ? origins.map(String) : [String(origins)],
      server_port: typeof httpRaw.server_port === 'number' ? httpRaw.server_port : undefined,
    },
    recorder: { purge_keep_days: keep as number, commit },
    sections,
  };
}

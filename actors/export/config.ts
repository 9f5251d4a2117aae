// `recorder: export: nats:` of configuration.yaml: where the log is mirrored.

/** The NATS JetStream mirror of the log. */
export interface NatsExportConfig {
  /** nats://host:port URLs (at least one) */
  servers: string[];
  /** the JetStream stream's name (created when missing) */
  stream: string;
  /** first token of every subject: `<prefix>.<kind>.<id...>` */
  subject_prefix: string;
  /** a .creds file (user JWT and NKey seed), read at connect time */
  credentials?: string;
  /** lag (records) past which a warning is logged once (default 10000) */
  lag_warning: number;
  /** records exported between two snapshots for replicas in the object store (default 100000) */
  snapshot_every: number;
}

export interface ExportConfig {
  nats?: NatsExportConfig;
}

const NAME = /^[A-Za-z0-9_-]+$/;
const PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks `recorder: export:`; `where` names the file and section (`configuration.yaml: recorder: export`).
 * Throws an Error naming the key at fault.
 */
export function validateExport(raw: unknown, where: string): ExportConfig {
  if (raw === undefined || raw === null) return {};
  if (!isMapping(raw)) throw new Error(`${where}: must be a mapping (nats: ...)`);
  for (const key of Object.keys(raw)) if (key !== 'nats') throw new Error(`${where}: unknown exporter ${JSON.stringify(key)} (known: nats)`);
  if (raw.nats === undefined || raw.nats === null) return {};
  const n = raw.nats;
  const at = `${where}: nats`;
  if (!isMapping(n)) throw new Error(`${at}: must be a mapping with servers, stream, subject_prefix`);
  const known = new Set(['servers', 'stream', 'subject_prefix', 'credentials', 'lag_warning', 'snapshot_every']);
  for (const key of Object.keys(n)) if (!known.has(key)) throw new Error(`${at}: unknown key ${JSON.stringify(key)} (known: ${[...known].join(', ')})`);
  const servers = typeof n.servers === 'string' ? [n.servers] : n.servers;
  if (!Array.isArray(servers) || servers.length === 0) throw new Error(`${at}: servers must be a non-empty list of nats://host:port URLs, got ${JSON.stringify(n.servers)}`);
  for (const s of servers) {
    if (typeof s !== 'string' || !/^(nats|tls|ws|wss):\/\/[^\s/]+(:\d+)?\/?$|^[^\s:/]+:\d+$/.test(s)) {
      throw new Error(`${at}: servers: ${JSON.stringify(s)} is not a nats://host:port URL`);
    }
  }
  const stream = n.stream ?? 'hearth';
  if (typeof stream !== 'string' || !NAME.test(stream)) throw new Error(`${at}: stream must be a name of letters, digits, _ and -, got ${JSON.stringify(n.stream)}`);
  const prefix = n.subject_prefix ?? 'hearth';
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw new Error(`${at}: subject_prefix must be dot-separated tokens of letters, digits, _ and - (no * or >), got ${JSON.stringify(n.subject_prefix)}`);
  }
  if (n.credentials !== undefined && (typeof n.credentials !== 'string' || n.credentials === '')) {
    throw new Error(`${at}: credentials must be the path of a .creds file, got ${JSON.stringify(n.credentials)}`);
  }
  const lag = n.lag_warning ?? 10_000;
  if (!Number.isInteger(lag) || (lag as number) < 1) throw new Error(`${at}: lag_warning must be an integer of at least 1, got ${JSON.stringify(n.lag_warning)}`);
  const every = n.snapshot_every ?? 100_000;
  if (!Number.isInteger(every) || (every as number) < 1) throw new Error(`${at}: snapshot_every must be an integer of at least 1, got ${JSON.stringify(n.snapshot_every)}`);
  const out: NatsExportConfig = { servers: servers as string[], stream, subject_prefix: prefix, lag_warning: lag as number, snapshot_every: every as number };
  if (n.credentials !== undefined) out.credentials = n.credentials as string;
  return { nats: out };
}

import { ConfigurationError } from '../core/config-error.ts';
import * as cv from '../voluptuous/cv.ts';
import { LEVELS, SEVERITY_REFUSAL, severityOf } from './levels.ts';

/** `logger:` and `system_log:` of configuration.yaml, checked. */
export interface LoggingConfig {
  /** threshold of every logger without its own */
  default: number;
  /** thresholds by logger name (a name covers its dotted children) */
  logs: Record<string, number>;
  /** by exact logger name: records whose message matches one of these are dropped */
  filters: Record<string, RegExp[]>;
  systemLog: { maxEntries: number; fireEvent: boolean };
}

/** The original's system_log defaults. */
export const DEFAULT_MAX_ENTRIES = 50;

/** Without a `logger:` section: INFO, as the original starts its logging. */
export const DEFAULT_LOGGING: LoggingConfig = {
  default: LEVELS.info,
  logs: {},
  filters: {},
  systemLog: { maxEntries: DEFAULT_MAX_ENTRIES, fireEvent: false },
};

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
};

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the `logger` and `system_log` sections as the original's schemas do: `logger: {default,
 * logs: {name: level}, filters: {name: [regex]}}` (a present section without `default` lets
 * DEBUG through, the original's DEFAULT_LOGSEVERITY), `system_log: {max_entries: positive int,
 * fire_event: boolean}`. Throws a ConfigurationError naming `file`, the key and the value.
 */
export function loggingConfigOf(sections: Record<string, unknown>, file: string): LoggingConfig {
  const logger = sections.logger;
  const systemLog = sections.system_log;
  const where = (section: string, key?: string) => `${file}: ${section}${key === undefined ? '' : `: ${key}`}`;
  const refuse = (section: string, key: string | undefined, reason: string, value: unknown): never => {
    throw new ConfigurationError(`${where(section, key)}: ${reason} (got ${shown(value)})`);
  };
  const mapping = (section: string, key: string | undefined, value: unknown): Record<string, unknown> => {
    if (value === undefined || value === null) return {};
    return isMapping(value) ? value : refuse(section, key, 'expected a dictionary', value);
  };
  const extra = (section: string, value: Record<string, unknown>, allowed: string[]) => {
    const key = Object.keys(value).find((k) => !allowed.includes(k));
    if (key !== undefined) throw new ConfigurationError(`${where(section)}: extra keys not allowed @ data['${key}']`);
  };
  const severity = (key: string, value: unknown): number => severityOf(value) ?? refuse('logger', key, SEVERITY_REFUSAL, value);

  const out: LoggingConfig = { ...DEFAULT_LOGGING, logs: {}, filters: {}, systemLog: { ...DEFAULT_LOGGING.systemLog } };
  if (logger !== undefined) {
    const section = mapping('logger', undefined, logger);
    extra('logger', section, ['default', 'logs', 'filters']);
    out.default = section.default === undefined ? LEVELS.debug : severity('default', section.default);
    for (const [name, level] of Object.entries(mapping('logger', 'logs', section.logs))) out.logs[name] = severity(`logs: ${name}`, level);
    for (const [name, patterns] of Object.entries(mapping('logger', 'filters', section.filters))) {
      if (!Array.isArray(patterns)) refuse('logger', `filters: ${name}`, 'expected a list of regular expressions', patterns);
      out.filters[name] = (patterns as unknown[]).map((p) => {
        if (typeof p !== 'string') return refuse('logger', `filters: ${name}`, 'expected a regular expression (a string)', p);
        try {
          return new RegExp(p);
        } catch (err) {
          return refuse('logger', `filters: ${name}`, `invalid regular expression: ${(err as Error).message}`, p);
        }
      });
    }
  }
  if (systemLog !== undefined) {
    const section = mapping('system_log', undefined, systemLog);
    extra('system_log', section, ['max_entries', 'fire_event']);
    const max = section.max_entries;
    if (max !== undefined) {
      // cv.positive_int (vol.Coerce(int), then at least 0): a number loses its fraction, a string must be digits
      const n = typeof max === 'number' && Number.isFinite(max) ? Math.trunc(max) : typeof max === 'string' && /^\s*\d+\s*$/.test(max) ? Number(max) : NaN;
      if (!Number.isSafeInteger(n) || n < 0) refuse('system_log', 'max_entries', 'expected a positive integer', max);
      out.systemLog.maxEntries = n;
    }
    if (section.fire_event !== undefined) {
      try {
        out.systemLog.fireEvent = cv.convert(cv.boolean, section.fire_event);
      } catch {
        refuse('system_log', 'fire_event', 'invalid boolean value', section.fire_event);
      }
    }
  }
  return out;
}

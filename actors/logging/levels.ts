/** The five levels a Hearth logger writes at, with the original's numbers (Python's logging). */
export const LEVELS = { debug: 10, info: 20, warning: 30, error: 40, critical: 50 } as const;

/** A level a record is written at. */
export type LevelName = keyof typeof LEVELS;

/** The names the original's `logger:` accepts (its LOGSEVERITY), any case, and their numbers. */
const SEVERITY: Record<string, number> = { CRITICAL: 50, FATAL: 50, ERROR: 40, WARNING: 30, WARN: 30, INFO: 20, DEBUG: 10, NOTSET: 0 };

/** The original's refusal of any other name (voluptuous `In`, the names sorted). */
export const SEVERITY_REFUSAL = `value must be one of [${Object.keys(SEVERITY).sort().map((n) => `'${n}'`).join(', ')}]`;

/** A JavaScript pattern that accepts exactly the severity names, in any case. */
export const SEVERITY_PATTERN = `^(${Object.keys(SEVERITY)
  .map((n) => [...n].map((c) => `[${c}${c.toLowerCase()}]`).join(''))
  .join('|')})$`;

/** The number of a severity name (`debug`, `WARN`, `notset`...), or undefined when it is none. */
export function severityOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.toUpperCase();
  return Object.hasOwn(SEVERITY, upper) ? SEVERITY[upper] : undefined;
}

/** The level name a record at this number shows (`WARNING`), as the original's records do. */
export function levelLabel(level: LevelName): string {
  return level.toUpperCase();
}

/** The lowest of the five levels a threshold lets through (NOTSET lets everything through). */
export function levelAtOrAbove(threshold: number): LevelName {
  if (threshold <= LEVELS.debug) return 'debug';
  if (threshold <= LEVELS.info) return 'info';
  if (threshold <= LEVELS.warning) return 'warning';
  if (threshold <= LEVELS.error) return 'error';
  return 'critical';
}

/**
 * The thresholds of every logger, as the original's logging keeps them: a logger without its own
 * level takes the level of its nearest dotted parent that has one (`hearth` for `hearth.auth`),
 * and the default when none has. Setting NOTSET on a logger hands it back to its parent.
 */
export class LogLevels {
  private readonly own = new Map<string, number>();

  constructor(
    private fallback: number,
    levels: Record<string, number> = {},
  ) {
    this.set(levels);
  }

  /** The default threshold (`logger.set_default_level`). */
  setDefault(threshold: number): void {
    this.fallback = threshold;
  }

  /** Sets the thresholds of the named loggers (`logger.set_level`). */
  set(levels: Record<string, number>): void {
    for (const [name, threshold] of Object.entries(levels)) {
      if (threshold === 0) this.own.delete(name);
      else this.own.set(name, threshold);
    }
  }

  /** The threshold a logger of this name applies now. */
  thresholdOf(name: string): number {
    for (let n = name; ; ) {
      const own = this.own.get(n);
      if (own !== undefined) return own;
      const dot = n.lastIndexOf('.');
      if (dot < 0) return this.fallback;
      n = n.slice(0, dot);
    }
  }
}

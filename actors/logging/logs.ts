import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { Clock } from '../clock.ts';
import { LEVELS, LogLevels, levelAtOrAbove, levelLabel, type LevelName } from './levels.ts';
import { SystemLog, type SystemLogEntry } from './system-log.ts';
import { LogFile } from './log-file.ts';
import { describeError, logLine, messageText } from './format.ts';
import { DEFAULT_LOGGING, type LoggingConfig } from './config.ts';

/** A named logger (`hearth.auth`). Each method is bound, so it can be handed on as a `logLine`. */
export interface Logger {
  readonly name: string;
  debug(message: string, err?: unknown): void;
  info(message: string, err?: unknown): void;
  warning(message: string, err?: unknown): void;
  error(message: string, err?: unknown): void;
  critical(message: string, err?: unknown): void;
  /** the line-logging function modules took before there were levels: info */
  logLine(line: string): void;
}

/** How records leave the process, besides the capture. */
export interface LogsOptions {
  clock: Clock;
  config?: LoggingConfig;
  /** receives the text of each record (message, and stack under it); records then skip stdout */
  lines?: (text: string) => void;
  /** stdout as readable lines (`text`, the default) or pino's JSON lines */
  format?: 'text' | 'json';
  /** where stdout lines go (process.stdout) */
  stdout?: (line: string) => void;
  /** the log file, none when absent */
  file?: string;
  /** size at which the file turns over */
  fileMaxBytes?: number;
}

type Pino = pino.Logger<LevelName>;

const HERE = fileURLToPath(import.meta.url);
const SOURCE_ROOT = resolve(dirname(HERE), '../..');

/** A record as pino wrote it. */
interface PinoRecord {
  level: LevelName;
  time: number;
  name: string;
  msg?: string;
  source?: [string, number];
  exception?: string;
}

/**
 * Every logger of one instance: pino underneath (its child loggers skip what their level
 * refuses before any work is done), the thresholds of `logger:`, and the outlets a written
 * record reaches in turn: the filters of its logger, the log file, stdout or the `lines`
 * function, and — warnings and worse — the system log's capture and its listeners.
 */
export class Logs {
  readonly systemLog: SystemLog;
  readonly levels: LogLevels;
  private readonly root: Pino;
  private readonly loggers = new Map<string, { child: Pino; logger: Logger }>();
  private readonly filters: Map<string, RegExp[]>;
  private readonly file?: LogFile;
  private readonly listeners = new Set<(entry: SystemLogEntry) => void>();
  private readonly out: (record: PinoRecord, line: string) => void;

  constructor(options: LogsOptions) {
    const config = options.config ?? DEFAULT_LOGGING;
    this.levels = new LogLevels(config.default, config.logs);
    this.filters = new Map(Object.entries(config.filters));
    this.systemLog = new SystemLog(config.systemLog.maxEntries);
    if (options.file) this.file = new LogFile(options.file, options.fileMaxBytes);
    const stdout = options.stdout ?? ((line: string) => void process.stdout.write(`${line}\n`));
    const lines = options.lines;
    this.out = lines
      ? (r) => lines(messageText(textOf(r)))
      : options.format === 'json'
        ? (_r, line) => stdout(line.trimEnd())
        : (r) => stdout(logLine(textOf(r)));
    const clock = options.clock;
    this.root = pino<LevelName>(
      {
        level: 'debug',
        customLevels: LEVELS,
        useOnlyCustomLevels: true,
        base: undefined,
        timestamp: () => `,"time":${clock.now()}`,
        formatters: { level: (label) => ({ level: label }) },
      },
      { write: (line: string) => this.dispatch(line) },
    );
  }

  /** The logger of this name, made once. */
  get(name: string): Logger {
    let known = this.loggers.get(name);
    if (!known) {
      const child = this.root.child({ name }, { level: levelAtOrAbove(this.levels.thresholdOf(name)) });
      known = { child, logger: loggerOn(name, child) };
      this.loggers.set(name, known);
    }
    return known.logger;
  }

  /**
   * A logger of this name that is not kept: for names a client chooses (`system_log.write`),
   * so no client can make the instance hold one logger per name it sends.
   */
  passing(name: string): Logger {
    return this.loggers.get(name)?.logger ?? loggerOn(name, this.root.child({ name }, { level: levelAtOrAbove(this.levels.thresholdOf(name)) }));
  }

  /** `logger.set_default_level`: a threshold for every logger without its own. */
  setDefaultLevel(threshold: number): void {
    this.levels.setDefault(threshold);
    this.applyLevels();
  }

  /** `logger.set_level`: thresholds of named loggers and their children (NOTSET hands one back to its parent). */
  setLevels(levels: Record<string, number>): void {
    this.levels.set(levels);
    this.applyLevels();
  }

  /** Calls `listener` with each captured warning or error (as `system_log_event` carries it); returns the unsubscribe. */
  onCaptured(listener: (entry: SystemLogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The log file's path, when there is one. */
  get filePath(): string | undefined {
    return this.file?.path;
  }

  /** The log file as it is now, every record written so far in it; undefined without a file. */
  readFile(): string | undefined {
    return this.file?.read();
  }

  /** Writes out and closes the log file; later records still reach stdout or `lines`. */
  close(): void {
    this.file?.close();
  }

  private applyLevels(): void {
    for (const [name, { child }] of this.loggers) child.level = levelAtOrAbove(this.levels.thresholdOf(name));
  }

  private dispatch(line: string): void {
    const r = JSON.parse(line) as PinoRecord;
    const filters = this.filters.get(r.name);
    if (filters && filters.some((f) => f.test(r.msg ?? ''))) return;
    this.file?.write(logLine(textOf(r)));
    this.out(r, line);
    if (LEVELS[r.level] < LEVELS.warning) return;
    const entry = this.systemLog.add({ ...textOf(r), source: r.source ?? ['unknown', 0] });
    for (const listener of this.listeners) listener(entry);
  }
}

function textOf(r: PinoRecord) {
  return { time: r.time, level: levelLabel(r.level), name: r.name, message: r.msg ?? '', exception: r.exception ?? '' };
}

/** The bound methods of one logger over its pino child. */
function loggerOn(name: string, child: Pino): Logger {
  const at = (level: LevelName) => {
    const value = LEVELS[level];
    return (message: string, err?: unknown) => {
      if (child.levelVal > value) return;
      const fields: { source?: [string, number]; exception?: string } = {};
      // only what the capture keeps pays for a stack walk
      if (value >= LEVELS.warning) fields.source = callerSource();
      if (err !== undefined) fields.exception = describeError(err);
      child[level](fields, message);
    };
  };
  const info = at('info');
  return { name, debug: at('debug'), info, warning: at('warning'), error: at('error'), critical: at('critical'), logLine: (line) => info(line) };
}

/**
 * The file and line that called a logger, the path relative to Hearth's source tree (the
 * original's `source`, relative to its package): the first frame outside this file.
 */
function callerSource(): [string, number] {
  const stack = new Error().stack ?? '';
  for (const frame of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()]*?):(\d+):\d+\)?$/.exec(frame.trim());
    if (!m) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (file === HERE) continue;
    const inTree = file.startsWith(SOURCE_ROOT + sep) && !file.includes(`${sep}node_modules${sep}`);
    return [inTree ? relative(SOURCE_ROOT, file) : file, Number(m[2])];
  }
  return ['unknown', 0];
}

import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { openEventLog } from '../store/log.ts';
import { LogSocketError, probeLogSocket, readLogRemote, type LogRequest } from '../store/log-socket.ts';
import { messageOf } from '../store/errors.ts';
import { isoformat } from '../machines/python/isoformat.ts';
import { parseIsoTime } from '../store/time.ts';
import { MAX_SECRET, Redactor } from './redact.ts';
import type { EventLog, EventRecord } from '../store/types.ts';
import { StateFold, type StoredState } from '../actors/explorer/state-at.ts';
import { entitiesOf } from '../actors/explorer/records.ts';

const USAGE = `usage: hearth replay [--data DIR] [options]

Prints the event log of a Hearth data directory, through the running instance's socket
(<data>/hearth.sock) when Hearth runs, or straight from <data>/log when it does not.
Secrets (password hashes, token keys, tokens, webhook ids) are printed as "***".
A record that cannot be printed is named, with the reason, on stderr (json) or in its row (table).

  --data DIR        data directory (default: $HEARTH_DATA or ./data)
  --from X          first record: a sequence number, or an ISO time (2025-01-02T03:04:05Z)
  --to X            last record: a sequence number, or an ISO time (both bounds inclusive)
  --type T          only records of these types (repeat, or comma-separate: state_changed,call_service)
  --entity ID       only records of these entities: their entity/<id> stream, or data.entity_id
  --format F        json (one record per line, as stored) or table
                    (default: table on a terminal, json otherwise)
  --follow          then print new records as they are committed, until Ctrl-C
  --state-at TIME   print every entity's state at TIME instead of records (with --entity: those)
  -h, --help        this text
`;

const SOCKET_FILE = 'hearth.sock';
const LOG_DIR = 'log';
// how often --follow looks for a Hearth that is not (or no longer) running
const POLL_MS = 500;
const LOCK_WAIT_MS = 3000;
const LOCK_RETRY_MS = 100;
const MAX_SOCKET_PATH = 107;

/** A --from/--to bound: sequence numbers filter on seq, times on the record's time. */
type Bound = { seq: number } | { time: number };

interface ReplayOptions {
  dataDir: string;
  from?: Bound;
  to?: Bound;
  types?: Set<string>;
  entities?: Set<string>;
  format: 'json' | 'table';
  follow: boolean;
  stateAt?: number;
}

/** Bad command-line input: reported with a hint, exit status 2. */
class UsageError extends Error {}

/** `hearth replay`: prints the log's records (filtered, secrets redacted), follows it, or folds entity states at a time. */
export async function replayMain(argv: string[]): Promise<void> {
  let options: ReplayOptions | undefined;
  try {
    options = parseOptions(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`hearth replay: ${err.message}\n(hearth replay --help lists the options)\n`);
    process.exitCode = 2;
    return;
  }
  if (options === undefined) {
    process.stdout.write(USAGE);
    return;
  }

  const stop = new AbortController();
  const out = new Output(process.stdout, () => stop.abort());
  const secrets = new Redactor();
  const source = await openSource(options.dataDir);
  try {
    if (options.stateAt !== undefined) {
      await printStatesAt(source, options, options.stateAt, secrets, out);
    } else {
      const print = recordPrinter(options, secrets, out);
      if (options.follow) await follow(source, options, print, stop);
      else {
        for await (const record of source.read(requestOf(options))) {
          await print(record);
          if (stop.signal.aborted) break; // the reader of stdout has gone
        }
      }
    }
    await out.flush();
  } finally {
    await source.close();
  }
}

/** The options, or undefined when --help asks for the usage text. */
function parseOptions(argv: string[]): ReplayOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        data: { type: 'string', short: 'd' },
        from: { type: 'string' },
        to: { type: 'string' },
        type: { type: 'string', multiple: true },
        entity: { type: 'string', multiple: true },
        format: { type: 'string' },
        follow: { type: 'boolean', short: 'f' },
        'state-at': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
  if (values.help) return undefined;

  const format = values.format ?? (process.stdout.isTTY ? 'table' : 'json');
  if (format !== 'json' && format !== 'table') throw new UsageError(`--format must be json or table, got ${JSON.stringify(format)}`);
  const options: ReplayOptions = {
    dataDir: resolve(values.data ?? process.env.HEARTH_DATA ?? './data'),
    format,
    follow: values.follow ?? false,
    types: listOption(values.type),
    entities: listOption(values.entity),
  };
  if (values.from !== undefined) options.from = parseBound('--from', values.from);
  if (values.to !== undefined) options.to = parseBound('--to', values.to);
  if (values['state-at'] !== undefined) {
    const at = values['state-at'];
    options.stateAt = /^\d+$/.test(at.trim()) ? NaN : parseIsoTime(at);
    if (Number.isNaN(options.stateAt)) throw new UsageError(`--state-at needs an ISO time like 2025-01-02T03:04:05Z, got ${JSON.stringify(at)}`);
    const clashing = (['from', 'to', 'type', 'follow'] as const).filter((name) => values[name] !== undefined);
    if (clashing.length > 0) throw new UsageError(`--state-at cannot be combined with ${clashing.map((n) => `--${n}`).join(', ')}`);
  }
  // new records carry the time they are committed, so a time bound would be a guess about the future
  if (options.follow && options.to !== undefined && 'time' in options.to) {
    throw new UsageError('with --follow, --to must be a sequence number');
  }
  return options;
}

function listOption(values: string[] | undefined): Set<string> | undefined {
  if (values === undefined) return undefined;
  const items = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  return items.length === 0 ? undefined : new Set(items);
}

function parseBound(name: string, text: string): Bound {
  if (/^\d+$/.test(text.trim())) return { seq: Number(text) };
  const time = parseIsoTime(text);
  if (Number.isNaN(time)) throw new UsageError(`${name} needs a sequence number or an ISO time, got ${JSON.stringify(text)}`);
  return { time };
}

/** What to ask the source for: the seq bounds; the other filters are applied here. */
function requestOf(options: ReplayOptions): LogRequest {
  const request: LogRequest = {};
  if (options.from && 'seq' in options.from) request.gt = options.from.seq - 1;
  if (options.to && 'seq' in options.to) request.lte = options.to.seq;
  return request;
}

// ---------------------------------------------------------------------------------------------
// Where the records come from

/** The records of one data directory, through Hearth's socket or the LevelDB log itself. */
interface Source {
  via: 'socket' | 'log';
  /** a socket source follows with request.follow; a log source ignores it (nobody else writes) */
  read(request: LogRequest, signal?: AbortSignal): AsyncIterable<EventRecord>;
  close(): Promise<void>;
}

async function openSource(dataDir: string): Promise<Source> {
  const socketPath = join(dataDir, SOCKET_FILE);
  const logPath = join(dataDir, LOG_DIR);
  if (await probeLogSocket(socketPath)) return socketSource(socketPath);
  if (!(await exists(join(logPath, 'CURRENT')))) {
    // openEventLog would create an empty log here; a typo in --data must not do that
    throw new Error(
      (await exists(dataDir))
        ? `no event log in ${dataDir} (${logPath} is not a LevelDB directory), and no Hearth answers at ${socketPath}`
        : `no data directory at ${dataDir}; give --data DIR or set HEARTH_DATA`,
    );
  }
  let log: EventLog | undefined;
  // The lock may be held only for a moment: by another replay reading the log, or by a Hearth
  // that is starting and has not opened its socket yet. Both are worth a short wait.
  for (const started = Date.now(); ; ) {
    try {
      log = await openEventLog({ path: logPath });
      break;
    } catch (err) {
      const cause = messageOf(err);
      if (!/lock/i.test(cause)) throw new Error(cause);
      if (Date.now() - started > LOCK_WAIT_MS) {
        const tooLong = Buffer.byteLength(socketPath) > MAX_SOCKET_PATH ? ' (a path too long for a Unix socket: Hearth cannot serve it there)' : '';
        throw new Error(`the event log of ${dataDir} is locked by another process (a running Hearth?) and nothing answers at ${socketPath}${tooLong}`);
      }
    }
    await sleep(LOCK_RETRY_MS);
    if (await probeLogSocket(socketPath)) return socketSource(socketPath);
  }
  const opened = log;
  return {
    via: 'log',
    // only read() is ever called: replay never appends
    read: (request) => opened.read({ gt: request.gt, lte: request.lte }),
    close: () => opened.close(),
  };
}

function socketSource(socketPath: string): Source {
  return {
    via: 'socket',
    read: (request, signal) => readLogRemote(socketPath, request, { signal }),
    close: async () => {},
  };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Prints what is there, then new records as they commit. The LevelDB log is released as soon as
 * it has been read (Hearth could not start while replay holds its lock); then replay waits for
 * Hearth's socket and resumes after the last record it saw, also across a restart of Hearth.
 */
async function follow(first: Source, options: ReplayOptions, print: (r: EventRecord) => Promise<void>, stop: AbortController): Promise<void> {
  const socketPath = join(options.dataDir, SOCKET_FILE);
  const request = requestOf(options);
  const { signal } = stop;
  let last = request.gt ?? 0;
  const finished = () => signal.aborted || (request.lte !== undefined && last >= request.lte);
  // Ctrl-C ends the tail normally: the output is flushed and the exit status is 0
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let source: Source | undefined = first;
  let waiting = false;
  try {
    while (!finished()) {
      if (source === undefined) {
        if (await probeLogSocket(socketPath)) {
          source = socketSource(socketPath);
          waiting = false;
        } else {
          if (!waiting) process.stderr.write(`hearth replay: Hearth is not running in ${options.dataDir}; waiting for it (Ctrl-C to stop)\n`);
          waiting = true;
          await sleep(POLL_MS, undefined, { signal }).catch(() => {});
          continue;
        }
      }
      try {
        for await (const record of source.read({ ...request, gt: last, follow: true }, signal)) {
          last = record.seq;
          await print(record);
          if (signal.aborted) break;
        }
        // the log read to its end, or the socket reached --to (or was interrupted)
        if (source.via === 'log') {
          await source.close();
          source = undefined;
        } else break;
      } catch (err) {
        if (!(err instanceof LogSocketError) || (err.code !== 'HEARTH_LOG_SOCKET_CLOSED' && err.code !== 'HEARTH_LOG_SOCKET_UNAVAILABLE')) throw err;
        process.stderr.write(`hearth replay: Hearth stopped; waiting for it to start again (Ctrl-C to stop)\n`);
        waiting = true;
        source = undefined;
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// ---------------------------------------------------------------------------------------------
// Filtering and printing records

function recordFilter(options: ReplayOptions): (r: EventRecord) => boolean {
  const { from, to, types, entities } = options;
  return (r) => {
    if (from && 'time' in from && r.time < from.time) return false;
    if (to && 'time' in to && r.time > to.time) return false;
    if (from && 'seq' in from && r.seq < from.seq) return false;
    if (to && 'seq' in to && r.seq > to.seq) return false;
    if (types && !types.has(r.type)) return false;
    if (entities && !entitiesOf(r).some((id) => entities.has(id))) return false;
    return true;
  };
}

function recordPrinter(options: ReplayOptions, secrets: Redactor, out: Output): (r: EventRecord) => Promise<void> {
  const keep = recordFilter(options);
  let headed = false;
  return async (record) => {
    // secrets are learnt from every record, printed or not, so a token stored in one record is
    // also hidden where another record quotes it (an entity_picture URL, a webhook stream name)
    const secretKeys = secrets.learn(record);
    if (!keep(record)) return;
    if (options.format === 'table' && !headed) {
      headed = true;
      await out.line(tableRow('seq', 'time', 'type', 'stream', 'summary'));
    }
    let line: string;
    try {
      line = options.format === 'json' ? secrets.scrub(secrets.json(record, secretKeys) ?? '') : tableLine(record, secrets);
    } catch (err) {
      // one record that cannot be written must not end the replay of all the others
      const reason = `record ${record.seq} (${shortText(record.type)}) cannot be printed: ${messageOf(err)}`;
      if (options.format === 'json') {
        process.stderr.write(`hearth replay: ${secrets.scrub(reason)}\n`);
        return;
      }
      line = secrets.scrub(tableRow(String(record.seq), '', shortText(record.type), shortText(record.stream), `(${reason})`));
    }
    await out.line(line);
  };
}

function tableLine(record: EventRecord, secrets: Redactor): string {
  const prefix = tableRow(String(record.seq), isoformat(record.time), record.type, record.stream, '');
  const width = summaryWidth(prefix.length);
  // The summary is cut to the width, so only its start is written out; with room for a whole
  // remembered secret past the cut, so it is scrubbed whole rather than shown in part.
  const summary = secrets.scrub(summaryOf(record, secrets, 2 * width + 2 + MAX_SECRET));
  return secrets.scrub(prefix) + truncate(summary, width);
}

function tableRow(seq: string, time: string, type: string, stream: string, summary: string): string {
  return `${seq.padStart(7)}  ${time.padEnd(32)}  ${type.padEnd(22)}  ${stream.padEnd(28)}  ${summary}`;
}

/** The room left for the summary: the terminal's width, or 120 characters when not on a terminal. */
function summaryWidth(prefix: number): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return columns ? Math.max(20, columns - prefix) : 120;
}

/** The summary of a record, secrets hidden; `limit` bounds how much of it is written. */
function summaryOf(r: EventRecord, secrets: Redactor, limit: number): string {
  if (r.type === 'state_changed' && r.data !== null && typeof r.data === 'object') {
    const { old_state, new_state } = r.data as { old_state?: { state?: unknown } | null; new_state?: { state?: unknown } | null };
    return `${old_state ? stateText(old_state.state, secrets, limit) : '(none)'} → ${new_state ? stateText(new_state.state, secrets, limit) : '(removed)'}`;
  }
  return secrets.format(r.data, limit).text ?? '';
}

/** A state as text: states are strings, but a record is printed whatever it holds. */
function stateText(state: unknown, secrets: Redactor, limit: number): string {
  if (state !== null && typeof state === 'object') return secrets.format(state, limit).text ?? '';
  const text = String(state);
  return text.length > limit ? text.slice(0, limit) : text;
}

/** A name for a message: what a record says its type or stream is, cut short. */
function shortText(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function truncate(text: string, width: number): string {
  // a code point is one or two UTF-16 units, so only the first 2 * width units can matter
  if (text.length <= width) return text;
  const chars = Array.from(text.length > 2 * width + 2 ? text.slice(0, 2 * width + 2) : text);
  return chars.length <= width ? text : chars.slice(0, width - 1).join('') + '…';
}

// ---------------------------------------------------------------------------------------------
// --state-at

async function printStatesAt(source: Source, options: ReplayOptions, at: number, secrets: Redactor, out: Output): Promise<void> {
  const fold = new StateFold(at);
  for await (const r of source.read({})) {
    secrets.learn(r);
    fold.add(r);
  }
  const selected = fold.states().filter((s) => options.entities === undefined || options.entities.has(s.entity_id));
  const cannot = (s: StoredState, err: unknown) => `state of ${shortText(s.entity_id)} cannot be printed: ${messageOf(err)}`;
  if (options.format === 'json') {
    for (const s of selected) {
      let line: string;
      try {
        line = secrets.scrub(secrets.json(s, secrets.learn(s)) ?? '');
      } catch (err) {
        process.stderr.write(`hearth replay: ${secrets.scrub(cannot(s, err))}\n`);
        continue;
      }
      await out.line(line);
    }
    return;
  }
  // states are strings of at most 255 characters; anything else a record holds is cut short
  const stateTexts = new Map<StoredState, string>();
  for (const s of selected) {
    let text: string;
    try {
      text = typeof s.state === 'string' ? s.state : shortText(stateText(s.state, secrets, 200));
    } catch (err) {
      text = `(${messageOf(err)})`;
    }
    stateTexts.set(s, text);
  }
  // loops, not Math.max(...list): spreading 200,000 states as arguments overflows the stack
  let idWidth = 9;
  let stateWidth = 5;
  for (const s of selected) {
    idWidth = Math.max(idWidth, String(s.entity_id).length);
    stateWidth = Math.max(stateWidth, stateTexts.get(s)!.length);
  }
  await out.line(`${'entity_id'.padEnd(idWidth)}  ${'state'.padEnd(stateWidth)}  last_changed`);
  for (const s of selected) {
    let line: string;
    try {
      const changed = typeof s.last_changed === 'number' ? isoformat(s.last_changed) : shortText(s.last_changed);
      line = `${String(s.entity_id).padEnd(idWidth)}  ${stateTexts.get(s)!.padEnd(stateWidth)}  ${changed}`;
    } catch (err) {
      line = `(${cannot(s, err)})`;
    }
    await out.line(secrets.scrub(line));
  }
}

// ---------------------------------------------------------------------------------------------
// Output

/** Buffered stdout that waits when the pipe is full and stops quietly when the reader has gone. */
class Output {
  #buffer = '';
  #scheduled: NodeJS.Immediate | undefined;
  #drained: Promise<void> | undefined;
  #broken = false;
  readonly #stream: NodeJS.WriteStream;

  constructor(stream: NodeJS.WriteStream, onBroken: () => void) {
    this.#stream = stream;
    stream.on('error', (err: NodeJS.ErrnoException) => {
      // `hearth replay | head`: the reader left, which is not an error of replay
      if (err.code !== 'EPIPE') throw err;
      this.#broken = true;
      onBroken();
    });
  }

  async line(text: string): Promise<void> {
    if (this.#broken) return;
    this.#buffer += text + '\n';
    if (this.#buffer.length >= 64 * 1024) return this.flush();
    // a live record is shown at once; records read in a burst still go out in one write
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = undefined;
      this.#write();
    });
    if (this.#drained) await this.#drained;
  }

  async flush(): Promise<void> {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    this.#write();
    if (this.#drained) await this.#drained;
  }

  #write(): void {
    if (this.#buffer === '' || this.#broken) return;
    const text = this.#buffer;
    this.#buffer = '';
    if (this.#stream.write(text) || this.#drained) return;
    this.#drained = new Promise<void>((resolve) => {
      const done = () => {
        this.#stream.off('drain', done);
        this.#stream.off('error', done);
        this.#drained = undefined;
        resolve();
      };
      this.#stream.on('drain', done);
      this.#stream.on('error', done);
    });
  }
}

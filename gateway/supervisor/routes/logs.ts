import type { HttpStream } from '../../replies.ts';
import { raw, type SupervisorApi, type SupervisorCall } from '../api.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { ContainerLogSource } from '../../../actors/supervisor/logs/container.ts';
import { FileLogSource } from '../../../actors/supervisor/logs/file.ts';
import { currentBoot } from '../../../actors/supervisor/logs/boot.ts';
import { plainLine, stripColors, verboseLine } from '../../../actors/supervisor/logs/format.ts';
import { UNBOUNDED, type LogEntry, type LogRange, type LogSource } from '../../../actors/supervisor/logs/types.ts';
import type { Engine } from '../../../actors/supervisor/docker/engine.ts';

/**
 * The log endpoints of one prefix P (§4.1): `P/logs`, `P/logs/follow`, `P/logs/latest`,
 * `P/logs/boots/{bootid}`, `P/logs/boots/{bootid}/follow`, with the original's controls (`lines`,
 * `verbose`, `no_colors`, `Accept`, `Range`) over a LogSource. Answers are streamed text; errors
 * are text with the bare message.
 */

export interface LogRouteSpec {
  /** the verbose formatter by default (the plugins'); the core and the supervisor are plain */
  verbose?: boolean;
  /** more v1 prefixes with the same routes (`/homeassistant` for `/core`) */
  v1Prefixes?: string[];
  /** the prefix on `/v2` when it differs */
  v2Prefix?: string;
}

const plain = (status: number, message: string) => new SupervisorError(message, { status, plain: true });

const DEFAULT_LINES = 100;
const ACCEPT_ERROR = 'Invalid content type requested. Only text/plain and text/x-log supported for now.';
/** The original's Range check (an empty count is completed as unbounded). */
const RANGE = /^entries=([^:]*)(?:(?::(-?\d+))?:(\d*))?$/;

/** `?lines=N`: an integer, else 100; at least 2 (the journal's own quirk). */
export function linesOf(value: string | null): number {
  if (value === null) return DEFAULT_LINES;
  const n = /^\s*[-+]?\d+\s*$/.test(value) ? Number.parseInt(value, 10) : DEFAULT_LINES;
  return Math.max(n, 2);
}

/** A client's `Range: entries=<cursor>[[:<num_skip>]:<num_entries>]`, or a text 400. */
export function rangeOf(header: string): LogRange {
  const m = RANGE.exec(header.trim());
  if (!m) throw plain(400, `Invalid Range header: ${header}`);
  const count = m[3] === undefined || m[3] === '' ? UNBOUNDED : Number(m[3]);
  return { cursor: m[1], skip: m[2] === undefined ? 0 : Number(m[2]), count: Number.isSafeInteger(count) ? count : UNBOUNDED };
}

/** Whether the `Accept` header asks for the verbose format; a text 400 for any other type. */
function acceptsVerbose(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false;
  let verbose = false;
  for (const part of accept.split(',')) {
    const type = part.split(';')[0].trim().toLowerCase();
    if (type === 'text/x-log') verbose = true;
    else if (type !== '*/*' && type !== 'text/plain' && type !== '') throw plain(400, ACCEPT_ERROR);
  }
  return verbose;
}

/** Log routes answer every failure as text, the unexpected ones too. */
function asText(err: unknown): never {
  if (err instanceof SupervisorError) throw err.plain ? err : plain(err.status, err.message);
  throw plain(500, `Cannot read the logs: ${(err as Error)?.message ?? String(err)}`);
}

type Variant = 'logs' | 'follow' | 'latest' | 'boot' | 'boot-follow';

/** Registers the five log routes of `prefix` over `source` (or the source a call names, e.g. by its `:app`). */
export function registerLogRoutes(api: SupervisorApi, prefix: string, source: LogSource | ((call: SupervisorCall) => LogSource), spec: LogRouteSpec = {}): void {
  const paths: [string, Variant][] = [
    ['/logs', 'logs'],
    ['/logs/follow', 'follow'],
    ['/logs/latest', 'latest'],
    ['/logs/boots/:bootid', 'boot'],
    ['/logs/boots/:bootid/follow', 'boot-follow'],
  ];
  for (const [path, variant] of paths) {
    const sourceOf = (call: SupervisorCall) => (typeof source === 'function' ? source(call) : source);
    api.get(`${prefix}${path}`, (call) => Promise.resolve().then(() => answer(call, sourceOf(call), variant, spec.verbose ?? false)).catch(asText), {
      v1Aliases: (spec.v1Prefixes ?? []).map((p) => `${p}${path}`),
      ...(spec.v2Prefix ? { v2Path: `${spec.v2Prefix}${path}` } : {}),
    });
  }
}

async function answer(call: SupervisorCall, source: LogSource, variant: Variant, verboseByDefault: boolean) {
  const { req, query } = call;
  let verbose = acceptsVerbose(req.headers.accept) || verboseByDefault;
  if (query.has('verbose')) verbose = true;
  const follow = variant === 'follow' || variant === 'boot-follow';
  let noColors = query.has('no_colors');

  // the range: `lines` over any Range header, else the header, else the last 100
  let range: LogRange;
  if (query.has('lines')) {
    const n = linesOf(query.get('lines'));
    range = { cursor: '', skip: -(n - 1), count: follow ? UNBOUNDED : n };
  } else if (req.headers.range !== undefined) range = rangeOf(req.headers.range);
  else range = { cursor: '', skip: -(DEFAULT_LINES - 1), count: follow ? UNBOUNDED : DEFAULT_LINES };

  let since: number | undefined;
  if (variant === 'latest') {
    since = await source.lastStart();
    range = { cursor: '', skip: 0, count: UNBOUNDED };
    noColors = true;
  } else if (variant === 'boot' || variant === 'boot-follow') {
    since = await bootStart(call.params.bootid);
  }

  const asked = Date.now() * 1000;
  const first = await source.read(range, since);
  // a follow also waits for what comes after the range, up to its count
  const left = range.count === UNBOUNDED ? UNBOUNDED : range.count - first.length;
  const format = (e: LogEntry) => {
    const line = verbose ? verboseLine(e) : plainLine(e);
    return `${noColors ? stripColors(line) : line}\n`;
  };
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Accel-Buffering': 'no' };
  if (first.length) headers['X-First-Cursor'] = first[0].cursor;
  // following from here: after the last line sent, else after the range's cursor, else from
  // the boot or the time of asking (the log had nothing in the range then)
  const from = first.length ? { after: first[first.length - 1].cursor } : range.cursor ? { after: range.cursor } : { since: since ?? asked };
  let stop: (() => void) | undefined;
  let ended = false;
  const stream: HttpStream = {
    status: 200,
    headers,
    open(sink) {
      if (first.length && !sink.write(first.map(format).join(''))) return () => {};
      if (!follow || left <= 0) {
        sink.end();
        return () => {};
      }
      let remaining = left;
      source
        .follow(
          from,
          (e) => {
            if (ended) return;
            if (!sink.write(format(e)) || --remaining <= 0) finish();
          },
          () => finish(),
        )
        .then(
          (s) => {
            if (ended) s();
            else stop = s;
          },
          () => finish(),
        );
      function finish() {
        if (ended) return;
        ended = true;
        stop?.();
        sink.end();
      }
      return () => {
        ended = true;
        stop?.();
      };
    },
  };
  return raw(stream);
}

/** The start of a boot the path names: 0 or the current boot's id; the logs hold no other boot. */
async function bootStart(bootid: string): Promise<number> {
  const boot = await currentBoot();
  if (/^[-+]?\d+$/.test(bootid)) {
    if (Number(bootid) !== 0) throw plain(400, `Logs only contain the current boot: boot offset ${bootid} is out of range`);
    return boot.startedAt;
  }
  if (bootid.replace(/-/g, '').toLowerCase() === boot.id) return boot.startedAt;
  throw plain(400, `Boot ${bootid} is not in the logs: they only contain the current boot ${boot.id}`);
}

/** What the core's and the supervisor's log routes read. */
export interface CoreAndSupervisorLogDeps {
  engine: Engine;
  /** the core's container */
  coreContainer: string;
  /** the supervisor's own log file */
  logFile: string;
}

/** The core's logs (its container on the engine) and the supervisor's own (its log file). */
export function registerCoreAndSupervisorLogs(api: SupervisorApi, deps: CoreAndSupervisorLogDeps): void {
  const core = new ContainerLogSource({
    docker: deps.engine.docker,
    name: deps.coreContainer,
    missing: () => plain(400, `Core is not installed: there is no container ${deps.coreContainer}`),
  });
  registerLogRoutes(api, '/core', core, { v1Prefixes: ['/homeassistant'] });
  const own = new FileLogSource({ path: deps.logFile, identifier: 'hearth_supervisor', pid: process.pid });
  registerLogRoutes(api, '/supervisor', own);
}

import { raw, type SupervisorApi, type SupervisorCall } from '../api.ts';
import type { HttpStream } from '../../replies.ts';
import { linesOf } from './logs.ts';
import { plainLine, stripColors, verboseLine } from '../../../actors/supervisor/logs/format.ts';
import { DEFAULT_IDENTIFIERS, ExportParser, JOURNAL_GATEWAYD_SOCKET, JournalError, JournalGateway, LINES_MAX, type JournalEntry } from '../../../actors/supervisor/host/journal.ts';
import type { Context } from '../../../store/types.ts';
import type { Clock } from '../../../actors/clock.ts';
import type { Logs } from '../../../actors/logging/logs.ts';
import type { Mounts } from '../../../actors/supervisor/mounts/mounts.ts';
import { boolean, schema, str, validate } from '../../../actors/supervisor/validate.ts';
import { SupervisorError, keyedError } from '../../../actors/supervisor/errors.ts';
import type { HostSystem } from '../../../actors/supervisor/host/system.ts';
import { hostInfo } from '../../../actors/supervisor/host/info.ts';
import { hostFeatures } from '../../../actors/supervisor/host/features.ts';
import { HostControl } from '../../../actors/supervisor/host/control.ts';
import { maxDepthOf, mountDiskUsage, systemDiskUsage } from '../../../actors/supervisor/host/disk-usage.ts';
import { offlineMigrationRunning } from '../../../actors/supervisor/core/migration.ts';
import type { CoreRuntime } from '../../../actors/supervisor/core/runtime.ts';
import type { AppManager } from '../../../actors/supervisor/apps/manager.ts';

/**
 * The host's routes (§4.11, supervisor-wire §4.17): its facts, its services, its disk usage,
 * its hostname and power, and its journal (which a host without systemd-journal-gatewayd does
 * not have: the original's text 400).
 */

const POWER = schema({ force: boolean });
const OPTIONS = schema({ hostname: str });
const NO_GATEWAY = 'No systemd-journal-gatewayd Unix socket available';

/** The features the supervisor reports: the host's services, and whether mounts are supported. */
export async function currentFeatures(host: HostSystem, mounts: Mounts): Promise<string[]> {
  const services = await host.services();
  return hostFeatures(services, await mounts.supported());
}

/** What the host's routes use. */
export interface HostRouteDeps {
  /** the machine's own tools and services (a test hands a stand-in) */
  host: HostSystem;
  /** the features, and the disk usage of a mount */
  mounts: Mounts;
  /** stopped before the host powers off, as is the core */
  apps: AppManager;
  core: CoreRuntime;
  /** the supervisor's data directory and the core's: the system disk's usage */
  dataDir: string;
  coreDataDir: string;
  clock: Clock;
  logs: Logs;
  context(): Context;
}

function control(deps: HostRouteDeps): HostControl {
  const { host, core, apps } = deps;
  const logger = deps.logs.get('hearth.supervisor.host');
  return new HostControl({
    host,
    services: () => host.services(),
    migrationRunning: async () => offlineMigrationRunning({ url: await core.coreUrl(), refreshToken: core.section.get().refresh_token, warn: logger.warning }),
    stopManaged: async () => {
      const ctx = deps.context();
      for (const app of apps.list()) {
        if (app.state === 'started') await apps.stop(app.slug, ctx).catch((err) => logger.warning(`cannot stop ${app.slug}: ${(err as Error).message}`));
      }
      await core.stop(ctx, { force: true }).catch((err) => logger.warning(`cannot stop the core: ${(err as Error).message}`));
    },
    logger,
  });
}

/** Registers the host's routes and its journal's. */
export function registerHostRoutes(api: SupervisorApi, deps: HostRouteDeps): void {
  const { host } = deps;
  api.get('/host/info', async () =>
    hostInfo({ host, dataDir: deps.dataDir, now: () => deps.clock.now(), features: await currentFeatures(host, deps.mounts), services: await host.services() }),
  );

  api.get('/host/services', async () => ({ services: await control(deps).services() }));

  api.post('/host/options', async (call) => {
    const body = validate(call.body(), OPTIONS);
    if (body.hostname !== undefined) await control(deps).setHostname(body.hostname);
  });

  for (const action of ['reboot', 'shutdown'] as const) {
    api.post(`/host/${action}`, async (call) => {
      const body = validate(call.body(), POWER);
      await control(deps).power(action, body.force ?? false);
    });
  }

  // the facts are read on each request: nothing is cached that a reload would refresh
  api.post('/host/reload', async () => {
    await host.services();
  });

  api.get('/host/disks/:disk/usage', async (call) => diskUsage(call, deps));

  registerHostLogRoutes(api, host);
}

async function diskUsage(call: SupervisorCall, deps: HostRouteDeps) {
  const disk = call.params.disk;
  // `default` is the system disk even when a mount has that name
  if (disk === 'default') {
    return systemDiskUsage({ dataDir: deps.dataDir, coreDataDir: deps.coreDataDir, maxDepth: maxDepthOf(call.query.get('max_depth')), v1: call.tree === 'v1' });
  }
  const mount = (await deps.mounts.list()).find((m) => m.name === disk);
  if (!mount) throw keyedError(404, 'mount_not_found_error', 'No mount exists with name {name}', { name: disk });
  const maxDepth = maxDepthOf(call.query.get('max_depth'), 0);
  return mountDiskUsage({ name: disk, path: deps.mounts.mountPoint(disk), active: mount.state === 'active', maxDepth });
}

/** The journal's routes (supervisor-wire §9): systemd-journal-gatewayd's entries, boots and identifiers. */
function registerHostLogRoutes(api: SupervisorApi, host: HostSystem): void {
  const gateway = async (): Promise<JournalGateway> => {
    if (!(await host.services()).journalGatewayd) throw new SupervisorError(NO_GATEWAY);
    return new JournalGateway(host.journalSocket ?? JOURNAL_GATEWAYD_SOCKET);
  };
  const asText = (err: unknown): never => {
    if (err instanceof SupervisorError) throw err.plain ? err : new SupervisorError(err.message, { status: err.status, plain: true });
    if (err instanceof JournalError) throw new SupervisorError(err.message, { plain: true });
    throw err;
  };
  for (const base of ['/host/logs', '/host/logs/identifiers/:identifier', '/host/logs/boots/:bootid', '/host/logs/boots/:bootid/identifiers/:identifier']) {
    api.get(base, (call) => gateway().then((g) => journalAnswer(call, g, false)).catch(asText));
    api.get(`${base}/follow`, (call) => gateway().then((g) => journalAnswer(call, g, true)).catch(asText));
  }
  const keyed = (err: unknown): never => {
    if (err instanceof JournalError) throw new SupervisorError(err.message);
    throw err;
  };
  api.get('/host/logs/boots', async () => {
    const ids = await (await gateway()).boots().catch(keyed);
    return { boots: Object.fromEntries(ids.map((id, i) => [String(1 + i - ids.length), id])) };
  });
  api.get('/host/logs/identifiers', async () => ({ identifiers: await (await gateway()).identifiers().catch(keyed) }));
}

const ACCEPT_ERROR = 'Invalid content type requested. Only text/plain and text/x-log supported for now.';

/** One journal request as the original makes it, its entries streamed back as text lines. */
async function journalAnswer(call: SupervisorCall, gateway: JournalGateway, follow: boolean) {
  const matches: [string, string][] = [];
  // host logs are verbose whatever is asked; one identifier's are plain
  let verbose = false;
  if (call.params.identifier !== undefined) matches.push(['SYSLOG_IDENTIFIER', call.params.identifier]);
  else {
    for (const id of DEFAULT_IDENTIFIERS) matches.push(['SYSLOG_IDENTIFIER', id]);
    verbose = true;
  }
  if (call.params.bootid !== undefined) {
    const b = call.params.bootid;
    matches.push(['_BOOT_ID', /^[-+]?\d+$/.test(b) ? await gateway.bootAt(Number(b)) : b]);
  }
  const accept = call.req.headers.accept;
  if (accept && !['text/plain', 'text/x-log', '*/*'].includes(accept)) throw new SupervisorError(ACCEPT_ERROR, { plain: true });
  if (call.query.has('verbose') || accept === 'text/x-log') verbose = true;
  const noColors = call.query.has('no_colors');
  let range: string;
  if (call.query.has('lines')) {
    const n = linesOf(call.query.get('lines'));
    range = `entries=:-${n - 1}:${follow ? LINES_MAX : n}`;
  } else if (call.req.headers.range !== undefined) {
    const given = call.req.headers.range.trim();
    if (!/^entries=[^:]*(?::-?\d+)?:\d*$/.test(given)) throw new SupervisorError(`Invalid Range header: ${given}`, { plain: true });
    range = given.endsWith(':') ? `${given}${LINES_MAX}` : given;
  } else range = `entries=:-99:${follow ? LINES_MAX : 100}`;

  const res = await gateway.entries(matches, range, follow);
  if (res.statusCode !== 200) {
    res.resume();
    throw new SupervisorError(`systemd-journal-gatewayd answered ${res.statusCode}`, { plain: true });
  }
  const parser = new ExportParser();
  const line = (e: JournalEntry) => {
    const f = e.fields;
    const entry = { cursor: e.cursor, realtime: Number(f.__REALTIME_TIMESTAMP ?? 0), hostname: f._HOSTNAME ?? '', identifier: f.SYSLOG_IDENTIFIER ?? '_UNKNOWN_', pid: f._PID ? Number(f._PID) : undefined, message: noColors ? stripColors(f.MESSAGE ?? '') : (f.MESSAGE ?? '') };
    return `${verbose ? verboseLine(entry) : plainLine(entry)}\n`;
  };
  // the headers carry the first entry's cursor: wait for it (or for the end) before answering
  const pending: JournalEntry[] = [];
  let ended = false;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      pending.push(...parser.push(chunk));
      if (pending.length) done();
    };
    const onEnd = () => {
      pending.push(...parser.end());
      ended = true;
      done();
    };
    const onError = () => {
      cleanup();
      reject(new SupervisorError('Connection reset when trying to fetch data from systemd-journald.', { plain: true }));
    };
    const cleanup = () => {
      res.off('data', onData);
      res.off('end', onEnd);
      res.off('error', onError);
    };
    const done = () => {
      cleanup();
      res.pause();
      resolve();
    };
    res.on('data', onData);
    res.on('end', onEnd);
    res.on('error', onError);
  });
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Accel-Buffering': 'no' };
  if (pending.length && pending[0].cursor) headers['X-First-Cursor'] = pending[0].cursor;
  const stream: HttpStream = {
    status: 200,
    headers,
    open(sink) {
      if (pending.length && !sink.write(pending.map(line).join(''))) {
        res.destroy();
        return () => {};
      }
      if (ended) {
        sink.end();
        return () => {};
      }
      // a gateway that stops mid-stream simply ends the answer
      res.on('data', (chunk: Buffer) => {
        const entries = parser.push(chunk);
        if (entries.length && !sink.write(entries.map(line).join(''))) res.destroy();
      });
      res.on('end', () => {
        const left = parser.end();
        if (left.length) sink.write(left.map(line).join(''));
        sink.end();
      });
      res.on('error', () => sink.end());
      res.resume();
      return () => res.destroy();
    },
  };
  return raw(stream);
}

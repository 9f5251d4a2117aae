import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Ids } from '../../clock.ts';
import type { Logs } from '../../logging/logs.ts';
import type { Context, EventLog } from '../../../store/types.ts';
import type { Settings } from '../settings.ts';
import type { Tokens } from '../tokens.ts';
import type { Role } from '../access.ts';
import type { Engine } from '../docker/engine.ts';
import type { Jobs } from '../jobs/types.ts';
import type { Resolution } from '../resolution/types.ts';
import type { UpdaterView } from '../updater/types.ts';
import { DnsPlugin } from './dns.ts';
import { Plugin, type PluginOptions, type PluginVersionInfo } from './plugin.ts';
import { DEFAULT_PLUGIN_NETWORK, ensurePluginNetwork, networkOf, type PluginNetwork, type PluginNetworkOptions } from './network.ts';
import { OBSERVER_PORT, PLUGIN_NAMES, type PluginName } from './specs.ts';

/**
 * The five plugins of one supervisor (supervisor-wire §4.7), their network, and what the rest
 * of the supervisor asks of them: the resolver apps are given, the observer's status page.
 */

/** What the observer's page shows. */
export interface ObserverStatus {
  supervisor: string;
  version: string;
  supported: boolean;
  healthy: boolean;
}

export interface PluginsOptions {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logs: Logs;
  settings: Settings;
  engine: Engine;
  dataDir: string;
  /** container names are this plus the plugin's name (default `hassio_`) */
  containerPrefix?: string;
  network?: PluginNetworkOptions;
  /** the observer's port on the host (default 4357) */
  observerPort?: number;
  jobs(): Jobs | undefined;
  updater(): UpdaterView | undefined;
  resolution(): Resolution | undefined;
  timezone(): string;
  status(): ObserverStatus;
  tokens: Tokens;
  /** the supervisor's URL as the plugins reach it (env SUPERVISOR) */
  supervisorUrl(): string;
}

/** The audio plugin's info on a host without a sound server: the topology lists are empty (§11.2). */
export interface AudioInfo extends PluginVersionInfo {
  host: string | null;
  audio: { card: unknown[]; input: unknown[]; output: unknown[]; application: unknown[] };
}

const STATUS_PAGE_EVERY_MS = 30_000;

export class Plugins {
  readonly dns: DnsPlugin;
  readonly audio: Plugin;
  readonly cli: Plugin;
  readonly observer: Plugin;
  readonly multicast: Plugin;
  private networkPending?: Promise<PluginNetwork>;
  private readonly planned: PluginNetwork;
  private statusTimer?: NodeJS.Timeout;

  constructor(private readonly options: PluginsOptions) {
    const net = options.network ?? DEFAULT_PLUGIN_NETWORK;
    this.planned = networkOf(net.name, net.subnet);
    const prefix = options.containerPrefix ?? 'hassio_';
    const base = (name: PluginName): PluginOptions => ({
      name,
      log: options.log,
      clock: options.clock,
      ids: options.ids,
      logger: options.logs.get(`hearth.supervisor.plugins.${name}`),
      settings: options.settings,
      engine: options.engine,
      containerName: `${prefix}${name}`,
      planned: this.planned,
      network: () => this.network(),
      jobs: options.jobs,
      updater: options.updater,
      resolution: options.resolution,
      timezone: options.timezone,
    });
    this.dns = new DnsPlugin({ ...base('dns'), dataDir: options.dataDir, pluginAddresses: () => this.addresses() });
    this.audio = new Plugin(base('audio'));
    // the cli acts for the host (full access); the observer only reads (the info paths)
    this.cli = new Plugin({ ...base('cli'), environment: (ctx) => this.apiEnvironment('cli', 'admin', ctx) });
    this.observer = new Plugin({ ...base('observer'), hostPort: options.observerPort ?? OBSERVER_PORT, prepare: () => this.writeStatusPage(), environment: (ctx) => this.apiEnvironment('observer', 'default', ctx) });
    this.multicast = new Plugin(base('multicast'));
  }

  get(name: PluginName): Plugin {
    return this[name];
  }

  all(): Plugin[] {
    return PLUGIN_NAMES.map((n) => this.get(n));
  }

  /** The plugin network, made on first use. */
  network(): Promise<PluginNetwork> {
    this.networkPending ??= ensurePluginNetwork(this.options.engine.docker, this.options.network ?? DEFAULT_PLUGIN_NETWORK).catch((err) => {
      this.networkPending = undefined;
      throw err;
    });
    return this.networkPending;
  }

  /** Installs (when never installed) and starts every plugin, the dns plugin first; failures are logged. */
  async boot(context: Context): Promise<void> {
    const logger = this.options.logs.get('hearth.supervisor.plugins');
    if (!(await this.options.engine.reachable())) {
      logger.warning(`no container engine answers at ${this.options.engine.socketPath}: the plugins are not started`);
      return;
    }
    for (const plugin of [this.dns, this.audio, this.cli, this.observer, this.multicast]) {
      await plugin.boot(context).catch((err) => logger.error(`the ${plugin.name} plugin could not be started: ${(err as Error).message}`));
    }
    // the page says how the supervisor is now, not how it was when the observer started
    this.statusTimer ??= setInterval(() => void this.writeStatusPage().catch(() => {}), STATUS_PAGE_EVERY_MS).unref();
  }

  audioInfo(): AudioInfo {
    return { ...this.audio.versionInfo(), host: this.audio.address(), audio: { card: [], input: [], output: [], application: [] } };
  }

  observerInfo(): { host: string | null } & PluginVersionInfo {
    return { host: this.observer.address(), ...this.observer.versionInfo() };
  }

  close(): void {
    clearInterval(this.statusTimer);
    for (const p of this.all()) p.close();
  }

  /**
   * A new token for the plugin's new container (the original makes one whenever it installs the
   * plugin), the previous one revoked, with the supervisor's URL.
   */
  private async apiEnvironment(name: PluginName, role: Role, context: Context): Promise<string[]> {
    const tokenName = `plugin_${name}`;
    for (const e of this.options.tokens.list()) if (e.name === tokenName && e.kind === 'app') await this.options.tokens.revoke(e.id, context);
    const token = await this.options.tokens.issue({ name: tokenName, kind: 'app', role }, context);
    const url = this.options.supervisorUrl();
    return [`SUPERVISOR_TOKEN=${token.token}`, `HASSIO_TOKEN=${token.token}`, `SUPERVISOR=${url}`, `HASSIO=${url}`];
  }

  /** The network's plugins by name and address (what the dns plugin answers for them). */
  private async addresses(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const p of this.all()) {
      const ip = p.address();
      if (ip) out[p.name] = ip;
    }
    return out;
  }

  /** The observer's page: what it reports of the supervisor when it starts. */
  private async writeStatusPage(): Promise<string[]> {
    const dir = join(this.options.dataDir, 'observer');
    await mkdir(dir, { recursive: true });
    const s = this.options.status();
    const row = (k: string, v: string) => `<tr><th>${k}</th><td>${v}</td></tr>`;
    const html = [
      '<!DOCTYPE html>',
      '<html><head><meta charset="utf-8"><title>Hearth observer</title></head><body>',
      '<h1>Hearth observer</h1>',
      '<table>',
      row('Supervisor', s.supervisor === 'running' ? 'Connected' : `Not running (${s.supervisor})`),
      row('Version', s.version),
      row('Supported', s.supported ? 'Supported' : 'Unsupported'),
      row('Healthy', s.healthy ? 'Healthy' : 'Unhealthy'),
      '</table>',
      '</body></html>',
    ].join('\n');
    await writeFile(join(dir, 'index.html.new'), `${html}\n`);
    await rename(join(dir, 'index.html.new'), join(dir, 'index.html'));
    await writeFile(join(dir, 'status.json'), `${JSON.stringify(s)}\n`);
    return [`${dir}:/www:ro`];
  }
}

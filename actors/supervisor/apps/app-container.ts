/**
 * One installed app's container as the lifecycle machine runs it (machines/container.machine.ts
 * through createContainerActor): what a start readies (options, devices, dns, image), the
 * container made anew from container-spec.ts, the engine's start (a port in use is
 * `app_port_conflict`), the wait for its healthcheck, and what its watchdog records. The
 * AppManager hands each app's actor a host: its records, jobs and reading of the app.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Context } from '../../../store/types.ts';
import type { JobHandle } from '../jobs/types.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import type { AppConfig } from './repository.ts';
import type { InstalledApp } from './types.ts';
import type { AppRecordKind } from './app-actor.ts';
import { containerSpec, hostFolders, type AppContainerInput } from './container-spec.ts';
import { effectiveNetwork } from './user-settings.ts';
import { createContainerActor, type ContainerActor, type WatchdogReports } from '../docker/container-actor.ts';
import { appDeviceAccess, type AppDeviceAccess } from '../hardware/app-devices.ts';
import { hostDevices } from '../hardware/devices.ts';
import type { AppActor, AppPreparation, AppRequest } from './app-actor.ts';
import type { AppManagerOptions } from './manager.ts';

/** What an app's container needs of the manager. */
export interface AppContainerHost {
  readonly deps: Pick<
    AppManagerOptions,
    'engine' | 'clock' | 'logger' | 'watchdogPauseMs' | 'dns' | 'timezone' | 'supervisorUrl' | 'dataDir' | 'coreDataDir' | 'resolution' | 'startTimeoutMs'
  >;
  readonly docker: Docker;
  containerName(slug: string): string;
  dataDirOf(slug: string): string;
  view(actor: AppActor): InstalledApp;
  validOptions(app: InstalledApp): Record<string, unknown>;
  /** the installed version's image, built again from the store when it went missing */
  imageOf(actor: AppActor): Promise<string>;
  inspect(actor: AppActor): Promise<Docker.ContainerInspectInfo | null>;
  record(slug: string, kind: AppRecordKind, context: Context): Promise<void>;
  job<T>(name: string, slug: string, context: Context, work: (job: JobHandle) => Promise<T>, internal?: boolean): Promise<T>;
  systemContext(): Context;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PORT_CONFLICT = /(?:0\.0\.0\.0|\[::\]|:):?(\d+).*(?:address already in use|port is already allocated)|port is already allocated|address already in use/;

/** The app's container as the lifecycle machine runs it: made anew on each start. */
export function appContainerActor(host: AppContainerHost, actor: AppActor): ContainerActor<AppRequest> {
  return createContainerActor<AppRequest, AppPreparation>({
    engine: host.deps.engine,
    name: host.containerName(actor.persisted.slug),
    // as the original: any exit of an app meant to run is a crash; one not brought up is stopped
    policy: { cleanExitIsCrash: true, staysWantedWhenDown: false, newContainerEachStart: true },
    clock: host.deps.clock,
    stopTimeout: () => actor.persisted.config.timeout,
    retryPauseMs: host.deps.watchdogPauseMs,
    steps: {
      prepare: (request) => prepareStart(host, actor, request),
      create: (_, preparation) => createContainer(host, actor, preparation),
      start: () => startContainer(host, actor),
      waitHealthy: () => waitStarted(host, actor),
    },
    watchdog: watchdogReports(host, actor),
  });
}

/** What a new container needs: the options, the devices, the dns plugin, the image (built again when missing). */
async function prepareStart(host: AppContainerHost, actor: AppActor, request: AppRequest): Promise<AppPreparation> {
  const slug = actor.persisted.slug;
  const options = request.options ?? host.validOptions(host.view(actor));
  const hardware = await hardwareOf(host, actor.persisted.config);
  const dns = (await host.deps.dns?.().catch((err) => {
    host.deps.logger.warning(`${slug} starts without the dns plugin: ${(err as Error).message}`);
    return null;
  })) ?? null;
  return { options, hardware, dns, image: await host.imageOf(actor) };
}

/** The host folders and `options.json`, then the container. */
async function createContainer(host: AppContainerHost, actor: AppActor, { options, hardware, dns, image }: AppPreparation): Promise<void> {
  const slug = actor.persisted.slug;
  const dataDir = host.dataDirOf(slug);
  const input = (image: string): AppContainerInput => ({
    slug,
    config: actor.persisted.config,
    image,
    name: host.containerName(slug),
    token: actor.persisted.user.access_token,
    timezone: host.deps.timezone(),
    supervisorUrl: host.deps.supervisorUrl(),
    network: effectiveNetwork(actor.persisted.config, actor.persisted.user),
    dataDir,
    supervisorDataDir: host.deps.dataDir,
    coreDataDir: host.deps.coreDataDir,
    hardware,
    dns,
  });
  for (const dir of hostFolders(input(image))) await mkdir(dir, { recursive: true });
  await writeFile(join(dataDir, 'options.json'), JSON.stringify(options));
  try {
    await host.docker.createContainer(containerSpec(input(image)));
  } catch (err: any) {
    // the image went away meanwhile (another supervisor on this engine uninstalled the same app)
    if (err?.statusCode !== 404) throw err;
    await host.docker.createContainer(containerSpec(input(await host.imageOf(actor))));
  }
}

/** The engine's start; a port in use removes the container and is the original's `app_port_conflict`. */
async function startContainer(host: AppContainerHost, actor: AppActor): Promise<void> {
  const slug = actor.persisted.slug;
  const container = host.docker.getContainer(host.containerName(slug));
  try {
    await container.start();
  } catch (err: any) {
    const text = String(err?.json?.message ?? err?.message ?? '');
    await container.remove({ force: true }).catch(() => {});
    const m = PORT_CONFLICT.exec(text);
    if (m) {
      const port = m[1] ? Number(m[1]) : Number(/:(\d+)/.exec(text)?.[1] ?? 0);
      await host.deps.resolution?.()?.addIssue({ type: 'app_port_conflict', context: 'addon', reference: slug }).catch(() => {});
      throw keyedError(400, 'app_port_conflict', 'Cannot start app {name} because port {port} is already in use', { name: slug, port });
    }
    throw err;
  }
}

/** Until the container runs (and its image's healthcheck, if any, has an answer). */
async function waitStarted(host: AppContainerHost, actor: AppActor): Promise<void> {
  const until = Date.now() + (host.deps.startTimeoutMs ?? 120_000);
  for (;;) {
    const info = await host.inspect(actor);
    if (!info?.State?.Running) {
      throw keyedError(500, 'app_unknown_error', 'An unknown error occurred with app {app}. Check Supervisor logs for details', { app: actor.persisted.slug });
    }
    const health = info.State.Health?.Status;
    if (!health || health === 'healthy' || health === 'unhealthy' || Date.now() > until) return;
    await sleep(250);
  }
}

/**
 * What an app's watchdog tells: a crash is `app_crashed`; each repair is the internal job
 * `app_restart_after_problem`, up to 5 starts of a new container 10 s apart (a port conflict
 * ends them), each recorded as a start is (`watchdog_restart`, `app_start_failed`), then
 * `watchdog_gave_up`.
 */
function watchdogReports(host: AppContainerHost, actor: AppActor): WatchdogReports<AppRequest> {
  const slug = actor.persisted.slug;
  return {
    crashed: async (exitCode) => {
      const context = host.systemContext();
      host.deps.logger.warning(`app ${slug}: its container died with exit code ${exitCode}`);
      await host.record(slug, { type: 'app_crashed', data: { exit_code: exitCode } }, context);
      return { request: { context }, watchdog: actor.persisted.user.watchdog };
    },
    repairing: ({ context }, repair) => void host.job('app_restart_after_problem', slug, context, () => repair, true).catch(() => {}),
    restarted: async ({ context }, attempt, exitCode) => {
      await host.record(slug, { type: 'watchdog_restart', data: { version: actor.persisted.user.version } }, context);
      host.deps.logger.info(`watchdog: app ${slug} is running again (restart ${attempt}, exit code ${exitCode})`);
    },
    attemptFailed: async ({ context }, attempt, error) => {
      await host.record(slug, { type: 'app_start_failed', data: { message: error.message } }, context);
      host.deps.logger.warning(`watchdog: restart ${attempt} of app ${slug} failed: ${error.message}`);
      return !(error instanceof SupervisorError && error.errorKey === 'app_port_conflict');
    },
    gaveUp: async ({ context }, reason) => {
      if (reason === 'rate') host.deps.logger.error(`watchdog: more than 10 restarts of app ${slug} in 30 minutes, not restarting it`);
      await host.record(slug, { type: 'watchdog_gave_up', data: { reason } }, context);
    },
    unreported: (error) => host.deps.logger.error(`watchdog of app ${slug}: ${error.message}`),
  };
}

/** What of the host's hardware the app's config asks for, read from the host as it is now. */
async function hardwareOf(host: AppContainerHost, config: AppConfig): Promise<AppDeviceAccess | undefined> {
  if (!config.devices.length && !config.uart && !config.usb && !config.gpio && !config.video && !config.udev && !config.devicetree) return undefined;
  const needsList = config.uart || config.video || config.gpio;
  const access = appDeviceAccess(config, needsList ? await hostDevices() : []);
  if (access.missing.length) host.deps.logger.warning(`app ${config.slug}: ${access.missing.join(', ')} not on this host, started without`);
  return access;
}

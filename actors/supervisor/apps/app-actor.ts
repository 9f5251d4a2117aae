/**
 * One installed app as the AppManager holds it: what its records keep (config and user settings),
 * its state machine (machines/app.machine.ts) for the state the API shows, and its container's
 * lifecycle actor; plus what that container's steps are given.
 */
import { createActor, type Actor } from 'xstate';
import type { Context } from '../../../store/types.ts';
import type { ContainerRecord } from '../docker/container-records.ts';
import { appMachine, isStable, type AppMachineState } from '../../../machines/app.machine.ts';
import type { ContainerActor } from '../docker/container-actor.ts';
import type { AppDeviceAccess } from '../hardware/app-devices.ts';
import type { AppConfig } from './repository.ts';
import type { AppState, AppUserSettings } from './types.ts';

export interface PersistedApp {
  slug: string;
  repository: string;
  config: AppConfig;
  user: AppUserSettings;
}

/** What each record of an app holds besides `container` (its container's name), which every one starts with. */
interface AppRecordData {
  app_installed: { repository: string; config: AppConfig; user: AppUserSettings; restored?: boolean };
  app_restored: { config: AppConfig; user: AppUserSettings };
  app_updated: { from: string; to: string; config: AppConfig; user: AppUserSettings };
  app_options_set: { user: AppUserSettings };
  app_sys_options_set: { user: AppUserSettings };
  app_security_set: { user: AppUserSettings };
  app_rebuilt: { version: string };
  app_started: { version: string };
  app_stopped: { version: string };
  app_start_failed: { message: string };
  app_crashed: { exit_code: number };
  watchdog_restart: { version: string };
  watchdog_gave_up: { reason: string };
  app_uninstalled: { remove_config: boolean };
}

/** What the manager records: one of an app's records, less the container it adds. */
export type AppRecordKind = { [T in keyof AppRecordData]: { type: T; data: AppRecordData[T] } }[keyof AppRecordData];
/** An app's records on `supervisor/app/<slug>`, as the log holds them. */
export type AppRecord = ContainerRecord<AppRecordKind>;
/** The settings records (`POST /addons/<slug>/options`, `sys_options`, `security`). */
export type AppSettingsRecordType = 'app_options_set' | 'app_sys_options_set' | 'app_security_set';

/** What an app container's steps are given: the context of the records, the options already checked (an API start). */
export interface AppRequest {
  context: Context;
  options?: Record<string, unknown>;
}

/** What an app's start readies before its container is made. */
export interface AppPreparation {
  options: Record<string, unknown>;
  image: string;
  hardware: AppDeviceAccess | undefined;
  dns: { network: string; ip: string } | null;
}

/** One installed app: what is kept of it, its state as the API shows it, its container. */
export class AppActor {
  readonly machine: Actor<typeof appMachine>;
  /** the last state the API shows (transitional states show this) */
  stable: AppState = 'unknown';
  readonly container: ContainerActor<AppRequest>;

  constructor(
    public persisted: PersistedApp,
    containerOf: (app: AppActor) => ContainerActor<AppRequest>,
  ) {
    this.container = containerOf(this);
    this.machine = createActor(appMachine).start();
    this.machine.subscribe((s) => {
      const value = s.value as AppMachineState;
      if (isStable(value)) this.stable = value;
    });
    this.machine.send({ type: 'installed' });
  }

  get state(): AppState {
    return this.stable;
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.container.exclusive(work);
  }

  stop(): void {
    this.machine.stop();
    this.container.close();
  }
}

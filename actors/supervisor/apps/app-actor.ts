/**
 * One installed app as the AppManager holds it: what its records keep (config and user settings),
 * its state machine (machines/app.machine.ts) for the state the API shows, and its container's
 * lifecycle actor; plus what that container's steps are given.
 */
import { createActor, type Actor } from 'xstate';
import type { Context } from '../../../store/types.ts';
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

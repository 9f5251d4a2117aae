import { createActor, fromCallback, fromPromise, waitFor, type EventObject } from 'xstate';
import type Docker from 'dockerode';
import type { Clock } from '../../clock.ts';
import type { Engine } from './engine.ts';
import { DieEvents } from './die-events.ts';
import {
  containerMachine,
  type AttemptInput,
  type ContainerEvent,
  type ContainerOutcome,
  type ContainerPolicy,
  type ContainerPresence,
  type CrashReport,
  type EffectInput,
  type GiveUpReason,
} from '../../../machines/container.machine.ts';

/**
 * One container's lifecycle (machines/container.machine.ts) on the local engine: the steps every
 * container shares (inspect, restart, stop, remove) are done here, the ones a kind of container
 * does its own way (prepare, create, start, wait until healthy) and the watchdog's reports
 * (records, issues, log lines, its job) come from the core runtime, the app manager or a plugin.
 * Operations on the container run one at a time through `exclusive`; the watchdog takes its turn
 * in the same queue.
 */

/** What one kind of container does its own way; `Request` is what a command carries to them. */
export interface ContainerSteps<Request, Preparation> {
  /** readies the host side before a start (files, image...); the answer goes to `create` */
  prepare?(request: Request): Promise<Preparation>;
  /** makes the container; there is none by its name */
  create(request: Request, preparation: Preparation): Promise<void>;
  /** starts the existing container (default: the engine's start) */
  start?(request: Request): Promise<void>;
  /** waits until the started container serves (default: at once) */
  waitHealthy?(request: Request): Promise<void>;
}

/** How the watchdog's work is told and tracked. */
export interface WatchdogReports<Request> {
  /** a crash judged: told; answers what the repairs carry and whether the watchdog is on */
  crashed(exitCode: number): Promise<{ request: Request; watchdog: boolean }>;
  /** the repair of one crash, settling when the watchdog is done with it (to run as a job) */
  repairing(request: Request, repair: Promise<void>): void;
  restarted(request: Request, attempt: number, exitCode: number): Promise<void>;
  /** answers whether another attempt is worth it */
  attemptFailed(request: Request, attempt: number, error: Error): Promise<boolean>;
  gaveUp(request: Request, reason: GiveUpReason): Promise<void>;
  /** a report that could not be made; the watchdog goes on without it */
  unreported(error: Error): void;
}

export interface ContainerActorOptions<Request, Preparation> {
  engine: Engine;
  name: string;
  policy: ContainerPolicy;
  clock: Clock;
  /** seconds a stop waits before the engine kills the container (read at each stop) */
  stopTimeout(): number;
  /** the watchdog's pause between attempts (default 10 s) */
  retryPauseMs?: number;
  steps: ContainerSteps<Request, Preparation>;
  watchdog: WatchdogReports<Request>;
}

/** The container as its owner drives it. Commands are sent from inside `exclusive`. */
export interface ContainerActor<Request> {
  /** runs `work` when no other operation on this container (nor the watchdog) is at work */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** brings it up (made when missing; apps: always made anew); `alreadyRunning` when nothing was done */
  start(request: Request): Promise<ContainerOutcome>;
  /** restarts the existing container (`restarted`), or makes and starts one (`created`) */
  restart(request: Request): Promise<ContainerOutcome>;
  /** makes it without starting it */
  create(request: Request): Promise<void>;
  /** stops it when it runs; true when it did */
  stop(): Promise<boolean>;
  /** stops and removes it, when there is one */
  remove(): Promise<void>;
  /** found running: wanted running from now on */
  adopt(): void;
  /** follows the engine's `die` events of this container (idempotent; until closed) */
  follow(): void;
  /** a `die` of this container (from follow(), or from an owner following several containers) */
  died(exitCode: number): void;
  /** whether the supervisor last asked it to run */
  wanted(): boolean;
  /** stops following and judging deaths and ends the watchdog's work (the container is left as it is) */
  close(): void;
}

const presenceOf = (info: Docker.ContainerInspectInfo | null): ContainerPresence => (!info ? 'absent' : info.State?.Running ? 'running' : 'stopped');

export function createContainerActor<Request, Preparation = undefined>(options: ContainerActorOptions<Request, Preparation>): ContainerActor<Request> {
  const { engine, name, steps, watchdog } = options;
  const container = () => engine.docker.getContainer(name);
  let queue: Promise<unknown> = Promise.resolve();

  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };

  const removeContainer = async () => {
    const info = await engine.inspect(name);
    if (!info) return;
    if (info.State?.Running) await container().stop({ t: options.stopTimeout() }).catch(() => {});
    await container()
      .remove({ force: true })
      .catch((err: { statusCode?: number }) => {
        if (err?.statusCode !== 404) throw err;
      });
  };

  const reported = async <T>(report: Promise<T>): Promise<T> => {
    try {
      return await report;
    } catch (err) {
      watchdog.unreported(err as Error);
      throw err;
    }
  };

  // the request and preparation are the owner's own types; the machine only carries them
  const requestOf = (input: { request: unknown }) => input.request as Request;

  const machine = containerMachine.provide({
    actors: {
      inspectContainer: fromPromise<ContainerPresence, EffectInput>(async () => presenceOf(await engine.inspect(name))),
      prepareStart: fromPromise<unknown, EffectInput>(async ({ input }) => steps.prepare?.(requestOf(input))),
      createContainer: fromPromise<void, EffectInput>(({ input }) => steps.create(requestOf(input), input.preparation as Preparation)),
      startContainer: fromPromise<void, EffectInput>(async ({ input }) => {
        if (steps.start) await steps.start(requestOf(input));
        else await container().start();
      }),
      restartContainer: fromPromise<void, EffectInput>(async () => {
        await container().restart({ t: options.stopTimeout() });
      }),
      waitHealthy: fromPromise<void, EffectInput>(async ({ input }) => steps.waitHealthy?.(requestOf(input))),
      stopContainer: fromPromise<void, EffectInput>(async () => {
        await container().stop({ t: options.stopTimeout() });
      }),
      removeContainer: fromPromise<void, EffectInput>(removeContainer),
      takeTurn: fromCallback<EventObject, void>(({ sendBack }) => {
        let left = false;
        let release = () => {};
        void exclusive(async () => {
          // left before its turn came (a command took over): nothing to hold
          if (left) return;
          await new Promise<void>((resolve) => {
            release = resolve;
            sendBack({ type: 'turn.taken' });
          });
        });
        return () => {
          left = true;
          release();
        };
      }),
      reportCrash: fromPromise<CrashReport, { exitCode: number }>(({ input }) => reported(watchdog.crashed(input.exitCode))),
      trackRecovery: fromCallback<EventObject, { request: unknown }>(({ input }) => {
        let done = () => {};
        watchdog.repairing(requestOf(input), new Promise<void>((resolve) => (done = resolve)));
        return () => done();
      }),
      reportRestart: fromPromise<void, AttemptInput>(({ input }) => reported(watchdog.restarted(requestOf(input), input.attempt, input.exitCode))),
      reportFailedAttempt: fromPromise<boolean, AttemptInput & { error: unknown }>(({ input }) => reported(watchdog.attemptFailed(requestOf(input), input.attempt, input.error as Error))),
      reportGiveUp: fromPromise<void, { request: unknown; reason: GiveUpReason }>(({ input }) => reported(watchdog.gaveUp(requestOf(input), input.reason))),
    },
    delays: { retryPause: options.retryPauseMs ?? 10_000 },
  });
  const actor = createActor(machine, { input: options.policy }).start();

  /** Sends a command and waits until it settled; its failure is thrown as the step threw it. */
  const command = async (event: ContainerEvent): Promise<ContainerOutcome | null> => {
    if (!actor.getSnapshot().matches('settled')) throw new Error(`container ${name}: a command is still in flight`);
    actor.send(event);
    const settled = await waitFor(actor, (snapshot) => snapshot.matches('settled'));
    if (settled.context.error !== null) throw settled.context.error;
    return settled.context.outcome;
  };

  const died = (exitCode: number) => actor.send({ type: 'died', exitCode, at: options.clock.now() });
  // made on the first follow(): the apps' manager follows all of its containers in one stream
  let deaths: DieEvents | undefined;
  let closed = false;
  const follow = () => {
    if (closed) return;
    deaths ??= new DieEvents(engine.docker, { container: [name] }, (death) => {
      if (death.name === name) died(death.exitCode);
    });
    deaths.start();
  };

  return {
    exclusive,
    start: async (request) => (await command({ type: 'start', request }))!,
    restart: async (request) => (await command({ type: 'restart', request }))!,
    create: async (request) => void (await command({ type: 'create', request })),
    stop: async () => (await command({ type: 'stop' })) === 'stopped',
    remove: async () => void (await command({ type: 'remove' })),
    adopt: () => actor.send({ type: 'adopt' }),
    follow,
    died,
    wanted: () => actor.getSnapshot().hasTag('wanted'),
    close: () => {
      closed = true;
      deaths?.close();
      actor.send({ type: 'unwatch' });
    },
  };
}

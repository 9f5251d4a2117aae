import { createActor, type Actor } from 'xstate';
import type { TypedArea } from '../../area.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Context, EventLog, EventRecord, NewEvent } from '../../../store/types.ts';
import { intentTimerMachine, secondsLeftAt, timerEnd, type IntentTimerContext } from '../../../machines/intent-timer.machine.ts';
import { IntentHandleError } from '../errors.ts';

/** Every timer's records live on `intent_timer/<id>`. */
export const TIMER_STREAM_PREFIX = 'intent_timer/';

/** The record types of a timer's stream; each holds the whole timer. */
export type TimerRecordType = 'timer_started' | 'timer_updated' | 'timer_paused' | 'timer_unpaused' | 'timer_cancelled' | 'timer_finished';
/** A timer's records. */
export type TimerRecord = { type: TimerRecordType; data: TimerInfo };
const timerRecords = typedRecords<TimerRecord>(TIMER_STREAM_PREFIX, {
  timer_started: true,
  timer_updated: true,
  timer_paused: true,
  timer_unpaused: true,
  timer_cancelled: true,
  timer_finished: true,
});

/**
 * Bus events a subscriber sees (`subscribe_events`), one per change the original reports to a
 * device's timer handler (started, updated, cancelled, finished). Data: the timer (TimerInfo).
 */
export const TIMER_EVENTS = {
  started: 'intent_timer_started',
  updated: 'intent_timer_updated',
  cancelled: 'intent_timer_cancelled',
  finished: 'intent_timer_finished',
} as const;

/** A timer as its records and bus events carry it; times are wall-clock epoch ms. */
export interface TimerInfo {
  id: string;
  name: string | null;
  /** seconds left at `updated_at` (0 once cancelled or finished) */
  seconds: number;
  device_id: string | null;
  start_hours: number | null;
  start_minutes: number | null;
  start_seconds: number | null;
  created_at: number;
  updated_at: number;
  language: string;
  is_active: boolean;
  area_id: string | null;
  /** the area's name, trimmed and case-folded */
  area_name: string | null;
  floor_id: string | null;
  conversation_command: string | null;
  conversation_agent_id: string | null;
  /** seconds it was created with, raised when time added goes beyond */
  created_seconds: number;
}

/** What starting a timer needs. */
export interface StartTimer {
  deviceId: string | null;
  hours: number | null;
  minutes: number | null;
  seconds: number | null;
  language: string;
  name?: string | null;
  conversationCommand?: string | null;
  conversationAgentId?: string | null;
  context?: Context;
}

/** The device and area lookups a timer needs (Registries has them). */
export interface TimerPlaces {
  getDevice(deviceId: string): { area_id: string | null } | undefined;
  getArea(areaId: string): { area_id: string; name: string; floor_id: string | null } | undefined;
}

/** Runs a finished timer's conversation command (the conversation agent, when there is one). */
export interface TimerCommandHook {
  run(command: string, options: { language: string; agentId: string | null; deviceId: string | null; context: Context }): Promise<unknown>;
  /** false when no sentence or intent matches the command (then CoreStartTimer refuses it) */
  recognizes?(command: string, options: { language: string; agentId: string | null; deviceId: string | null; context: Context }): Promise<boolean>;
}

export interface TimerManagerDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  places?: TimerPlaces;
  /** waits `ms` then calls `fn`; returns a cancel (tests with a manual clock may pass a no-op) */
  schedule?: (ms: number, fn: () => void) => () => void;
  logLine?: (line: string) => void;
}

/** Trimmed and case-folded (strip().casefold()), as the original compares timer and area names. */
export function normalizeName(name: string): string {
  return name.trim().toLowerCase().replaceAll('ß', 'ss');
}

type TimerActor = Actor<typeof intentTimerMachine>;

interface Running {
  /** what never changes after the start */
  fixed: Omit<TimerInfo, 'seconds' | 'updated_at' | 'is_active' | 'created_seconds'>;
  actor: TimerActor;
  cancelWait?: () => void;
}

const SNAPSHOT_VERSION = 1;

const realSchedule = (ms: number, fn: () => void) => {
  const handle = setTimeout(fn, Math.min(Math.max(0, ms), 2_147_483_647));
  return () => clearTimeout(handle);
};

/**
 * The voice timers: each an actor of intentTimerMachine, each change a record on its stream.
 * Restored as an Area (the last record of each stream); `resume()` then sets the restored
 * active timers running again from the wall clock, finishing at once those whose end passed
 * while Hearth was stopped.
 */
export class TimerManager {
  readonly area: TypedArea<RecordOf<TimerRecord>>;
  private readonly timers = new Map<string, Running>();
  /** the last committed record of each unfinished timer: what a snapshot holds */
  private committed = new Map<string, TimerInfo>();
  private resumed = false;
  private readonly schedule: (ms: number, fn: () => void) => () => void;
  private commandHook: TimerCommandHook | undefined;
  private stopped = false;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly deps: TimerManagerDeps) {
    this.schedule = deps.schedule ?? realSchedule;
    const { owns } = timerRecords;
    const apply = (r: RecordOf<TimerRecord>) => {
      const info = r.data;
      if (r.type === 'timer_finished' || r.type === 'timer_cancelled') this.committed.delete(info.id);
      else this.committed.set(info.id, info);
    };
    // a snapshot is taken between commits: it holds what is committed, never a change in flight
    deps.log.onCommit((batch) => {
      for (const r of batch) if (owns(r)) apply(r);
    });
    this.area = {
      name: 'intent_timers',
      snapshotVersion: SNAPSHOT_VERSION,
      streamPrefix: TIMER_STREAM_PREFIX,
      latestSuffices: true,
      owns,
      evolve: apply,
      snapshot: () => [...this.committed.values()],
      restore: (data) => {
        this.committed = new Map((data as TimerInfo[]).map((t) => [t.id, t]));
      },
    };
  }

  /** The conversation agent, once there is one, runs finished timers' commands through this. */
  setCommandHook(hook: TimerCommandHook | undefined): void {
    this.commandHook = hook;
  }

  get hook(): TimerCommandHook | undefined {
    return this.commandHook;
  }

  /** Sets the restored timers going: active ones count on from their last record. */
  async resume(): Promise<void> {
    if (this.resumed) return;
    this.resumed = true;
    for (const info of this.committed.values()) {
      // one started by a request that came before the resume is already running
      if (this.timers.has(info.id)) continue;
      const { seconds, updated_at, is_active, created_seconds, ...fixed } = info;
      const actor = createActor(intentTimerMachine, { input: { seconds, updatedAt: updated_at, createdSeconds: created_seconds, isActive: is_active } }).start();
      this.timers.set(info.id, { fixed, actor });
    }
    for (const id of this.timers.keys()) this.wait(id);
    await this.finishDue();
  }

  /** Unfinished timers (conversation-command timers included), in start order. */
  list(): TimerInfo[] {
    return [...this.timers.keys()].map((id) => this.info(id)!);
  }

  /** One unfinished timer. */
  get(id: string): TimerInfo | undefined {
    return this.info(id);
  }

  /** Seconds left now. */
  secondsLeft(id: string): number {
    const t = this.timers.get(id);
    if (!t) throw timerNotFound();
    const snap = t.actor.getSnapshot();
    return secondsLeftAt(snap.context, snap.value === 'active', this.deps.clock.now());
  }

  /** Starts a timer; resolves to its record once written. */
  async start(input: StartTimer): Promise<TimerInfo> {
    const now = this.deps.clock.now();
    const total = 3600 * (input.hours ?? 0) + 60 * (input.minutes ?? 0) + (input.seconds ?? 0);
    let areaId: string | null = null;
    let areaName: string | null = null;
    let floorId: string | null = null;
    const device = input.deviceId ? this.deps.places?.getDevice(input.deviceId) : undefined;
    if (device) {
      areaId = device.area_id;
      const area = areaId ? this.deps.places?.getArea(areaId) : undefined;
      if (area) {
        areaName = normalizeName(area.name);
        floorId = area.floor_id;
      }
    }
    const id = this.deps.ids.ulid(now);
    const fixed: Running['fixed'] = {
      id,
      name: input.name ?? null,
      device_id: input.deviceId,
      start_hours: input.hours,
      start_minutes: input.minutes,
      start_seconds: input.seconds,
      created_at: now,
      language: input.language,
      area_id: areaId,
      area_name: areaName,
      floor_id: floorId,
      conversation_command: input.conversationCommand ?? null,
      conversation_agent_id: input.conversationAgentId ?? null,
    };
    const actor = createActor(intentTimerMachine, { input: { seconds: total, updatedAt: now } }).start();
    this.timers.set(id, { fixed, actor });
    this.wait(id);
    const info = this.info(id)!;
    await this.write(info, 'timer_started', TIMER_EVENTS.started, input.context ?? this.systemContext(now));
    return info;
  }

  /** Cancels a timer (it is gone after). */
  async cancel(id: string, context?: Context): Promise<TimerInfo> {
    const t = this.running(id);
    const now = this.deps.clock.now();
    t.actor.send({ type: 'cancel', time: now });
    const info = this.info(id)!;
    this.drop(id);
    await this.write(info, 'timer_cancelled', TIMER_EVENTS.cancelled, context ?? this.systemContext(now));
    return info;
  }

  /** Adds seconds (negative removes them; never below 0). Adding 0 changes nothing. */
  async addTime(id: string, seconds: number, context?: Context): Promise<TimerInfo> {
    const t = this.running(id);
    if (seconds === 0) return this.info(id)!;
    const now = this.deps.clock.now();
    t.actor.send({ type: 'add', time: now, seconds });
    const info = this.info(id)!;
    this.wait(id);
    await this.write(info, 'timer_updated', TIMER_EVENTS.updated, context ?? this.systemContext(now));
    return info;
  }

  /** Pauses an active timer; a paused one stays as it is (no record). */
  async pause(id: string, context?: Context): Promise<TimerInfo> {
    const t = this.running(id);
    if (t.actor.getSnapshot().value !== 'active') return this.info(id)!;
    const now = this.deps.clock.now();
    t.actor.send({ type: 'pause', time: now });
    t.cancelWait?.();
    t.cancelWait = undefined;
    const info = this.info(id)!;
    await this.write(info, 'timer_paused', TIMER_EVENTS.updated, context ?? this.systemContext(now));
    return info;
  }

  /** Sets a paused timer going again; an active one stays as it is (no record). */
  async unpause(id: string, context?: Context): Promise<TimerInfo> {
    const t = this.running(id);
    if (t.actor.getSnapshot().value !== 'paused') return this.info(id)!;
    const now = this.deps.clock.now();
    t.actor.send({ type: 'unpause', time: now });
    this.wait(id);
    const info = this.info(id)!;
    await this.write(info, 'timer_unpaused', TIMER_EVENTS.updated, context ?? this.systemContext(now));
    return info;
  }

  /**
   * Finishes every active timer whose end has come by the clock: records timer_finished, fires
   * intent_timer_finished, and runs its conversation command if it has one. Called by each
   * timer's wait, and by tests that move a manual clock.
   */
  async finishDue(): Promise<TimerInfo[]> {
    const now = this.deps.clock.now();
    const done: TimerInfo[] = [];
    for (const [id, t] of this.timers) {
      const snap = t.actor.getSnapshot();
      if (snap.value !== 'active' || timerEnd(snap.context) > now) continue;
      t.actor.send({ type: 'finish', time: now });
      done.push(this.info(id)!);
      this.drop(id);
    }
    await Promise.all(
      done.map(async (info) => {
        const context = this.systemContext(now);
        await this.write(info, 'timer_finished', TIMER_EVENTS.finished, context);
        if (info.conversation_command) this.runCommand(info, context);
      }),
    );
    return done;
  }

  /** Stops waiting (before the log closes); the timers stay as recorded for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) t.cancelWait?.();
    await Promise.allSettled([...this.pending]);
  }

  private runCommand(info: TimerInfo, context: Context): void {
    const hook = this.commandHook;
    if (!hook) {
      this.deps.logLine?.(`Timer ${info.id} finished with command "${info.conversation_command}", but no conversation agent runs commands`);
      return;
    }
    const run = hook
      .run(info.conversation_command!, { language: info.language, agentId: info.conversation_agent_id, deviceId: info.device_id, context })
      .catch((err) => this.deps.logLine?.(`Timer ${info.id}: its command "${info.conversation_command}" failed: ${(err as Error)?.message ?? err}`));
    this.track(run);
  }

  private running(id: string): Running {
    const t = this.timers.get(id);
    if (!t) throw timerNotFound();
    return t;
  }

  private drop(id: string): void {
    const t = this.timers.get(id);
    t?.cancelWait?.();
    t?.actor.stop();
    this.timers.delete(id);
  }

  /** (Re)arms the wait for an active timer's end. */
  private wait(id: string): void {
    const t = this.timers.get(id);
    if (!t) return;
    t.cancelWait?.();
    t.cancelWait = undefined;
    const snap = t.actor.getSnapshot();
    if (snap.value !== 'active' || this.stopped) return;
    const ms = timerEnd(snap.context) - this.deps.clock.now();
    t.cancelWait = this.schedule(ms, () => {
      t.cancelWait = undefined;
      if (this.stopped || this.timers.get(id) !== t) return;
      const left = timerEnd(t.actor.getSnapshot().context) - this.deps.clock.now();
      // a timer that fires a little early waits the rest
      if (left > 0) return this.wait(id);
      this.track(this.finishDue().catch((err) => this.deps.logLine?.(`Timer ${id} could not finish: ${(err as Error)?.message ?? err}`)));
    });
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private info(id: string): TimerInfo | undefined {
    const t = this.timers.get(id);
    if (!t) return undefined;
    const snap = t.actor.getSnapshot();
    const c: IntentTimerContext = snap.context;
    const f = t.fixed;
    return {
      id: f.id,
      name: f.name,
      seconds: c.seconds,
      device_id: f.device_id,
      start_hours: f.start_hours,
      start_minutes: f.start_minutes,
      start_seconds: f.start_seconds,
      created_at: f.created_at,
      updated_at: c.updatedAt,
      language: f.language,
      is_active: snap.value === 'active',
      area_id: f.area_id,
      area_name: f.area_name,
      floor_id: f.floor_id,
      conversation_command: f.conversation_command,
      conversation_agent_id: f.conversation_agent_id,
      created_seconds: c.createdSeconds,
    };
  }

  private async write(info: TimerInfo, type: TimerRecordType, eventType: string, context: Context): Promise<void> {
    const time = this.deps.clock.now();
    const records: NewEvent[] = [
      timerRecords.make(TIMER_STREAM_PREFIX + info.id, { type, data: info }, context, time),
      { time, stream: 'bus', type: eventType, data: { ...info }, context, origin: 'LOCAL' },
    ];
    const p = this.deps.log.append(records);
    this.track(p);
    await p;
  }

  private systemContext(now: number): Context {
    return { id: this.deps.ids.ulid(now), parent_id: null, user_id: null };
  }
}

/** The original's TimerNotFoundError. */
export function timerNotFound(): IntentHandleError {
  return new IntentHandleError('Timer not found', 'timer_not_found');
}

/** The original's MultipleTimersMatchedError. */
export function multipleTimersMatched(): IntentHandleError {
  return new IntentHandleError('Multiple timers matched', 'multiple_timers_matched');
}

import type { Intent, IntentHandler, SlotValidator, Slots } from '../types.ts';
import { IntentResponse } from '../response.ts';
import { IntentHandleError, InvalidSlotInfo } from '../errors.ts';
import type { IntentRegistry } from '../registry.ts';
import type { TimerManager, TimerPlaces } from './manager.ts';
import { findTimer, findTimers, roundTime, type TimerFilter } from './find.ts';

/** cv.positive_int: a whole number 0 or more (numbers and numeric strings are truncated to one). */
export const nonNegativeInt: SlotValidator = (value) => {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'boolean') n = value ? 1 : 0;
  else if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) n = Number(value);
  else throw new Error(`expected int, got ${JSON.stringify(value)}`);
  if (!Number.isFinite(n)) throw new Error('expected int');
  n = Math.trunc(n);
  if (n < 0) throw new Error('value must be at least 0');
  return n;
};

/** cv.string: any scalar as a string; null, lists and objects refused. */
export const slotString: SlotValidator = (value) => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`expected str, got ${JSON.stringify(value)}`);
};

const DURATION = ['hours', 'minutes', 'seconds'] as const;
const START = { start_hours: { validator: nonNegativeInt }, start_minutes: { validator: nonNegativeInt }, start_seconds: { validator: nonNegativeInt } };
const WHICH = { ...START, name: { validator: slotString }, area: { validator: slotString } };
const AMOUNT = { hours: { validator: nonNegativeInt }, minutes: { validator: nonNegativeInt }, seconds: { validator: nonNegativeInt } };

const has = (slots: Slots, name: string) => slots[name] !== undefined && slots[name] !== null;

/** At least one of hours/minutes/seconds, as `vol.Required(vol.Any(...))` asks. */
function requireDuration(intent: Intent): void {
  if (!DURATION.some((d) => has(intent.slots, d))) throw new InvalidSlotInfo(`Received invalid slot info for ${intent.intentType}`);
}

function totalSeconds(slots: Slots): number {
  return (has(slots, 'hours') ? 3600 * Number(slots.hours.value) : 0) + (has(slots, 'minutes') ? 60 * Number(slots.minutes.value) : 0) + (has(slots, 'seconds') ? Number(slots.seconds.value) : 0);
}

const partOf = (slots: Slots, name: string): number | null => (has(slots, name) ? Number(slots[name].value) : null);

/** The CoreXxxTimer intent handlers over one TimerManager. */
export function timerIntentHandlers(timers: TimerManager, places?: TimerPlaces): IntentHandler[] {
  const pick = (intent: Intent, filter?: TimerFilter) => findTimer(timers.list(), places, intent.deviceId, intent.slots, filter);
  const done = (intent: Intent) => new IntentResponse(intent.language);

  return [
    {
      intentType: 'CoreStartTimer',
      description: 'Starts a new timer',
      slotSchema: { ...AMOUNT, name: { validator: slotString }, conversation_command: { validator: slotString } },
      async handle(intent) {
        requireDuration(intent);
        const command = has(intent.slots, 'conversation_command') ? String(intent.slots.conversation_command.value).trim() : '';
        if (command && timers.hook?.recognizes) {
          const ok = await timers.hook.recognizes(command, { language: intent.language, agentId: intent.conversationAgentId, deviceId: intent.deviceId, context: intent.context });
          if (!ok) throw new IntentHandleError(`Intent not recognized: ${command}`, 'no_timer_command');
        }
        await timers.start({
          deviceId: intent.deviceId,
          hours: partOf(intent.slots, 'hours'),
          minutes: partOf(intent.slots, 'minutes'),
          seconds: partOf(intent.slots, 'seconds'),
          language: intent.language,
          name: has(intent.slots, 'name') ? String(intent.slots.name.value) : null,
          conversationCommand: command || null,
          conversationAgentId: intent.conversationAgentId,
          context: intent.context,
        });
        return done(intent);
      },
    },
    {
      intentType: 'CoreCancelTimer',
      description: 'Cancels a timer',
      slotSchema: WHICH,
      async handle(intent) {
        await timers.cancel(pick(intent).id, intent.context);
        return done(intent);
      },
    },
    {
      intentType: 'CoreCancelAllTimers',
      description: 'Cancels all timers',
      slotSchema: { area: { validator: slotString } },
      async handle(intent) {
        const all = findTimers(timers.list(), places, intent.deviceId, intent.slots);
        for (const t of all) await timers.cancel(t.id, intent.context);
        const speechSlots: Record<string, unknown> = { canceled: all.length };
        if (has(intent.slots, 'area')) speechSlots.area = intent.slots.area.value;
        return done(intent).setSpeechSlots(speechSlots);
      },
    },
    {
      intentType: 'CoreIncreaseTimer',
      description: 'Adds more time to a timer',
      slotSchema: { ...AMOUNT, ...WHICH },
      // the original asks no amount here (unlike decrease): none adds nothing
      async handle(intent) {
        const seconds = totalSeconds(intent.slots);
        await timers.addTime(pick(intent).id, seconds, intent.context);
        return done(intent);
      },
    },
    {
      intentType: 'CoreDecreaseTimer',
      description: 'Removes time from a timer',
      slotSchema: { ...AMOUNT, ...WHICH },
      async handle(intent) {
        requireDuration(intent);
        const seconds = totalSeconds(intent.slots);
        await timers.addTime(pick(intent).id, -seconds, intent.context);
        return done(intent);
      },
    },
    {
      intentType: 'CorePauseTimer',
      description: 'Pauses a running timer',
      slotSchema: WHICH,
      async handle(intent) {
        await timers.pause(pick(intent, 'only_active').id, intent.context);
        return done(intent);
      },
    },
    {
      intentType: 'CoreUnpauseTimer',
      description: 'Resumes a paused timer',
      slotSchema: WHICH,
      async handle(intent) {
        await timers.unpause(pick(intent, 'only_inactive').id, intent.context);
        return done(intent);
      },
    },
    {
      intentType: 'CoreTimerStatus',
      description: 'Reports the current status of timers',
      slotSchema: WHICH,
      async handle(intent) {
        const statuses = findTimers(timers.list(), places, intent.deviceId, intent.slots).map((t) => {
          const total = timers.secondsLeft(t.id);
          const seconds = total % 60;
          const minutes = Math.floor(total / 60) % 60;
          const hours = Math.floor(total / 3600);
          const [rh, rm, rs] = roundTime(hours, minutes, seconds);
          return {
            id: t.id,
            name: t.name ?? '',
            device_id: t.device_id ?? '',
            language: t.language,
            start_hours: t.start_hours ?? 0,
            start_minutes: t.start_minutes ?? 0,
            start_seconds: t.start_seconds ?? 0,
            is_active: t.is_active,
            hours_left: hours,
            minutes_left: minutes,
            seconds_left: seconds,
            rounded_hours_left: rh,
            rounded_minutes_left: rm,
            rounded_seconds_left: rs,
            total_seconds_left: total,
          };
        });
        return done(intent).setSpeechSlots({ timers: statuses });
      },
    },
  ];
}

/** Registers the timer intents with a registry. */
export function registerTimerIntents(registry: IntentRegistry, timers: TimerManager, places?: TimerPlaces): void {
  for (const handler of timerIntentHandlers(timers, places)) registry.register(handler);
}

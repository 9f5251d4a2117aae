import type { IntentHome } from '../platforms.ts';
import { IntentResponse } from '../response.ts';
import { slotValue, str } from '../slots.ts';
import { stateName } from '../targeting.ts';
import type { IntentHandler, IntentTarget } from '../types.ts';

/** The parts of a time in a zone, as Python's datetime has them. */
function zonedParts(epochMs: number, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(Math.floor(epochMs)))
      .map((p) => [p.type, p.value]),
  );
  // the clock has microseconds; isoformat() leaves them out when there are none
  const micros = Math.round((epochMs - Math.floor(epochMs / 1000) * 1000) * 1000) % 1_000_000;
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0')}`;
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}${fraction}` };
}

/** CoreGetCurrentDate / CoreGetCurrentTime: the date or time in the configured zone, as speech slots (isoformat). */
export function clockIntents(home: IntentHome): IntentHandler[] {
  const now = () => zonedParts(home.clock.now(), home.coreConfig.timeZone());
  return [
    {
      intentType: 'CoreGetCurrentDate',
      description: 'Gets the current date',
      async handle(intent) {
        return new IntentResponse(intent.language).setSpeechSlots({ date: now().date });
      },
    },
    {
      intentType: 'CoreGetCurrentTime',
      description: 'Gets the current time',
      async handle(intent) {
        return new IntentResponse(intent.language).setSpeechSlots({ time: now().time });
      },
    },
  ];
}

/** CoreNevermind: does nothing, an empty action_done. */
export const nevermindIntent: IntentHandler = {
  intentType: 'CoreNevermind',
  description: 'Cancels the current request and does nothing',
  async handle(intent) {
    return new IntentResponse(intent.language);
  },
};

/** CoreRespond: speaks the optional `response` slot, nothing else. */
export const respondIntent: IntentHandler = {
  intentType: 'CoreRespond',
  description: 'Returns the provided response with no action.',
  slotSchema: { response: { validator: str } },
  async handle(intent) {
    const response = new IntentResponse(intent.language);
    const text = slotValue<string>(intent.slots, 'response');
    if (text !== undefined) response.setSpeech(text);
    return response;
  },
};

/** The assist satellite feature bit for announcements. */
const ANNOUNCE = 1;

/**
 * CoreBroadcast (the assist_satellite integration's): announces `message` on every satellite
 * that can announce, except the asking device's, and lists them as successes. Hearth has no
 * satellites, so this answers as the original does when there are none: action_done with no
 * targets (the original's announce call with an empty target does nothing).
 */
export function broadcastIntent(home: IntentHome): IntentHandler {
  return {
    intentType: 'CoreBroadcast',
    description: 'Broadcast a message through the home',
    slotSchema: {
      message: {
        required: true,
        validator: (v) => {
          if (typeof v !== 'string') throw new Error('expected str');
          return v;
        },
      },
    },
    async handle(intent) {
      const satellites: string[] = [];
      for (const state of home.entities.states()) {
        if (!state.entity_id.startsWith('assist_satellite.')) continue;
        const entry = home.registries.getEntity(state.entity_id);
        if (!entry || !(entry.supported_features & ANNOUNCE)) continue;
        if (intent.deviceId && entry.device_id === intent.deviceId) continue;
        satellites.push(state.entity_id);
      }
      if (satellites.length && home.services.has('assist_satellite', 'announce')) {
        await home.services.call({ domain: 'assist_satellite', service: 'announce', data: { message: slotValue(intent.slots, 'message'), entity_id: satellites }, context: intent.context, returnResponse: false });
      }
      const response = new IntentResponse(intent.language);
      response.setResults(
        satellites.map((id): IntentTarget => {
          const state = home.entities.get(id);
          return { name: state ? stateName(state) : id, type: 'entity', id };
        }),
      );
      return response;
    },
  };
}

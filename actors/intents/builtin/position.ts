import { IntentHandleError } from '../errors.ts';
import type { IntentHome } from '../platforms.ts';
import { serviceIntentHandler } from '../service-intent.ts';
import { intRange } from '../slots.ts';
import type { IntentHandler } from '../types.ts';

const COVER_VALVE_CLASSES = ['awning', 'blind', 'curtain', 'damper', 'door', 'garage', 'gate', 'shade', 'shutter', 'window', 'water', 'gas'];
const domainOf = (entityId: string) => entityId.slice(0, entityId.indexOf('.'));

/** CoreSetPosition (`position` 0–100) and CoreStopMoving: covers and valves only. */
export function positionIntents(home: IntentHome): IntentHandler[] {
  const pick = (cover: string, valve: string) => (state: { entity_id: string }) => {
    const domain = domainOf(state.entity_id);
    if (domain === 'cover') return { domain, service: cover };
    if (domain === 'valve') return { domain, service: valve };
    throw new IntentHandleError(`Domain not supported: ${domain}`);
  };
  return [
    serviceIntentHandler(home, {
      intentType: 'CoreSetPosition',
      description: 'Sets the position of a device or entity',
      requiredSlots: { position: { validator: intRange(0, 100) } },
      deviceClasses: COVER_VALVE_CLASSES,
      serviceFor: pick('set_cover_position', 'set_valve_position'),
    }),
    serviceIntentHandler(home, {
      intentType: 'CoreStopMoving',
      description: 'Stops a moving device or entity',
      deviceClasses: COVER_VALVE_CLASSES,
      serviceFor: pick('stop_cover', 'stop_valve'),
    }),
  ];
}

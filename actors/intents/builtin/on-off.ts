import type { EntityState } from '../../entities/types.ts';
import { IntentHandleError } from '../errors.ts';
import type { IntentHome } from '../platforms.ts';
import { serviceIntentHandler } from '../service-intent.ts';
import type { IntentHandler } from '../types.ts';

/** Device classes the on/off intents accept (the original's ONOFF_DEVICE_CLASSES: cover, valve, switch, media player). */
export const ONOFF_DEVICE_CLASSES = [
  'awning', 'blind', 'curtain', 'damper', 'door', 'garage', 'gate', 'shade', 'shutter', 'window',
  'water', 'gas',
  'outlet', 'switch',
  'tv', 'speaker', 'receiver',
];

const domainOf = (entityId: string) => entityId.slice(0, entityId.indexOf('.'));

/**
 * The service an on/off intent calls for one entity (the original's OnOffIntentHandler): covers
 * and valves open and close, locks lock and unlock, buttons are pressed and scenes and scripts
 * turned on through their own service; any other domain goes through `core.<service>` when it
 * has that service itself, else this entity fails with `Service <service> does not support
 * entity <id>`.
 */
function onOffRoute(home: IntentHome) {
  return (state: EntityState, target: { domain: string; service: string }) => {
    const on = target.service === 'turn_on';
    const domain = domainOf(state.entity_id);
    switch (domain) {
      case 'cover':
        return { domain, service: on ? 'open_cover' : 'close_cover' };
      case 'lock':
        return { domain, service: on ? 'lock' : 'unlock' };
      case 'valve':
        return { domain, service: on ? 'open_valve' : 'close_valve' };
    }
    if (on && (domain === 'button' || domain === 'input_button')) return { domain, service: 'press' };
    if (on && (domain === 'scene' || domain === 'script')) return { domain, service: 'turn_on' };
    if (!home.services.has(domain, target.service)) throw new IntentHandleError(`Service ${target.service} does not support entity ${state.entity_id}`);
    return target;
  };
}

/** CoreTurnOn, CoreTurnOff and CoreToggle. */
export function onOffIntents(home: IntentHome): IntentHandler[] {
  return [
    serviceIntentHandler(home, {
      intentType: 'CoreTurnOn',
      description: 'Turns on/opens/presses a device or entity',
      domain: 'core',
      service: 'turn_on',
      deviceClasses: ONOFF_DEVICE_CLASSES,
      routeCall: onOffRoute(home),
    }),
    serviceIntentHandler(home, {
      intentType: 'CoreTurnOff',
      description: 'Turns off/closes a device or entity',
      domain: 'core',
      service: 'turn_off',
      deviceClasses: ONOFF_DEVICE_CLASSES,
      routeCall: onOffRoute(home),
    }),
    serviceIntentHandler(home, {
      intentType: 'CoreToggle',
      description: 'Toggles a device or entity',
      domain: 'core',
      service: 'toggle',
      deviceClasses: ONOFF_DEVICE_CLASSES,
    }),
  ];
}

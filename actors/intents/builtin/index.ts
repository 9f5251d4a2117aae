import type { IntentPlatform } from '../platforms.ts';
import { getStateIntent } from './get-state.ts';
import { onOffIntents } from './on-off.ts';
import { positionIntents } from './position.ts';
import { broadcastIntent, clockIntents, nevermindIntent, respondIntent } from './simple.ts';
import { climateTemperatureIntent } from './temperature.ts';

/**
 * The `intent` integration's own handlers: CoreTurnOn, CoreTurnOff, CoreToggle, CoreGetState,
 * CoreNevermind, CoreSetPosition, CoreStopMoving, CoreGetCurrentDate, CoreGetCurrentTime,
 * CoreRespond, CoreClimateGetTemperature, and CoreBroadcast (the original's assist_satellite
 * registers that one; Hearth has no such integration, so the built-ins carry it).
 */
export const builtinIntents: IntentPlatform = (registry, home) => {
  for (const handler of [
    ...onOffIntents(home),
    getStateIntent(home),
    nevermindIntent,
    ...positionIntents(home),
    ...clockIntents(home),
    respondIntent,
    climateTemperatureIntent(home),
    broadcastIntent(home),
  ]) {
    registry.register(handler);
  }
};

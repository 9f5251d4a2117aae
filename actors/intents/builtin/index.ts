import type { IntentPlatform } from '../platforms.ts';
import { getStateIntent } from './get-state.ts';
import { lightSetIntent } from './light.ts';
import { mediaPlayerIntents } from './media-player.ts';
import { onOffIntents } from './on-off.ts';
import { positionIntents } from './position.ts';
import { broadcastIntent, clockIntents, nevermindIntent, respondIntent } from './simple.ts';
import { climateSetTemperatureIntent, climateTemperatureIntent } from './temperature.ts';

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

/**
 * The intent platforms of the entity domains, each set up when its domain is loaded (as the
 * original's light, climate and media_player integrations register theirs): CoreLightSet;
 * CoreClimateSetTemperature; CoreMediaPause, CoreMediaUnpause, CoreMediaNext, CoreMediaPrevious
 * and CoreSetVolume.
 */
export const domainIntents: Record<string, IntentPlatform> = {
  light: (registry, home) => registry.register(lightSetIntent(home)),
  climate: (registry, home) => registry.register(climateSetTemperatureIntent(home)),
  media_player: (registry, home) => {
    for (const handler of mediaPlayerIntents(home)) registry.register(handler);
  },
};

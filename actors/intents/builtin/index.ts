import type { IntentPlatform } from '../platforms.ts';

/** The `intent` integration's own handlers (CoreTurnOn, CoreGetState, ...). */
export const builtinIntents: IntentPlatform = () => {};

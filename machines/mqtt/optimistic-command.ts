// The optimistic mode of MQTT entities: a command is published and, when the entity is optimistic
// (its `optimistic` option, or no state topic), also taken at once instead of waiting for the
// device to report it.

/** The `optimistic` guard: the entity takes its commands at once. */
export const isOptimistic = ({ context }: { context: { optimistic: boolean } }) => context.optimistic;

/**
 * A command's transitions (after any refusal): publish it, and in optimistic mode also `assume`
 * what it sets. Wants the machine's `optimistic` guard (isOptimistic).
 */
export function publishAndAssumeIfOptimistic<P extends string, A extends string>(publish: P, assume: A) {
  return [{ guard: 'optimistic' as const, actions: [publish, assume] as [P, A] }, { actions: publish }];
}

/**
 * toggle as the original's ToggleEntity: what is on turns off, anything else (off or unknown)
 * turns on. Wants the machine's `isOn` guard and `turnOffInstead` / `turnOnInstead` actions.
 */
export function toggleByTurningOffOrOn() {
  return [{ guard: 'isOn' as const, actions: 'turnOffInstead' as const }, { actions: 'turnOnInstead' as const }];
}

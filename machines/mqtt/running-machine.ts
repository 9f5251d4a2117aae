// The shape most MQTT entities' machines have: one `running` state in which a message from the
// entity's topics is taken (the `take` action) and its services' calls make their transitions.

/**
 * The config of a machine that starts from its input as its context and runs in one state,
 * `running`: `message` takes what the entity's topics say, `on` holds the service transitions.
 */
export function runningOnMessages<const On extends object>(id: string, on: On) {
  return {
    id,
    context: <I extends object>({ input }: { input: I }) => ({ ...input }),
    initial: 'running' as const,
    states: { running: { on: { message: { actions: 'take' as const }, ...on } } },
  };
}

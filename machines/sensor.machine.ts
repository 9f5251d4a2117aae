import { setup } from 'xstate';

/** What a read-only entity (sensor, binary_sensor) starts from: its state text. */
export interface SensorInput {
  value: string;
}

export type SensorContext = SensorInput;

/**
 * A read-only entity: it holds the value it started with. Its later values are states posted
 * for it (POST /api/states), which the entity layer writes directly; a restart starts from the
 * last of them.
 */
export const sensorMachine = setup({
  types: {
    context: {} as SensorContext,
    input: {} as SensorInput,
  },
}).createMachine({
  id: 'sensor',
  context: ({ input }) => input,
  initial: 'reading',
  states: {
    reading: {},
  },
});

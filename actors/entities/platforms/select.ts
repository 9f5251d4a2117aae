import { Type } from '@sinclair/typebox';
import type { PlatformService } from './types.ts';

/**
 * select: the domain's services (the original's select component): select_option, and moving
 * through the options (first, last, next and previous, cycling unless told not to). Hearth has
 * no virtual select platform; the platforms that make select entities (MQTT) take these.
 */
const target = { entity: [{ domain: ['select'] }] };
const NO_DATA = Type.Object({}, { additionalProperties: false });
const CYCLE = Type.Object({ cycle: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

function cycleService(service: 'select_next' | 'select_previous', name: string, description: string, cycleDescription: string): PlatformService {
  return {
    service,
    description: { name, description, fields: { cycle: { default: true, selector: { boolean: {} }, name: 'Cycle', description: cycleDescription } }, target },
    schema: CYCLE,
    toEvent: (data) => ({ type: service, cycle: data.cycle ?? true }),
  };
}

export const selectServices: PlatformService[] = [
  {
    service: 'select_first',
    description: { name: 'First', description: 'Selects the first option.', fields: {}, target },
    schema: NO_DATA,
    toEvent: () => ({ type: 'select_first' }),
  },
  {
    service: 'select_last',
    description: { name: 'Last', description: 'Selects the last option.', fields: {}, target },
    schema: NO_DATA,
    toEvent: () => ({ type: 'select_last' }),
  },
  cycleService('select_next', 'Next', 'Selects the next option.', 'If the option should cycle from the last to the first.'),
  {
    service: 'select_option',
    description: {
      name: 'Select',
      description: 'Selects an option.',
      fields: { option: { required: true, example: '"Item A"', selector: { state: { hide_states: ['unavailable', 'unknown'] } }, name: 'Option', description: 'Option to be selected.' } },
      target,
    },
    // cv.string
    schema: Type.Object({ option: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }, { additionalProperties: false }),
    toEvent: (data) => ({ type: 'select_option', option: typeof data.option === 'boolean' ? (data.option ? 'True' : 'False') : String(data.option) }),
  },
  cycleService('select_previous', 'Previous', 'Selects the previous option.', 'If the option should cycle from the first to the last.'),
];

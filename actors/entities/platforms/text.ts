import { Type } from '@sinclair/typebox';
import type { PlatformService } from './types.ts';

/**
 * text: the domain's service (the original's text component): set_value. Hearth has no virtual
 * text platform; the platforms that make text entities (MQTT) take it. Each value is checked
 * against the entity's min, max and pattern by its machine.
 */
export const textServices: PlatformService[] = [
  {
    service: 'set_value',
    description: {
      name: 'Set value',
      description: 'Sets the value.',
      fields: { value: { required: true, example: 'Hello world!', selector: { text: {} }, name: 'Value', description: 'Enter your text.' } },
      target: { entity: [{ domain: ['text'] }] },
    },
    // cv.string
    schema: Type.Object({ value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }, { additionalProperties: false }),
    toEvent: (data) => ({ type: 'set_value', value: typeof data.value === 'boolean' ? (data.value ? 'True' : 'False') : String(data.value) }),
  },
];

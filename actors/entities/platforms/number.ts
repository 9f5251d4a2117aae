import { Type } from '@sinclair/typebox';
import { FLOAT_TEXT } from '../domains/input_number.ts';
import type { PlatformService } from './types.ts';
import { parseFloatText } from '../../../machines/python/float.ts';

/**
 * number: the domain's services (the original's number component). Hearth has no virtual number
 * platform; the platforms that make number entities (MQTT) take these. Each call's value is
 * checked against the entity's range by its machine.
 */
export const numberServices: PlatformService[] = [
  {
    service: 'set_value',
    description: {
      name: 'Set',
      description: 'Sets the value of a number.',
      fields: { value: { required: true, example: 42, selector: { text: {} }, name: 'Value', description: 'The target value to set.' } },
      target: { entity: [{ domain: ['number'] }] },
    },
    // vol.Coerce(float)
    schema: Type.Object({ value: Type.Union([Type.Number(), Type.String({ pattern: FLOAT_TEXT })]) }, { additionalProperties: false }),
    toEvent: (data) => ({ type: 'set_value', value: typeof data.value === 'number' ? data.value : (parseFloatText(String(data.value)) ?? NaN) }),
  },
];

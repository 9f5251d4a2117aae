import { parseIntText } from '../../../machines/python/float.ts';
import { Type } from '@sinclair/typebox';
import { clampCount, counterMachine, type CounterConfig } from '../../../machines/counter.machine.ts';
import type { HelperDomain } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'counter';

const optionalInt = cv.maybe(cv.coerceInt);

function parseItem(raw: Record<string, unknown>, objectId: string): CounterConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['icon', 'initial', 'name', 'maximum', 'minimum', 'restore', 'step']);
  const config: CounterConfig = {
    initial: item.optional('initial', cv.positiveInt, 0),
    maximum: item.optional('maximum', optionalInt, null),
    minimum: item.optional('minimum', optionalInt, null),
    restore: item.optional('restore', cv.boolean, true),
    step: item.optional('step', cv.positiveInt, 1),
  };
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  return config;
}

/** An integer as the original's int() reads a string. */
export const INT_TEXT = '^\\s*[+-]?\\d(?:_?\\d)*\\s*$';

const NO_DATA = Type.Object({}, { additionalProperties: false });
const target = targetOf(DOMAIN);

/** counter: an integer that goes up and down by its step. */
export const counterDomain: HelperDomain<CounterConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: counterMachine,
  // the last count comes back (inside the limits) unless `restore: false`; else `initial`, which the
  // original does not move inside the limits until the first change
  input: (item, restored) => {
    const { config } = item;
    let value = config.initial;
    if (config.restore && restored) {
      // the original's int() raises on a state that is no integer and the counter is not set up;
      // we start from `initial` instead
      const last = parseIntText(restored.state);
      if (last !== undefined) value = clampCount(config, last);
    }
    return { entityId: `${DOMAIN}.${item.objectId}`, config, value };
  },
  render: (snapshot) => {
    const config: CounterConfig = snapshot.context.config;
    const attributes: Record<string, unknown> = {
      // editable is false: these items come from configuration.yaml, not the UI's storage
      editable: false,
      initial: config.initial,
      step: config.step,
    };
    if (config.minimum !== null) attributes.minimum = config.minimum;
    if (config.maximum !== null) attributes.maximum = config.maximum;
    return { state: String(snapshot.context.value), attributes: { ...attributes, ...commonAttributes(config) } };
  },
  services: [
    {
      service: 'increment',
      description: { name: 'Increment', description: 'Increments a counter by its step size.', fields: {}, target },
      schema: NO_DATA,
      toEvent: () => ({ type: 'increment' }),
    },
    {
      service: 'decrement',
      description: { name: 'Decrement', description: 'Decrements a counter by its step size.', fields: {}, target },
      schema: NO_DATA,
      toEvent: () => ({ type: 'decrement' }),
    },
    {
      service: 'reset',
      description: { name: 'Reset', description: 'Resets a counter to its initial value.', fields: {}, target },
      schema: NO_DATA,
      toEvent: () => ({ type: 'reset' }),
    },
    {
      service: 'set_value',
      description: {
        name: 'Set',
        description: 'Sets the counter to a specific value.',
        fields: {
          value: {
            required: true,
            selector: { number: { min: 0, max: 9223372036854775807, mode: 'box' } },
            name: 'Value',
            description: 'The new counter value the entity should be set to.',
          },
        },
        target,
      },
      // vol.Coerce(int): integers, floats (truncated as int() does) and strings holding an integer
      schema: Type.Object({ value: Type.Union([Type.Number(), Type.String({ pattern: INT_TEXT })]) }, { additionalProperties: false }),
      toEvent: (data) => ({
        type: 'set_value',
        value: typeof data.value === 'number' ? Math.trunc(data.value) : (parseIntText(String(data.value)) as number),
      }),
    },
  ],
};

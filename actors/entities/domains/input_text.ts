import { Type } from '@sinclair/typebox';
import { inputTextMachine, matchesPattern, textLength, type InputTextConfig } from '../../../machines/input_text.machine.ts';
import type { HelperDomain } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'input_text';

const regexSource = refine(cv.string, (pattern) => {
  try {
    matchesPattern('', pattern);
  } catch {
    // the original stores any string and never compiles it; a pattern no value can be checked
    // against is refused here instead of failing every set_value later
    throw new Refusal(`invalid regular expression ${pattern}`);
  }
  return pattern;
});

function parseItem(raw: Record<string, unknown>, objectId: string): InputTextConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'min', 'max', 'initial', 'icon', 'unit_of_measurement', 'pattern', 'mode']);
  const config: InputTextConfig = {
    min: item.optional('min', cv.coerceInt, 0),
    max: item.optional('max', cv.coerceInt, 100),
    mode: item.optional('mode', cv.oneOf(['text', 'password'] as const), 'text'),
  };
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('initial')) config.initial = item.required('initial', cv.string);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  if (item.has('unit_of_measurement')) config.unit_of_measurement = item.required('unit_of_measurement', cv.string);
  if (item.has('pattern')) config.pattern = item.required('pattern', regexSource);
  // (the original's message names the two lengths the other way round)
  if (config.min > config.max) throw item.error(undefined, `Max len (${config.max}) is not greater than min len (${config.min})`);
  if (config.initial !== undefined) {
    const length = textLength(config.initial);
    if (length < config.min || length > config.max) {
      throw item.error('initial', `Initial value ${config.initial} length not in range ${config.min}-${config.max}`);
    }
  }
  return config;
}

/** input_text: a text the user types. */
export const inputTextDomain: HelperDomain<InputTextConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: inputTextMachine,
  // `initial` wins; else the restored state (whatever text it was) when its length fits; else unknown
  input: (item, restored) => {
    const { initial, min, max } = item.config;
    let value: string | null = initial ?? null;
    if (value === null && restored) {
      const length = textLength(restored.state);
      if (length >= min && length <= max) value = restored.state;
    }
    return { entityId: `${DOMAIN}.${item.objectId}`, config: item.config, value };
  },
  render: (snapshot) => {
    const config: InputTextConfig = snapshot.context.config;
    return {
      state: snapshot.context.value ?? 'unknown',
      attributes: {
        // editable is false: these items come from configuration.yaml, not the UI's storage
        editable: false,
        min: config.min,
        max: config.max,
        pattern: config.pattern ?? null,
        mode: config.mode,
        ...commonAttributes(config),
      },
    };
  },
  services: [
    {
      service: 'set_value',
      description: {
        name: 'Set',
        description: 'Sets the value.',
        fields: {
          value: {
            required: true,
            example: 'This is an example text',
            selector: { text: null },
            name: 'Value',
            description: 'The target value.',
          },
        },
        target: targetOf(DOMAIN),
      },
      // cv.string: any scalar, as its str()
      schema: Type.Object({ value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }, { additionalProperties: false }),
      toEvent: (data) => ({ type: 'set_value', value: cv.convert(cv.string, data.value) }),
    },
  ],
};

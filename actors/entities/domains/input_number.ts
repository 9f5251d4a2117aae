import { Type } from '@sinclair/typebox';
import { floatRepr, parseFloatText } from '../../../machines/python/float.ts';
import { inputNumberMachine, pyFloatState, type InputNumberConfig } from '../../../machines/input_number.machine.ts';
import type { HelperDomain } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'input_number';

const positiveStep = refine(cv.coerceFloat, (step) => {
  if (!(step >= 1e-9)) throw new Refusal('value must be at least 1e-09');
  return step;
});

function parseItem(raw: Record<string, unknown>, objectId: string): InputNumberConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'min', 'max', 'initial', 'step', 'icon', 'unit_of_measurement', 'mode']);
  const config: InputNumberConfig = {
    min: item.required('min', cv.coerceFloat),
    max: item.required('max', cv.coerceFloat),
    step: item.optional('step', positiveStep, 1),
    mode: item.optional('mode', cv.oneOf(['box', 'slider'] as const), 'slider'),
  };
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('initial')) config.initial = item.required('initial', cv.coerceFloat);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  if (item.has('unit_of_measurement')) config.unit_of_measurement = item.required('unit_of_measurement', cv.string);
  // (the original's message names the two values the other way round)
  if (config.min >= config.max) {
    throw item.error(undefined, `Maximum (${floatRepr(config.max)}) is not greater than minimum (${floatRepr(config.min)})`);
  }
  if (config.initial !== undefined && (config.initial < config.min || config.initial > config.max)) {
    throw item.error('initial', `Initial value ${floatRepr(config.initial)} not in range ${floatRepr(config.min)}-${floatRepr(config.max)}`);
  }
  return config;
}

/** A number as the original's float() reads a string (nan left out: it would pass any range check). */
export const FLOAT_TEXT = '^\\s*[+-]?(?:(?:\\d(?:_?\\d)*(?:\\.(?:\\d(?:_?\\d)*)?)?|\\.\\d(?:_?\\d)*)(?:[eE][+-]?\\d(?:_?\\d)*)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)\\s*$';

const NO_DATA = Type.Object({}, { additionalProperties: false });
const target = targetOf(DOMAIN);

/** input_number: a value set with a slider or a box. */
export const inputNumberDomain: HelperDomain<InputNumberConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: inputNumberMachine,
  // `initial` wins; else the restored state when it is a number within [min, max]; else min
  input: (item, restored) => {
    const { initial, min, max } = item.config;
    let value = initial;
    if (value === undefined) {
      const last = restored ? (parseFloatText(restored.state) ?? NaN) : NaN;
      value = last >= min && last <= max ? last : min;
    }
    return { entityId: `${DOMAIN}.${item.objectId}`, config: item.config, value };
  },
  render: (snapshot) => {
    const config: InputNumberConfig = snapshot.context.config;
    return {
      state: pyFloatState(snapshot.context.value),
      attributes: {
        initial: config.initial ?? null,
        // editable is false: these items come from configuration.yaml, not the UI's storage
        editable: false,
        min: config.min,
        max: config.max,
        step: config.step,
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
        description: 'Sets the value of an input number.',
        fields: {
          value: {
            required: true,
            selector: { number: { min: 0, max: 9223372036854775807, step: 0.001, mode: 'box' } },
            name: 'Value',
            description: 'The target value.',
          },
        },
        target,
      },
      // vol.Coerce(float): numbers, and strings holding one
      schema: Type.Object({ value: Type.Union([Type.Number(), Type.String({ pattern: FLOAT_TEXT })]) }, { additionalProperties: false }),
      toEvent: (data) => ({ type: 'set_value', value: typeof data.value === 'number' ? data.value : (parseFloatText(String(data.value)) ?? NaN) }),
    },
    {
      service: 'increment',
      description: { name: 'Increment', description: 'Increments the value of an input number by 1 step.', fields: {}, target },
      schema: NO_DATA,
      toEvent: () => ({ type: 'increment' }),
    },
    {
      service: 'decrement',
      description: { name: 'Decrement', description: 'Decrements the value of an input number by 1 step.', fields: {}, target },
      schema: NO_DATA,
      toEvent: () => ({ type: 'decrement' }),
    },
  ],
};

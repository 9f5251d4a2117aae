import { Type } from '@sinclair/typebox';
import { inputSelectMachine, type InputSelectConfig } from '../../../machines/input_select.machine.ts';
import type { HelperDomain, HelperService } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'input_select';

function parseItem(raw: Record<string, unknown>, objectId: string): InputSelectConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'options', 'initial', 'icon']);
  const options = item.required('options', cv.nonEmptyStringList);
  const config: InputSelectConfig = { options };
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('initial')) config.initial = item.required('initial', cv.string);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  if (config.initial !== undefined && !options.includes(config.initial)) {
    throw item.error('initial', `initial state ${config.initial} is not part of the options: ${options.join(',')}`);
  }
  // the original drops repeated options of a YAML item (with a warning) rather than refusing them
  config.options = [...new Set(options)];
  return config;
}

const NO_DATA = Type.Object({}, { additionalProperties: false });
// cv.string: any scalar, as its str()
const SCALAR = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const CYCLE = Type.Object({ cycle: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const target = targetOf(DOMAIN);

function simpleService(service: string, name: string, description: string): HelperService {
  return { service, description: { name, description, fields: {}, target }, schema: NO_DATA, toEvent: () => ({ type: service }) };
}

function cycleService(service: string, name: string, description: string, cycleDescription: string): HelperService {
  return {
    service,
    description: {
      name,
      description,
      fields: { cycle: { default: true, selector: { boolean: null }, name: 'Cycle', description: cycleDescription } },
      target,
    },
    schema: CYCLE,
    toEvent: (data) => ({ type: service, cycle: data.cycle ?? true }),
  };
}

/** input_select: one option out of a list. */
export const inputSelectDomain: HelperDomain<InputSelectConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: inputSelectMachine,
  // `initial` wins; else the restored state when it is one of the options; else the first option
  input: (item, restored) => {
    const { initial, options } = item.config;
    const current = initial ?? (restored && options.includes(restored.state) ? restored.state : options[0]);
    return { entityId: `${DOMAIN}.${item.objectId}`, config: item.config, current };
  },
  render: (snapshot) => {
    const { options, current, config } = snapshot.context as { options: string[]; current: string | null; config: InputSelectConfig };
    return {
      // a selection that is no longer offered (after a reload) shows as unknown, as the original's select entity does
      state: current !== null && options.includes(current) ? current : 'unknown',
      // editable is false: these items come from configuration.yaml, not the UI's storage
      attributes: { options: [...options], editable: false, ...commonAttributes(config) },
    };
  },
  services: [
    simpleService('select_first', 'First', 'Selects the first option.'),
    simpleService('select_last', 'Last', 'Selects the last option.'),
    cycleService('select_next', 'Next', 'Selects the next option.', 'If the option should cycle from the last to the first option on the list.'),
    {
      service: 'select_option',
      description: {
        name: 'Select',
        description: 'Selects an option.',
        fields: {
          option: { required: true, example: '"Item A"', selector: { text: null }, name: 'Option', description: 'Option to be selected.' },
        },
        target,
      },
      schema: Type.Object({ option: SCALAR }, { additionalProperties: false }),
      toEvent: (data) => ({ type: 'select_option', option: cv.convert(cv.string, data.option) }),
    },
    cycleService(
      'select_previous',
      'Previous',
      'Selects the previous option.',
      'If the option should cycle from the first to the last option on the list.',
    ),
    {
      service: 'set_options',
      description: {
        name: 'Set options',
        description: 'Sets the options.',
        fields: {
          options: {
            required: true,
            example: '["Item A", "Item B", "Item C"]',
            selector: { object: null },
            name: 'Options',
            description: 'List of options.',
          },
        },
        target,
      },
      // cv.ensure_list, at least one, each a cv.string
      schema: Type.Object({ options: Type.Union([Type.Array(SCALAR, { minItems: 1 }), SCALAR]) }, { additionalProperties: false }),
      toEvent: (data) => ({ type: 'set_options', options: cv.convert(cv.nonEmptyStringList, data.options) }),
    },
  ],
};

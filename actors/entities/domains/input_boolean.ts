import { Type } from '@sinclair/typebox';
import { inputBooleanMachine, type InputBooleanConfig } from '../../../machines/input_boolean.machine.ts';
import type { HelperDomain, HelperService } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'input_boolean';

function parseItem(raw: Record<string, unknown>, objectId: string): InputBooleanConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'initial', 'icon']);
  const config: InputBooleanConfig = {};
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('initial')) config.initial = item.required('initial', cv.boolean);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  return config;
}

// turn_on, turn_off and toggle take no data beyond their target
const NO_DATA = Type.Object({}, { additionalProperties: false });

function toggleService(service: string, name: string, description: string): HelperService {
  return {
    service,
    description: { name, description, fields: {}, target: targetOf(DOMAIN) },
    schema: NO_DATA,
    toEvent: () => ({ type: service }),
  };
}

/** input_boolean: user-controlled switches. */
export const inputBooleanDomain: HelperDomain<InputBooleanConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: inputBooleanMachine,
  // `initial` wins over the restored state; without either the switch starts off
  input: (item, restored) => ({
    entityId: `${DOMAIN}.${item.objectId}`,
    config: item.config,
    on: item.config.initial ?? restored?.state === 'on',
  }),
  render: (snapshot) => ({
    state: snapshot.value === 'on' ? 'on' : 'off',
    // editable is false: these items come from configuration.yaml, not the UI's storage
    attributes: { editable: false, ...commonAttributes(snapshot.context.config) },
  }),
  services: [
    toggleService('turn_on', 'Turn on', 'Turns on an input boolean.'),
    toggleService('turn_off', 'Turn off', 'Turns off an input boolean.'),
    toggleService('toggle', 'Toggle', 'Toggles an input boolean on/off.'),
  ],
};

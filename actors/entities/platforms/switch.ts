import { Type } from '@sinclair/typebox';
import { switchMachine } from '../../../machines/switch.machine.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'switch';

/** Options of a virtual switch. */
export interface SwitchOptions {
  /** the state of the first start (a restart restores the last one) */
  initial: boolean;
}

const NO_DATA = Type.Object({}, { additionalProperties: false });
const target = { entity: [{ domain: [DOMAIN] }] };

function onOffService(service: 'turn_on' | 'turn_off' | 'toggle', name: string, description: string): PlatformService {
  return { service, description: { name, description, fields: {}, target }, schema: NO_DATA, toEvent: () => ({ type: service }) };
}

/** switch: on or off (device classes outlet and switch). */
export const switchDomain: PlatformDomain<SwitchOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial'],
  deviceClasses: ['outlet', 'switch'],
  parseOptions: (entry) => ({ initial: entry.optional('initial', cv.boolean, false) }),
  supportedFeatures: () => undefined,
  machine: switchMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    return { on: last ? last.state === 'on' : entry.options.initial };
  },
  render: (snapshot) => ({ state: snapshot.value === 'on' ? 'on' : 'off', attributes: {} }),
  services: [
    onOffService('turn_on', 'Turn on', 'Turns a switch on.'),
    onOffService('turn_off', 'Turn off', 'Turns a switch off.'),
    onOffService('toggle', 'Toggle', 'Toggles a switch on/off.'),
  ],
};

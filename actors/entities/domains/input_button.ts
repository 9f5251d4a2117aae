import { Type } from '@sinclair/typebox';
import { inputButtonMachine, type InputButtonConfig } from '../../../machines/input_button.machine.ts';
import { isoformat } from '../../../machines/python/isoformat.ts';
import type { HelperDomain } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'input_button';

function parseItem(raw: Record<string, unknown>, objectId: string): InputButtonConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'icon']);
  const config: InputButtonConfig = {};
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  return config;
}

/** input_button: a button whose state is the time of its last press. */
export const inputButtonDomain: HelperDomain<InputButtonConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: inputButtonMachine,
  // a button restores whatever its last state said, unless it was unavailable
  input: (item, restored) => ({
    entityId: `${DOMAIN}.${item.objectId}`,
    config: item.config,
    restored: restored && restored.state !== 'unavailable' && restored.state !== 'unknown' ? restored.state : null,
  }),
  render: (snapshot) => {
    const { pressedAt, restored, config } = snapshot.context as { pressedAt: number | null; restored: string | null; config: InputButtonConfig };
    return {
      state: pressedAt !== null ? isoformat(pressedAt) : (restored ?? 'unknown'),
      // editable is false: these items come from configuration.yaml, not the UI's storage
      attributes: { editable: false, ...commonAttributes(config) },
    };
  },
  services: [
    {
      service: 'press',
      description: { name: 'Press', description: 'Mimics a physical button press on a device.', fields: {}, target: targetOf(DOMAIN) },
      schema: Type.Object({}, { additionalProperties: false }),
      // the actor layer adds `time` (epoch ms of the call) to the event; the machine reads no clock
      toEvent: () => ({ type: 'press' }),
    },
  ],
};

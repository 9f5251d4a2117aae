import { Type } from '@sinclair/typebox';
import type { PlatformDomain } from './types.ts';
import { lastPressParts } from './last-press.ts';

/**
 * button: its state is the time of its last press (`unknown` before the first). It presses as an
 * input_button does, so it shares that machine.
 */
export const buttonDomain: PlatformDomain<Record<string, never>> = {
  ...lastPressParts,
  domain: 'button',
  deviceClasses: ['identify', 'restart', 'update'],
  services: [
    {
      service: 'press',
      description: { name: 'Press', description: 'Press the button entity.', fields: {}, target: { entity: [{ domain: ['button'] }] } },
      schema: Type.Object({}, { additionalProperties: false }),
      toEvent: () => ({ type: 'press' }),
    },
  ],
};

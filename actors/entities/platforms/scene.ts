import { Type } from '@sinclair/typebox';
import type { PlatformDomain } from './types.ts';
import { lastPressParts } from './last-press.ts';

/**
 * scene: its state is the time it was last activated (`unknown` before). A virtual scene sets
 * no other entity; activating it is recorded as a button press is, with that machine.
 */
export const sceneDomain: PlatformDomain<Record<string, never>> = {
  ...lastPressParts,
  domain: 'scene',
  services: [
    {
      service: 'turn_on',
      description: {
        name: 'Activate',
        description: 'Activates a scene.',
        fields: { transition: { name: 'Transition', description: 'Time it takes the devices to transition into the states defined in the scene.', selector: { number: { min: 0, max: 300, unit_of_measurement: 'seconds' } } } },
        target: { entity: [{ domain: ['scene'] }] },
      },
      // vol.Coerce(float) and vol.Clamp(0, 6553): a virtual scene takes any transition at once
      schema: Type.Object({ transition: Type.Optional(Type.Number()) }, { additionalProperties: false }),
      toEvent: () => ({ type: 'press' }),
    },
  ],
};

import { Type } from '@sinclair/typebox';
import { inputButtonMachine } from '../../../machines/input_button.machine.ts';
import { isoTime } from '../../../store/time.ts';
import type { PlatformDomain } from './types.ts';
import { lastKnown } from './restore.ts';

/**
 * button: its state is the time of its last press (`unknown` before the first). It presses as an
 * input_button does, so it shares that machine.
 */
export const buttonDomain: PlatformDomain<Record<string, never>> = {
  domain: 'button',
  optionKeys: [],
  deviceClasses: ['identify', 'restart', 'update'],
  parseOptions: () => ({}),
  supportedFeatures: () => undefined,
  machine: inputButtonMachine,
  input: (entry, restored) => ({ entityId: entry.entityId, config: {}, restored: lastKnown(restored)?.state ?? null }),
  render: (snapshot) => {
    const { pressedAt, restored } = snapshot.context as { pressedAt: number | null; restored: string | null };
    return { state: pressedAt !== null ? isoTime(pressedAt) : (restored ?? 'unknown'), attributes: {} };
  },
  services: [
    {
      service: 'press',
      description: { name: 'Press', description: 'Press the button entity.', fields: {}, target: { entity: [{ domain: ['button'] }] } },
      schema: Type.Object({}, { additionalProperties: false }),
      toEvent: () => ({ type: 'press' }),
    },
  ],
};

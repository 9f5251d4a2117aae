import { inputButtonMachine } from '../../../machines/input_button.machine.ts';
import { isoformat } from '../../../machines/python/isoformat.ts';
import type { PlatformDomain } from './types.ts';
import { lastKnown } from './restore.ts';

/**
 * What a domain whose state is the time of its last press or activation (`unknown` before the
 * first) shares: no options, the input_button machine, and that time as the state. button and
 * scene add their domain and services.
 */
export const lastPressParts: Omit<PlatformDomain<Record<string, never>>, 'domain' | 'services'> = {
  optionKeys: [],
  parseOptions: () => ({}),
  supportedFeatures: () => undefined,
  machine: inputButtonMachine,
  input: (entry, restored) => ({ entityId: entry.entityId, config: {}, restored: lastKnown(restored)?.state ?? null }),
  render: (snapshot) => {
    const { pressedAt, restored } = snapshot.context as { pressedAt: number | null; restored: string | null };
    return { state: pressedAt !== null ? isoformat(pressedAt) : (restored ?? 'unknown'), attributes: {} };
  },
};

import type { Intent, IntentHandler } from './types.ts';
import type { IntentResponse } from './response.ts';
import { IntentError, IntentUnexpectedError, InvalidSlotInfo, UnknownIntent } from './errors.ts';

/**
 * The intent handlers by intent type. Registering a type again replaces its handler (with a
 * warning, as the original); handling validates the slots first, then runs the handler, and
 * turns what escapes it into the original's error classes.
 */
export class IntentRegistry {
  private readonly handlers = new Map<string, IntentHandler>();

  constructor(private readonly warn: (line: string) => void = () => {}) {}

  register(handler: IntentHandler): void {
    if (this.handlers.has(handler.intentType)) this.warn(`Intent handler for ${handler.intentType} is already registered and will be overwritten`);
    this.handlers.set(handler.intentType, handler);
  }

  unregister(intentType: string): boolean {
    return this.handlers.delete(intentType);
  }

  get(intentType: string): IntentHandler | undefined {
    return this.handlers.get(intentType);
  }

  list(): IntentHandler[] {
    return [...this.handlers.values()];
  }

  /** Handles an intent; rejects with an IntentError subclass when it cannot. */
  async handle(intent: Intent): Promise<IntentResponse> {
    const handler = this.handlers.get(intent.intentType);
    if (!handler) throw new UnknownIntent(`Unknown intent ${intent.intentType}`);
    if (handler.platforms && !handler.platforms.includes(intent.platform)) throw new UnknownIntent(`Unknown intent ${intent.intentType}`);
    for (const [name, spec] of Object.entries(handler.slotSchema ?? {})) {
      const slot = intent.slots[name];
      if (slot === undefined || slot === null) {
        if (spec.required) throw new InvalidSlotInfo(`Received invalid slot info for ${intent.intentType}`);
        continue;
      }
      if (typeof slot !== 'object' || !('value' in slot)) throw new InvalidSlotInfo(`Received invalid slot info for ${intent.intentType}`);
      try {
        slot.value = spec.validator(slot.value);
      } catch {
        throw new InvalidSlotInfo(`Received invalid slot info for ${intent.intentType}`);
      }
    }
    try {
      return await handler.handle(intent);
    } catch (err) {
      if (err instanceof IntentError) throw err;
      const unexpected = new IntentUnexpectedError(`Error handling ${intent.intentType}`);
      unexpected.cause = err;
      throw unexpected;
    }
  }
}

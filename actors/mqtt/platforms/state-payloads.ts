import { PAYLOAD_NONE } from './sensor.ts';
import type { PlatformSubscription, ReadMessage } from './types.ts';

/** The original's "not payload": an empty payload (or a failed template) changes nothing. */
export const isEmptyPayload = (m: ReadMessage<unknown>) => m.payload === null || m.payload === '';

/** A payload with more than white space (one of nothing but white space, or a failed template, changes nothing). */
export const hasNonBlankPayload = <C>(m: ReadMessage<C>): m is ReadMessage<C> & { payload: string } => m.payload !== null && m.payload.trim() !== '';

/** A JSON object (Python's dict): not null, not an array. */
export const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A payload's JSON when it is an object; undefined when it is no JSON or other JSON. */
export function parseJsonObject(payload: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    parsed = undefined;
  }
  return isDict(parsed) ? parsed : undefined;
}

/** The machine event patching the state a platform's machine keeps (`{ type: 'message', patch }`). */
export const patchMessage = <S>(patch: Partial<S>) => ({ type: 'message', patch });

/**
 * The state topic of an entity that is on or off (a fan, humidifier, basic light): payload_on is
 * on, payload_off off, `None` unknown; empty payloads and anything else change nothing.
 */
export function onOffStateSubscription<C extends { payload_on: string; payload_off: string }>(): PlatformSubscription<C> {
  return {
    topicKey: 'state_topic',
    templateKey: 'state_value_template',
    read(m) {
      if (isEmptyPayload(m)) return undefined;
      if (m.payload === m.config.payload_on) return patchMessage({ on: true });
      if (m.payload === m.config.payload_off) return patchMessage({ on: false });
      if (m.payload === PAYLOAD_NONE) return patchMessage({ on: null });
      return undefined;
    },
  };
}

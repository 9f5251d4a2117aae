import type { Context } from '../../store/types.ts';
import type { IntentResponse } from './response.ts';

/**
 * Intents: what a sentence (or an API call) asks for, as the original's intent layer has it. A
 * handler is registered per intent type (`CoreTurnOn`); handling an intent validates its slots
 * and answers an IntentResponse (never an HTTP error for a failed match).
 */

/** One slot: the value the handler uses, and the words it came from when spoken. */
export interface SlotValue {
  value: unknown;
  text?: string;
}

export type Slots = Record<string, SlotValue>;

/** An intent to handle. */
export interface Intent {
  /** the integration (domain) that raised it: `conversation`, `intent` (REST), ... */
  platform: string;
  intentType: string;
  slots: Slots;
  textInput: string | null;
  context: Context;
  language: string;
  assistant: string | null;
  deviceId: string | null;
  satelliteId: string | null;
  conversationAgentId: string | null;
  /** `action` or `query` */
  category?: 'action' | 'query';
}

/** Checks one slot's value; throws (any error) when it is not valid. */
export type SlotValidator = (value: unknown) => unknown;

export interface IntentHandler {
  intentType: string;
  description?: string;
  /** only intents raised by these platforms (domains) are handled */
  platforms?: string[];
  /** each slot validated as `{value: validator}`; extra slots are allowed */
  slotSchema?: Record<string, { validator: SlotValidator; required?: boolean }>;
  handle(intent: Intent): Promise<IntentResponse>;
}

/** `MatchFailedReason` of the original (named in error messages only). */
export type MatchFailedReason =
  | 'NAME'
  | 'AREA'
  | 'FLOOR'
  | 'DOMAIN'
  | 'DEVICE_CLASS'
  | 'FEATURE'
  | 'STATE'
  | 'ASSISTANT'
  | 'INVALID_AREA'
  | 'INVALID_FLOOR'
  | 'DUPLICATE_NAME'
  | 'MULTIPLE_TARGETS';

/** A target in a response: `{name, type, id}`. */
export interface IntentTarget {
  name: string;
  type: 'area' | 'floor' | 'device' | 'entity' | 'domain' | 'device_class' | 'custom';
  id: string | null;
}

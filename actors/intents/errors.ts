import type { MatchFailedReason } from './types.ts';

/** The original's intent errors; the conversation agent turns each into an error response. */
export class IntentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** No handler for the intent type. */
export class UnknownIntent extends IntentError {}

/** A slot failed its validator. */
export class InvalidSlotInfo extends IntentError {}

/** The handler could not do what was asked (the message is spoken). */
export class IntentHandleError extends IntentError {
  /** the response key a sentence file may word (`timer_not_found`) */
  constructor(
    message: string,
    readonly responseKey?: string,
  ) {
    super(message);
  }
}

/** The handler failed unexpectedly. */
export class IntentUnexpectedError extends IntentError {}

/** What a target search was given, and which of its constraints nothing met. */
export interface MatchConstraints {
  name?: string | null;
  areaName?: string | null;
  floorName?: string | null;
  domains?: string[] | null;
  deviceClasses?: string[] | null;
  features?: number | null;
  states?: string[] | null;
  assistant?: string | null;
  singleTarget?: boolean;
}

/** No entity met the constraints: why, and what was asked. */
export class MatchFailedError extends IntentHandleError {
  constructor(
    readonly reason: MatchFailedReason,
    readonly constraints: MatchConstraints,
    /** for INVALID_AREA / INVALID_FLOOR: the name no area or floor has; DUPLICATE_NAME: the name */
    readonly detail?: string,
  ) {
    super(`Match failed: ${reason}`);
  }
}

import type { IntentTarget } from './types.ts';

/** The original's IntentResponseErrorCode values. */
export type IntentErrorCode = 'no_intent_match' | 'no_valid_targets' | 'failed_to_handle' | 'unknown';

export type ResponseType = 'action_done' | 'partial_action_done' | 'query_answer' | 'error';

/**
 * An intent's answer in words and targets, serialised as the original's `as_dict` with its key
 * order: speech, card, language, response_type, [reprompt], [speech_slots], data.
 */
export class IntentResponse {
  responseType: ResponseType = 'action_done';
  speech: Record<string, { speech: string; extra_data: unknown }> = {};
  reprompt: Record<string, { reprompt: string; extra_data: unknown }> = {};
  card: Record<string, { title: string; content: string }> = {};
  speechSlots: Record<string, unknown> = {};
  errorCode: IntentErrorCode | null = null;
  intentTargets: IntentTarget[] = [];
  successResults: IntentTarget[] = [];
  failedResults: IntentTarget[] = [];
  /** states a query matched and did not (CoreGetState), for response templates */
  matchedStates: unknown[] = [];
  unmatchedStates: unknown[] = [];

  constructor(readonly language: string) {}

  setSpeech(speech: string, type: 'plain' | 'ssml' = 'plain', extraData: unknown = null): this {
    this.speech[type] = { speech, extra_data: extraData };
    return this;
  }

  setReprompt(reprompt: string, type: 'plain' | 'ssml' = 'plain', extraData: unknown = null): this {
    this.reprompt[type] = { reprompt, extra_data: extraData };
    return this;
  }

  setCard(title: string, content: string): this {
    this.card.simple = { title, content };
    return this;
  }

  setSpeechSlots(slots: Record<string, unknown>): this {
    this.speechSlots = slots;
    return this;
  }

  /** An error answer: the message is the plain speech, `data` holds only the code. */
  setError(code: IntentErrorCode, message: string): this {
    this.responseType = 'error';
    this.errorCode = code;
    return this.setSpeech(message);
  }

  setTargets(targets: IntentTarget[]): this {
    this.intentTargets = targets;
    return this;
  }

  setResults(success: IntentTarget[], failed: IntentTarget[] = []): this {
    this.successResults = success;
    this.failedResults = failed;
    return this;
  }

  asDict(): Record<string, unknown> {
    const out: Record<string, unknown> = { speech: this.speech, card: this.card, language: this.language, response_type: this.responseType };
    if (Object.keys(this.reprompt).length) out.reprompt = this.reprompt;
    if (Object.keys(this.speechSlots).length) out.speech_slots = this.speechSlots;
    out.data =
      this.responseType === 'error'
        ? { code: this.errorCode }
        : { targets: this.intentTargets, success: this.successResults, failed: this.failedResults };
    return out;
  }
}

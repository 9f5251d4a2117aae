import type { LoadedSentenceFile } from './sentence-files.ts';

/**
 * The agent's view of the sentence template engine (actors/conversation/sentences/): build a
 * recognizer from a language's files, then match text against it with the lists of the moment.
 */

/** A value of a list supplied at match time (entity names, areas, floors). */
export interface DynamicListValue {
  in: string;
  out: unknown;
  context?: Record<string, unknown>;
}

/** A slot as matched. */
export interface RecognizedSlot {
  name: string;
  value: unknown;
  /** the words it came from; '' for a block's fixed slots */
  text: string;
}

/** What a match found. */
export interface Recognition {
  intent: string;
  slots: Record<string, RecognizedSlot>;
  unmatchedSlots: Record<string, { text: string }>;
  /** the template that matched, as written */
  template: string;
  /** the block's response key (`default` when it names none) */
  response: string;
  source: 'builtin' | 'custom';
  file: string;
}

export interface Recognizer {
  recognize(text: string, lists: Record<string, DynamicListValue[]>, context: Record<string, unknown>): Recognition | undefined;
}

/** A recognizer over a language's files (built-in first, custom after); throws when they do not parse. */
export function buildRecognizer(_files: LoadedSentenceFile[]): Recognizer {
  return { recognize: () => undefined };
}

// The data of a sentence file (the original's custom_sentences format), and what recognition
// answers.

/** A value of a `values` list: `in` is what is said (itself a template), `out` the slot value. */
export interface ListValue {
  in: string;
  /** undefined: the words as said */
  out: unknown;
  context?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface RangeSpec {
  type: 'number' | 'percentage' | 'temperature';
  from: number;
  to: number;
  step: number;
  /** the spoken number is multiplied by this for the slot value */
  multiplier?: number;
  /** decimals allowed: `halves` (n.5) or `tenths` (n.1 .. n.9) */
  fractions?: 'halves' | 'tenths';
  /** accept digits (default true) */
  digits?: boolean;
  /** also accept English number words (zero..ninety nine, "a hundred"); default true */
  words?: boolean;
}

export type SlotList = { kind: 'values'; values: ListValue[] } | { kind: 'range'; range: RangeSpec } | { kind: 'wildcard' };

type Scalar = string | number | boolean;
/**
 * `requires_context` / `excludes_context`: a key's allowed (or excluded) value or values; null (or
 * a mapping without `value`) = any value, as long as there is one. A mapping's `slot` (true or a
 * slot name) copies the context value into a slot.
 */
export type ContextRule = Record<string, Scalar | null | Scalar[] | { value?: Scalar | Scalar[] | null; slot?: string | boolean }>;

/** One `data` block of an intent. */
export interface IntentBlock {
  sentences: string[];
  slots?: Record<string, unknown>;
  requiresContext?: ContextRule;
  excludesContext?: ContextRule;
  expansionRules?: Record<string, string>;
  response?: string;
  metadata?: Record<string, unknown>;
  /** lists of this block only (override the file lists of the same name) */
  lists?: Record<string, SlotList>;
  /** the block is tried only when the sentence has at least one of these words */
  requiredKeywords?: string[];
}

/** A parsed sentence file. */
export interface SentenceFile {
  /** where it came from: `en/my.yaml` for custom files, any tag for built-in ones */
  file: string;
  source: 'builtin' | 'custom';
  language: string | null;
  intents: Record<string, IntentBlock[]>;
  lists: Record<string, SlotList>;
  expansionRules: Record<string, string>;
  skipWords: string[];
  /** `responses.intents.<Intent>.<key>` templates */
  responses: Record<string, Record<string, string>>;
}

/** A value of a list supplied at match time (entity names, areas, floors). */
export interface DynamicListValue {
  /** the name as said (an alias is one more value); plain text, not a template */
  in: string;
  out: unknown;
  context?: Record<string, unknown>;
}

/** A slot as matched. */
export interface MatchedSlot {
  name: string;
  value: unknown;
  /** the words it came from, as the user wrote them; '' for fixed slots */
  text: string;
  /** the context of the list value (entity domain, area, ...) */
  context?: Record<string, unknown>;
  /** the list it came from, or null for a fixed slot */
  list: string | null;
}

/** The answer of a recognition. */
export interface RecognizeResult {
  intent: string;
  slots: Record<string, MatchedSlot>;
  /** slots whose words matched no list value (only with `allowUnmatched`) */
  unmatchedSlots: Record<string, { name: string; text: string; list: string | null }>;
  /** the template that matched, as written */
  template: string;
  /** the block's response key (`default` when the block names none) */
  response: string;
  metadata: Record<string, unknown> | null;
  source: 'builtin' | 'custom';
  file: string;
  /** the index of the block among the intent's blocks (in merge order) */
  block: number;
  /** the match-time context merged with the contexts of the matched values */
  context: Record<string, unknown>;
  /** the input after normalisation and skip words */
  normalized: string;
}

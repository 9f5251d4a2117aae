import { compileSentences, parseSentenceYaml, type MatchLists, type Recognizer as EngineRecognizer } from './sentences/index.ts';
import type { DynamicListValue } from './sentences/types.ts';
import type { LoadedSentenceFile } from './sentence-files.ts';

export type { DynamicListValue } from './sentences/types.ts';

/**
 * The agent's view of the sentence template engine (actors/conversation/sentences/): build a
 * recognizer from a language's files, then match text against it with the lists of the moment.
 */

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
  /** the first block that matches; with `allowUnmatched`, when none does, the best whose list slots took words no value has */
  recognize(text: string, lists: MatchLists, context: Record<string, unknown>, allowUnmatched?: boolean): Recognition | undefined;
}

/**
 * A recognizer over a language's files (custom blocks tried before built-in ones, as the
 * original). A file or template that does not parse is left out with a log line.
 */
export function buildRecognizer(files: LoadedSentenceFile[], log: (line: string) => void = () => {}): Recognizer {
  const parsed = [];
  for (const f of files) {
    try {
      parsed.push(f.parsed ?? parseSentenceYaml(f.text, f.file, f.source));
    } catch (err) {
      log(`Skipping sentence file ${f.source === 'custom' ? 'custom_sentences/' : ''}${f.file}: ${(err as Error).message}`);
    }
  }
  const engine: EngineRecognizer = compileSentences(parsed, { onError: (err) => log(`Sentence left out: ${err.message}`) });
  return {
    recognize(text, lists, context, allowUnmatched = false) {
      const r = engine.recognize(text, { lists, context, allowUnmatched });
      if (!r) return undefined;
      return { intent: r.intent, slots: r.slots, unmatchedSlots: r.unmatchedSlots, template: r.template, response: r.response, source: r.source, file: r.file };
    },
  };
}

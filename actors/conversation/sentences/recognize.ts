// Recognising a sentence with compiled templates: the word index picks the templates whose
// required words the sentence has, each is tried in merge order (the first match wins), and with
// `allowUnmatched` every match that lets list slots take unknown words is ranked (rank.ts).
import { checkContext } from './context-check.ts';
import { BUDGET, SPACE, type Continuation, type Found, type MatchLists, type Matcher, type Run } from './match-run.ts';
import { normalizeInput, type NormalizedInput } from './normalize.ts';
import { qualityOf, replaces, worthRanking, type MatchQuality } from './rank.ts';
import type { IntentBlock, MatchedSlot, RecognizeResult, SentenceFile } from './types.ts';

export interface RecognizeOptions {
  lists?: MatchLists;
  /** the match-time context (e.g. `{area: <the device's area>}`), checked by requires/excludes_context */
  context?: Record<string, unknown>;
  /**
   * when nothing matches strictly, answer the match the original would: list slots where no value
   * is said take the words up to the template's next words (reported in `unmatchedSlots`), and of
   * all such matches the one with the most template text and known values wins (rank.ts)
   */
  allowUnmatched?: boolean;
}

/** Recognises sentences against compiled sentence files. */
export interface Recognizer {
  /** the first matching block (in merge order), or null; with `allowUnmatched`, see there */
  recognize(text: string, options?: RecognizeOptions): RecognizeResult | null;
  /** every matching block in order, one result each (for debugging) */
  recognizeAll(text: string, options?: RecognizeOptions): RecognizeResult[];
  /** `responses.intents.<intent>.<key>` of the files (custom files override built-in ones) */
  response(intent: string, key: string): string | undefined;
  /** intent names, in merge order */
  readonly intents: string[];
  /** lists referenced by templates but not defined in the files: they are expected at match time */
  readonly dynamicLists: string[];
  readonly templateCount: number;
  readonly skipWords: string[];
}

/** An intent block and where it comes from. */
export interface BlockInfo {
  intent: string;
  index: number;
  block: IntentBlock;
  file: SentenceFile;
}

/** One template of a block, compiled. */
export interface CompiledTemplate {
  order: number;
  info: BlockInfo;
  template: string;
  matcher: Matcher;
  /** words every match contains */
  required: string[];
  /** the block's required_keywords (one is enough), normalised */
  keywords: string[] | undefined;
}

/** What compiling the sentence files gave, besides the templates. */
export interface CompiledFiles {
  templates: CompiledTemplate[];
  /** false: every template is tried on every sentence (no word index) */
  index: boolean;
  /** normalised skip words, split into words, the longest phrases first */
  skipPhrases: string[][];
  skipWords: string[];
  responses: Map<string, Map<string, string>>;
  intents: string[];
  dynamicLists: string[];
}

/** the text of an unmatched slot that stands for a missing required context key */
export const MISSING = '<missing>';

function hasKeyword(template: CompiledTemplate, words: Set<string>): boolean {
  return !template.keywords || template.keywords.length === 0 || template.keywords.some((keyword) => words.has(keyword));
}

/** Builds the recognizer of compiled templates, indexing each under its rarest required word. */
export function createRecognizer(compiled: CompiledFiles): Recognizer {
  const { templates, skipPhrases } = compiled;
  const frequency = new Map<string, number>();
  for (const template of templates) for (const word of template.required) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const buckets = new Map<string, CompiledTemplate[]>();
  const always: CompiledTemplate[] = [];
  for (const template of templates) {
    if (template.required.length === 0) {
      always.push(template);
      continue;
    }
    let rarest = template.required[0];
    for (const word of template.required) if ((frequency.get(word) ?? 0) < (frequency.get(rarest) ?? 0)) rarest = word;
    const bucket = buckets.get(rarest) ?? [];
    bucket.push(template);
    buckets.set(rarest, bucket);
  }

  function candidates(input: NormalizedInput): CompiledTemplate[] {
    if (!compiled.index) return templates;
    const words = new Set(input.words);
    const out: CompiledTemplate[] = [];
    for (const word of words) {
      const bucket = buckets.get(word);
      if (bucket) for (const template of bucket) if (template.required.every((required) => words.has(required)) && hasKeyword(template, words)) out.push(template);
    }
    for (const template of always) if (hasKeyword(template, words)) out.push(template);
    out.sort((left, right) => left.order - right.order);
    return out;
  }

  function finish(run: Run, block: IntentBlock): Continuation {
    return (position) => {
      // unknown words still open take the rest of the sentence
      const open = run.open;
      if (open) open.to = run.len;
      else {
        if (run.text.charCodeAt(position) === SPACE) position++;
        if (position !== run.len) return false;
      }
      const context: Record<string, unknown> = { ...run.context };
      for (const capture of run.captures) if (capture.context) Object.assign(context, capture.context);
      const checked = checkContext(block, context, run.allowUnmatched);
      let done = false;
      if (checked) {
        const found: Found = { captures: run.captures.map((capture) => ({ ...capture })), context, checked, literal: run.literal };
        if (run.collect) run.collect(found);
        else {
          run.found = found;
          done = true;
        }
      }
      if (open) open.to = -1;
      return done;
    };
  }

  function tryTemplate(run: Run, template: CompiledTemplate): boolean {
    const block = template.info.block;
    run.steps = 0;
    run.found = null;
    const done = finish(run, block);
    try {
      return template.matcher(run, 0, done);
    } catch (err) {
      if (err === BUDGET) return false;
      throw err;
    } finally {
      run.captures.length = 0;
      run.open = null;
      run.literal = 0;
    }
  }

  function result(input: NormalizedInput, found: Found, template: CompiledTemplate): RecognizeResult {
    const slots: Record<string, MatchedSlot> = {};
    const unmatchedSlots: RecognizeResult['unmatchedSlots'] = {};
    for (const [name, value] of Object.entries(template.info.block.slots ?? {})) slots[name] = { name, value, text: '', list: null };
    for (const [name, copied] of Object.entries(found.checked.slots)) slots[name] = { name, value: copied.value, text: copied.text, list: null };
    // as the original's debug: a required context key that is missing shows as an unmatched slot
    for (const key of found.checked.missing) unmatchedSlots[key] = { name: key, text: MISSING, list: null };
    for (const capture of found.captures) {
      const text = input.original.slice(input.at[capture.from], input.at[capture.to - 1] + 1).trim();
      if (capture.unmatched) {
        unmatchedSlots[capture.slot] = { name: capture.slot, text, list: capture.list };
        continue;
      }
      const slot: MatchedSlot = { name: capture.slot, value: capture.value, text, list: capture.list };
      if (capture.context) slot.context = capture.context;
      slots[capture.slot] = slot;
    }
    const block = template.info.block;
    return {
      intent: template.info.intent,
      slots,
      unmatchedSlots,
      template: template.template,
      response: block.response ?? 'default',
      metadata: block.metadata ?? null,
      source: template.info.file.source,
      file: template.info.file.file,
      block: template.info.index,
      context: found.context,
      normalized: input.text,
    };
  }

  function startRun(text: string, options: RecognizeOptions, allowUnmatched: boolean): Run {
    const input = normalizeInput(text, skipPhrases);
    return {
      text: input.text,
      len: input.text.length,
      input,
      lists: options.lists ?? {},
      context: options.context ?? {},
      captures: [],
      allowUnmatched,
      steps: 0,
      literal: 0,
      open: null,
      found: null,
      collect: null,
    };
  }

  function recognize(text: string, options: RecognizeOptions = {}): RecognizeResult | null {
    const run = startRun(text, options, false);
    if (run.len === 0) return null;
    const tried = candidates(run.input);
    for (const template of tried) if (tryTemplate(run, template)) return result(run.input, run.found!, template);
    return options.allowUnmatched ? bestWithUnknownWords(run, tried) : null;
  }

  /** Every match of every template that lets list slots take unknown words, judged as the original does (rank.ts). */
  function bestWithUnknownWords(run: Run, tried: CompiledTemplate[]): RecognizeResult | null {
    run.allowUnmatched = true;
    const best: { found: Found; template: CompiledTemplate; quality: MatchQuality | null } = { found: null!, template: null!, quality: null };
    for (const template of tried) {
      run.collect = (found) => {
        const quality = qualityOf(found);
        if (worthRanking(quality) && replaces(quality, best.quality)) Object.assign(best, { found, template, quality });
      };
      tryTemplate(run, template);
    }
    run.collect = null;
    return best.quality ? result(run.input, best.found, best.template) : null;
  }

  function recognizeAll(text: string, options: RecognizeOptions = {}): RecognizeResult[] {
    const run = startRun(text, options, false);
    if (run.len === 0) return [];
    const out: RecognizeResult[] = [];
    const seen = new Set<BlockInfo>();
    for (const template of candidates(run.input)) {
      if (seen.has(template.info)) continue;
      if (tryTemplate(run, template)) {
        seen.add(template.info);
        out.push(result(run.input, run.found!, template));
      }
    }
    return out;
  }

  return {
    recognize,
    recognizeAll,
    response: (intent, key) => compiled.responses.get(intent)?.get(key),
    intents: compiled.intents,
    dynamicLists: compiled.dynamicLists,
    templateCount: templates.length,
    skipWords: compiled.skipWords,
  };
}

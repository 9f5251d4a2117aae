// Compiling sentence files into a recognizer. The files are merged (lists, rules, skip words and
// responses of custom files override built-in ones; intent blocks add up), each template is
// resolved (resolved-tree.ts) and turned into a chain of matcher closures over the normalised
// input (matchers.ts, with a step budget), and recognize.ts indexes the templates by a word every
// match must contain. Lists of plain values are prepared for lookup by the text of each span.
import { prepareList } from './lists.ts';
import type { ListMatcher, StaticList } from './list-matchers.ts';
import { matcherOf } from './matchers.ts';
import { normalizeText } from './normalize.ts';
import { parseTemplate, TemplateSyntaxError, type TemplateNode } from './parse.ts';
import { createRecognizer, type BlockInfo, type CompiledTemplate, type Recognizer } from './recognize.ts';
import { CompileError, listNames, requiredWords, resolve, textChunks } from './resolved-tree.ts';
import { SentenceFileError } from './yaml.ts';
import type { DynamicListValue, SentenceFile, SlotList } from './types.ts';

export interface CompileOptions {
  /** which blocks are tried first when an intent has both; default `custom-first` (as the original prefers custom sentences) */
  order?: 'custom-first' | 'builtin-first' | 'as-given';
  /** called with each template that cannot be compiled (it is left out); without it, compiling throws */
  onError?: (err: SentenceFileError) => void;
  /** false: try every template on every sentence (no word index; for tests and the bench) */
  index?: boolean;
}

function orderFiles(files: SentenceFile[], order: CompileOptions['order']): SentenceFile[] {
  if (order === 'as-given') return files;
  const custom = files.filter((file) => file.source === 'custom');
  const builtin = files.filter((file) => file.source !== 'custom');
  return order === 'builtin-first' ? [...builtin, ...custom] : [...custom, ...builtin];
}

/** The message of a template that cannot be compiled. */
function problemOf(err: unknown): string {
  return err instanceof CompileError || err instanceof TemplateSyntaxError ? err.message : String(err);
}

/** Compiles sentence files (merged: later lists, rules and responses override; intent blocks add up). */
export function compileSentences(files: SentenceFile[], options: CompileOptions = {}): Recognizer {
  const ordered = orderFiles(files, options.order ?? 'custom-first');
  const fail = (err: SentenceFileError) => {
    if (options.onError) options.onError(err);
    else throw err;
  };

  // merged data; for lists, rules, skip words and responses built-in files come first so custom ones override
  const overrideOrder = [...files.filter((file) => file.source !== 'custom'), ...files.filter((file) => file.source === 'custom')];
  const listSpecs = new Map<string, { spec: SlotList; file: string }>();
  const globalRules = new Map<string, { text: string; file: string }>();
  const skip = new Set<string>();
  const responses = new Map<string, Map<string, string>>();
  for (const file of overrideOrder) {
    for (const [name, spec] of Object.entries(file.lists)) listSpecs.set(name, { spec, file: file.file });
    for (const [name, text] of Object.entries(file.expansionRules)) globalRules.set(name, { text, file: file.file });
    for (const word of file.skipWords) {
      const normalised = normalizeText(word);
      if (normalised) skip.add(normalised);
    }
    for (const [intent, keys] of Object.entries(file.responses)) {
      const byKey = responses.get(intent) ?? new Map<string, string>();
      for (const [key, text] of Object.entries(keys)) byKey.set(key, text);
      responses.set(intent, byKey);
    }
  }
  const skipPhrases = [...skip].map((phrase) => phrase.split(' ')).sort((left, right) => right.length - left.length);

  const parsed = new Map<string, TemplateNode>();
  const parse = (text: string): TemplateNode => {
    let node = parsed.get(text);
    if (!node) {
      node = parseTemplate(text);
      parsed.set(text, node);
    }
    return node;
  };
  const globalRule = (name: string) => {
    const rule = globalRules.get(name);
    return rule ? parse(rule.text) : undefined;
  };

  // static lists: `into` is the map the list goes in (and the one its template values see)
  const addList = (into: Map<string, ListMatcher>, name: string, spec: SlotList, file: string, key: string) => {
    if (spec.kind === 'wildcard') into.set(name, { kind: 'wildcard' });
    else if (spec.kind === 'range') into.set(name, { kind: 'range', range: spec.range });
    else {
      const plain: DynamicListValue[] = [];
      const templates: StaticList['templates'] = [];
      const entry: StaticList = { kind: 'values', map: prepareList([]), templates };
      into.set(name, entry);
      spec.values.forEach((given, at) => {
        const value: DynamicListValue = { in: given.in, out: given.out ?? given.in, context: given.context };
        if (!/[()[\]{}<>|;\\]/.test(given.in)) {
          plain.push(value);
          return;
        }
        try {
          const resolved = resolve(parse(given.in), globalRule, []);
          templates.push({ matcher: matcherOf(resolved, into), value, saidOut: given.out === undefined });
        } catch (err) {
          fail(new SentenceFileError(file, `${key}.values[${at}]`, problemOf(err)));
        }
      });
      entry.map = prepareList(plain);
    }
  };
  const lists = new Map<string, ListMatcher>();
  for (const [name, { spec, file }] of listSpecs) addList(lists, name, spec, file, `lists.${name}`);

  // intents in first-appearance order, blocks in file order
  const byIntent = new Map<string, BlockInfo[]>();
  for (const file of ordered) {
    for (const [intent, blocks] of Object.entries(file.intents)) {
      const infos = byIntent.get(intent) ?? [];
      byIntent.set(intent, infos);
      for (const block of blocks) infos.push({ intent, index: infos.length, block, file });
    }
  }

  const compiled: CompiledTemplate[] = [];
  const dynamic = new Set<string>();
  for (const infos of byIntent.values()) {
    for (const info of infos) {
      const local = info.block.expansionRules ?? {};
      const rule = (name: string) => (name in local ? parse(local[name]) : globalRule(name));
      const blockIndexInFile = info.file.intents[info.intent].indexOf(info.block);
      const key = `intents.${info.intent}.data[${blockIndexInFile}]`;
      let blockLists = lists;
      if (info.block.lists && Object.keys(info.block.lists).length) {
        blockLists = new Map(lists);
        for (const [name, spec] of Object.entries(info.block.lists)) addList(blockLists, name, spec, info.file.file, `${key}.lists.${name}`);
      }
      const keywords = info.block.requiredKeywords?.map(normalizeText).filter(Boolean);
      const mine: Omit<CompiledTemplate, 'order'>[] = [];
      const chunks = new Map<Omit<CompiledTemplate, 'order'>, number>();
      info.block.sentences.forEach((template, at) => {
        try {
          const resolved = resolve(parse(template), rule, []);
          const names = new Set<string>();
          listNames(resolved, names);
          for (const name of names) if (!blockLists.has(name)) dynamic.add(name);
          const one = { info, template, matcher: matcherOf(resolved, blockLists), required: [...requiredWords(resolved, true, true)], keywords };
          mine.push(one);
          // as the original: templates with a wildcard and more literal text are tried first
          const wild = [...names].some((name) => blockLists.get(name)?.kind === 'wildcard');
          chunks.set(one, wild ? -textChunks(resolved) : 0);
        } catch (err) {
          fail(new SentenceFileError(info.file.file, `${key}.sentences[${at}]`, problemOf(err)));
        }
      });
      mine.sort((left, right) => chunks.get(left)! - chunks.get(right)!);
      for (const one of mine) compiled.push({ ...one, order: compiled.length });
    }
  }

  return createRecognizer({
    templates: compiled,
    index: options.index !== false,
    skipPhrases,
    skipWords: [...skip],
    responses,
    intents: [...byIntent.keys()],
    dynamicLists: [...dynamic],
  });
}

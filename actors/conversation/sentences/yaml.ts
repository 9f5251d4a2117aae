// Reading sentence files: one YAML text (parseSentenceYaml) or the custom sentences of a language
// (`<config>/custom_sentences/<language>/*.yaml`). Errors name the file and the key.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseTemplate, TemplateSyntaxError } from './parse.ts';
import type { ContextRule, IntentBlock, ListValue, RangeSpec, SentenceFile, SlotList } from './types.ts';
import { isObject } from '../../json-object.ts';

/** A sentence file that cannot be used: `file`, `key` (dotted path) and what is wrong. */
export class SentenceFileError extends Error {
  readonly code = 'HEARTH_SENTENCE_FILE';
  constructor(
    readonly file: string,
    readonly key: string,
    readonly problem: string,
  ) {
    super(`${file}${key ? `: ${key}` : ''}: ${problem}`);
    this.name = 'SentenceFileError';
  }
}


function checkTemplate(file: string, key: string, text: string): void {
  try {
    parseTemplate(text);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw new SentenceFileError(file, key, err.message);
    throw err;
  }
}

function stringMap(file: string, key: string, v: unknown, templates: boolean): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new SentenceFileError(file, key, 'expected a mapping of names to text');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new SentenceFileError(file, `${key}.${k}`, 'expected text');
    if (templates) checkTemplate(file, `${key}.${k}`, x);
    out[k] = x;
  }
  return out;
}

function contextRule(file: string, key: string, v: unknown): ContextRule | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new SentenceFileError(file, key, 'expected a mapping of context keys to values');
  for (const [k, x] of Object.entries(v)) {
    const scalar = (y: unknown) => ['string', 'number', 'boolean'].includes(typeof y);
    const values = (y: unknown) => y === null || y === undefined || scalar(y) || (Array.isArray(y) && y.every(scalar));
    const ok = values(x) || (isObject(x) && values(x.value) && (x.slot === undefined || typeof x.slot === 'string' || typeof x.slot === 'boolean'));
    if (!ok) throw new SentenceFileError(file, `${key}.${k}`, 'expected a value, a list of values or {value: ..., slot: ...}');
  }
  return v as ContextRule;
}

function block(file: string, key: string, v: unknown): IntentBlock {
  if (!isObject(v)) throw new SentenceFileError(file, key, 'expected a mapping with "sentences"');
  const sentences = v.sentences;
  if (!Array.isArray(sentences) || sentences.length === 0 || !sentences.every((s) => typeof s === 'string'))
    throw new SentenceFileError(file, `${key}.sentences`, 'expected a non-empty list of sentence templates');
  sentences.forEach((s, i) => checkTemplate(file, `${key}.sentences[${i}]`, s));
  if (v.slots !== undefined && v.slots !== null && !isObject(v.slots)) throw new SentenceFileError(file, `${key}.slots`, 'expected a mapping of slot names to values');
  if (v.response !== undefined && v.response !== null && typeof v.response !== 'string') throw new SentenceFileError(file, `${key}.response`, 'expected a response key');
  if (v.metadata !== undefined && v.metadata !== null && !isObject(v.metadata)) throw new SentenceFileError(file, `${key}.metadata`, 'expected a mapping');
  const out: IntentBlock = { sentences };
  if (isObject(v.slots)) out.slots = v.slots;
  const req = contextRule(file, `${key}.requires_context`, v.requires_context);
  if (req) out.requiresContext = req;
  const exc = contextRule(file, `${key}.excludes_context`, v.excludes_context);
  if (exc) out.excludesContext = exc;
  const rules = stringMap(file, `${key}.expansion_rules`, v.expansion_rules, true);
  if (Object.keys(rules).length) out.expansionRules = rules;
  if (typeof v.response === 'string') out.response = v.response;
  if (isObject(v.metadata)) out.metadata = v.metadata;
  if (v.lists !== undefined && v.lists !== null) {
    if (!isObject(v.lists)) throw new SentenceFileError(file, `${key}.lists`, 'expected a mapping of list names');
    out.lists = {};
    for (const [name, list] of Object.entries(v.lists)) out.lists[name] = slotList(file, `${key}.lists.${name}`, list);
  }
  if (v.required_keywords !== undefined && v.required_keywords !== null) {
    if (!Array.isArray(v.required_keywords) || !v.required_keywords.every((w) => typeof w === 'string'))
      throw new SentenceFileError(file, `${key}.required_keywords`, 'expected a list of words');
    out.requiredKeywords = v.required_keywords;
  }
  return out;
}

function num(file: string, key: string, v: unknown, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new SentenceFileError(file, key, 'expected a number');
  return v;
}

function slotList(file: string, key: string, v: unknown): SlotList {
  if (!isObject(v)) throw new SentenceFileError(file, key, 'expected a mapping with "values", "range" or "wildcard"');
  if (v.wildcard === true) return { kind: 'wildcard' };
  if (v.range !== undefined) {
    const r = v.range;
    if (!isObject(r)) throw new SentenceFileError(file, `${key}.range`, 'expected a mapping with "from" and "to"');
    const type = r.type ?? 'number';
    if (type !== 'number' && type !== 'percentage' && type !== 'temperature')
      throw new SentenceFileError(file, `${key}.range.type`, `unknown range type "${String(type)}" (number, percentage or temperature)`);
    const range: RangeSpec = {
      type,
      from: num(file, `${key}.range.from`, r.from),
      to: num(file, `${key}.range.to`, r.to),
      step: num(file, `${key}.range.step`, r.step, 1),
    };
    if (range.step <= 0) throw new SentenceFileError(file, `${key}.range.step`, 'expected a number above 0');
    if (range.to < range.from) throw new SentenceFileError(file, `${key}.range`, '"to" is below "from"');
    if (r.multiplier !== undefined) range.multiplier = num(file, `${key}.range.multiplier`, r.multiplier);
    if (r.fractions !== undefined && r.fractions !== null) {
      if (r.fractions !== 'halves' && r.fractions !== 'tenths') throw new SentenceFileError(file, `${key}.range.fractions`, `unknown fractions "${String(r.fractions)}" (halves or tenths)`);
      range.fractions = r.fractions;
    }
    if (r.words === false) range.words = false;
    if (r.digits === false) range.digits = false;
    if (range.words === false && range.digits === false) throw new SentenceFileError(file, `${key}.range`, 'digits and words are both off');
    return { kind: 'range', range };
  }
  if (Array.isArray(v.values)) {
    const values: ListValue[] = v.values.map((x, i): ListValue => {
      const k = `${key}.values[${i}]`;
      if (typeof x === 'string' || typeof x === 'number') {
        checkTemplate(file, k, String(x));
        // a plain value is its own out; a template value gives the words said
        return { in: String(x), out: /[()[\]{}<>|;]/.test(String(x)) ? undefined : x };
      }
      if (!isObject(x) || (typeof x.in !== 'string' && typeof x.in !== 'number')) throw new SentenceFileError(file, k, 'expected text or a mapping with "in" (and "out")');
      checkTemplate(file, `${k}.in`, String(x.in));
      if (x.context !== undefined && x.context !== null && !isObject(x.context)) throw new SentenceFileError(file, `${k}.context`, 'expected a mapping');
      const value: ListValue = { in: String(x.in), out: x.out === undefined || x.out === null ? undefined : x.out };
      if (isObject(x.context)) value.context = x.context;
      if (isObject(x.metadata)) value.metadata = x.metadata;
      return value;
    });
    return { kind: 'values', values };
  }
  throw new SentenceFileError(file, key, 'expected "values" (a list), "range" or "wildcard: true"');
}

/** Parses the text of one sentence file; `file` names it in errors and in match results. */
export function parseSentenceYaml(text: string, file: string, source: 'builtin' | 'custom' = 'custom'): SentenceFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new SentenceFileError(file, '', `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isObject(doc)) throw new SentenceFileError(file, '', 'expected a mapping with "language" and "intents"');
  const out: SentenceFile = { file, source, language: null, intents: {}, lists: {}, expansionRules: {}, skipWords: [], responses: {} };
  if (doc.language !== undefined && doc.language !== null) {
    if (typeof doc.language !== 'string') throw new SentenceFileError(file, 'language', 'expected a language code');
    out.language = doc.language;
  }
  if (doc.intents !== undefined && doc.intents !== null) {
    if (!isObject(doc.intents)) throw new SentenceFileError(file, 'intents', 'expected a mapping of intent names');
    for (const [name, intent] of Object.entries(doc.intents)) {
      const key = `intents.${name}`;
      if (!isObject(intent) || !Array.isArray(intent.data)) throw new SentenceFileError(file, key, 'expected a mapping with "data" (a list of blocks)');
      out.intents[name] = intent.data.map((b, i) => block(file, `${key}.data[${i}]`, b));
    }
  }
  if (doc.lists !== undefined && doc.lists !== null) {
    if (!isObject(doc.lists)) throw new SentenceFileError(file, 'lists', 'expected a mapping of list names');
    for (const [name, list] of Object.entries(doc.lists)) out.lists[name] = slotList(file, `lists.${name}`, list);
  }
  out.expansionRules = stringMap(file, 'expansion_rules', doc.expansion_rules, true);
  if (doc.skip_words !== undefined && doc.skip_words !== null) {
    if (!Array.isArray(doc.skip_words) || !doc.skip_words.every((w) => typeof w === 'string')) throw new SentenceFileError(file, 'skip_words', 'expected a list of words');
    out.skipWords = doc.skip_words;
  }
  if (doc.responses !== undefined && doc.responses !== null) {
    if (!isObject(doc.responses)) throw new SentenceFileError(file, 'responses', 'expected a mapping with "intents"');
    const intents = doc.responses.intents;
    if (intents !== undefined && intents !== null) {
      if (!isObject(intents)) throw new SentenceFileError(file, 'responses.intents', 'expected a mapping of intent names');
      for (const [name, keys] of Object.entries(intents)) out.responses[name] = stringMap(file, `responses.intents.${name}`, keys, false);
    }
  }
  return out;
}

/** Reads and parses one sentence file from disk. */
export async function loadSentenceFile(path: string, file: string, source: 'builtin' | 'custom' = 'custom'): Promise<SentenceFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SentenceFileError(file, '', `cannot be read: ${(err as Error).message}`);
  }
  return parseSentenceYaml(text, file, source);
}

/**
 * The custom sentences of a language: `<dir>/<language>/*.yaml` (and `.yml`), by file name. `dir`
 * is the `custom_sentences` folder; a missing folder is no files. Files are tagged
 * `<language>/<name>` as the original's debug output shows them.
 */
export async function loadSentenceDir(dir: string, language: string): Promise<SentenceFile[]> {
  const folder = join(dir, language);
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true })).filter((d) => d.isFile() && /\.ya?ml$/i.test(d.name)).map((d) => d.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
  names.sort();
  const files: SentenceFile[] = [];
  for (const name of names) files.push(await loadSentenceFile(join(folder, name), `${language}/${name}`, 'custom'));
  return files;
}

/**
 * Sentences of `configuration.yaml` (`conversation: intents: {Name: [sentence, ...]}`) as a
 * sentence file; errors name `file` and the intent.
 */
export function sentencesFromConfig(intents: unknown, file = 'configuration.yaml'): SentenceFile {
  const out: SentenceFile = { file, source: 'custom', language: null, intents: {}, lists: {}, expansionRules: {}, skipWords: [], responses: {} };
  if (intents === undefined || intents === null) return out;
  if (!isObject(intents)) throw new SentenceFileError(file, 'conversation.intents', 'expected a mapping of intent names to sentence lists');
  for (const [name, list] of Object.entries(intents)) {
    out.intents[name] = [block(file, `conversation.intents.${name}`, { sentences: list })];
  }
  return out;
}

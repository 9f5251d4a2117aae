import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { SentenceFile } from './sentences/types.ts';

/**
 * The sentence files the default agent knows: Hearth's own (actors/conversation/builtin/<lang>/)
 * and the user's (`<config>/custom_sentences/<lang>/*.yaml`), each parsed once per load. A file
 * that does not parse is left out with a log line naming it, as the original skips it.
 */

/** One parsed sentence file and where it came from. */
export interface LoadedSentenceFile {
  source: 'builtin' | 'custom';
  /** `<language>/<file name>` as the debug command reports it */
  file: string;
  language: string;
  /** the file's text */
  text: string;
  /** the YAML document (language, intents, lists, expansion_rules, skip_words, responses) */
  data: Record<string, any>;
  /** already parsed (configuration.yaml's `conversation: intents:`): the text is not read */
  parsed?: SentenceFile;
}

export const BUILTIN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'builtin');

/** The languages a folder of per-language folders holds. */
async function languagesIn(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

async function filesOf(root: string, language: string, source: 'builtin' | 'custom', log: (line: string) => void): Promise<LoadedSentenceFile[]> {
  const dir = join(root, language);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.yaml') || n.endsWith('.yml')).sort();
  } catch {
    return [];
  }
  const out: LoadedSentenceFile[] = [];
  for (const name of names) {
    const file = `${language}/${name}`;
    try {
      const text = await readFile(join(dir, name), 'utf8');
      const data = parse(text);
      if (data === null || data === undefined) continue;
      if (typeof data !== 'object' || Array.isArray(data)) throw new Error('expected a mapping at the top');
      out.push({ source, file, language, text, data });
    } catch (err) {
      log(`Skipping sentence file ${source === 'custom' ? 'custom_sentences/' : ''}${file}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** Built-in and custom sentence files of every language, built-in first. */
export async function loadSentenceFiles(configDir: string, log: (line: string) => void): Promise<Map<string, LoadedSentenceFile[]>> {
  const customRoot = join(configDir, 'custom_sentences');
  const languages = new Set([...(await languagesIn(BUILTIN_DIR)), ...(await languagesIn(customRoot))]);
  const byLanguage = new Map<string, LoadedSentenceFile[]>();
  for (const language of languages) {
    byLanguage.set(language, [...(await filesOf(BUILTIN_DIR, language, 'builtin', log)), ...(await filesOf(customRoot, language, 'custom', log))]);
  }
  return byLanguage;
}

/** The response templates of a language's files: a later file's key overrides an earlier one's. */
export function responsesOf(files: LoadedSentenceFile[]): { intents: Map<string, Map<string, string>>; errors: Map<string, string> } {
  const intents = new Map<string, Map<string, string>>();
  const errors = new Map<string, string>();
  for (const f of files) {
    const r = f.data.responses;
    if (!r || typeof r !== 'object') continue;
    for (const [intent, keys] of Object.entries(r.intents ?? {})) {
      if (!keys || typeof keys !== 'object') continue;
      let m = intents.get(intent);
      if (!m) intents.set(intent, (m = new Map()));
      for (const [key, text] of Object.entries(keys as Record<string, unknown>)) if (typeof text === 'string') m.set(key, text);
    }
    for (const [key, text] of Object.entries(r.errors ?? {})) if (typeof text === 'string') errors.set(key, text);
  }
  return { intents, errors };
}

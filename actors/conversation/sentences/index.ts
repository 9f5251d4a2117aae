// The sentence template engine: parse the original's sentence files, compile them, recognise
// sentences. Pure apart from the loaders in yaml.ts, which read files.
export { compileSentences, type CompileOptions } from './compile.ts';
export type { MatchLists } from './match-run.ts';
export { MISSING, type RecognizeOptions, type Recognizer } from './recognize.ts';
export { prepareList, numberFromWords, type PreparedList } from './lists.ts';
export { normalizeText } from './normalize.ts';
export { parseTemplate, TemplateSyntaxError, type TemplateNode } from './parse.ts';
export { loadSentenceDir, loadSentenceFile, parseSentenceYaml, sentencesFromConfig, SentenceFileError } from './yaml.ts';
export type * from './types.ts';

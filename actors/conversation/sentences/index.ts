// The sentence template engine: parse the original's sentence files, compile them, recognise
// sentences. Pure apart from the loaders in yaml.ts, which read files.
export { compileSentences, MISSING, type CompileOptions, type MatchLists, type RecognizeOptions, type Recognizer } from './compile.ts';
export { prepareList, numberFromWords, type PreparedList } from './lists.ts';
export { normalizeText } from './normalize.ts';
export { parseTemplate, TemplateSyntaxError, type TemplateNode } from './parse.ts';
export { loadSentenceDir, loadSentenceFile, parseSentenceYaml, sentencesFromConfig, SentenceFileError } from './yaml.ts';
export type * from './types.ts';

// YAML files read as the original's loader reads them: `!include`, the four `!include_dir_*`
// tags, `!env_var`, `!secret` (secrets.yaml of the file's folder, then of each parent up to the
// configuration folder) and `!input` (kept as a marker for blueprints). The parser is synchronous
// and files are not, so the tags become placeholders first and are resolved in a second pass.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isCollection, isMap, isNode, isScalar, LineCounter, parseDocument, visit, type Node, type ScalarTag, type Tags, type YAMLMap } from 'yaml';
import { ConfigurationError } from './config-error.ts';

const SECRETS_FILE = 'secrets.yaml';

/** A `!input name` of a blueprint, left for the blueprint's user to fill in. */
export class Input {
  constructor(readonly name: string) {}
}

/** Where a load starts and what it may read. */
export interface YamlLoadOptions {
  /** the configuration folder: the last folder searched for secrets.yaml */
  configDir: string;
  /** `!env_var` source; process.env unless given */
  env?: Record<string, string | undefined>;
  /** duplicate keys are accepted (the last wins) and reported here, as the original logs them */
  onWarning?: (message: string) => void;
}

/** A tag of ours, found by the parser, to be resolved once files may be read. */
class Pending {
  constructor(readonly tag: string, readonly arg: string, readonly file: string, readonly line: number) {}
  where() {
    return `${this.file}, line ${this.line}`;
  }
}

const INCLUDE_TAGS = ['!include', '!include_dir_list', '!include_dir_named', '!include_dir_merge_list', '!include_dir_merge_named'];
const OUR_TAGS = new Set([...INCLUDE_TAGS, '!env_var', '!secret', '!input']);

interface Context {
  options: YamlLoadOptions;
  /** null while reading a secrets.yaml: secrets may not refer to secrets */
  secrets: Secrets | null;
  /** the files being read, outermost first, to refuse an include loop */
  chain: string[];
}

/**
 * Reads one YAML file with the original's tags resolved; an empty file is null. Throws a
 * ConfigurationError naming the file (and the line, for a tag or a syntax error); a missing
 * file is an error whose `code` is ENOENT.
 */
export async function loadYamlFile(file: string, options: YamlLoadOptions): Promise<unknown> {
  const ctx: Context = { options, secrets: new Secrets(resolve(options.configDir), options), chain: [] };
  return loadFile(resolve(file), ctx);
}

async function loadFile(file: string, ctx: Context): Promise<unknown> {
  if (ctx.chain.includes(file)) {
    throw new ConfigurationError(`include loop: ${[...ctx.chain, file].join(' -> ')}`);
  }
  const text = await readText(file);
  const doc = parseText(text, file, ctx.options);
  return resolvePending(doc, { ...ctx, chain: [...ctx.chain, file] });
}

/** The text of a regular file; ENOENT is passed on for the caller to word. */
async function readText(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    // a FIFO or a device would block the load or never end: only regular files are read
    if (!(await stat(file)).isFile()) throw new ConfigurationError(`Unable to read file ${file}: not a regular file`);
    bytes = await readFile(file);
  } catch (err: any) {
    if (err instanceof ConfigurationError || err.code === 'ENOENT') throw err;
    throw new ConfigurationError(`Unable to read file ${file}: ${err.message}`);
  }
  try {
    // the original refuses a file that is not UTF-8 rather than reading replacement characters
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ConfigurationError(`Unable to read file ${file}: not valid UTF-8`);
  }
}

/** Parses one file's text; our tags become Pending placeholders, the rest plain values. */
function parseText(text: string, file: string, options: YamlLoadOptions): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, version: '1.1', customTags: pyyamlScalars });
  if (doc.errors.length > 0) {
    throw new ConfigurationError(`${file}: invalid YAML: ${doc.errors[0].message}`);
  }
  const lineOf = (node: Node) => (node.range ? lineCounter.linePos(node.range[0]).line : 0);
  visit(doc, (_, node) => {
    if (isMap(node)) checkKeys(node, file, lineOf, options);
    if (!isNode(node) || !node.tag || !OUR_TAGS.has(node.tag)) return;
    const line = lineOf(node);
    if (!isScalar(node)) throw new ConfigurationError(`${file}, line ${line}: ${node.tag} takes a plain value, not a ${isMap(node) ? 'mapping' : 'list'}`);
    const arg = node.value === null || node.value === undefined ? '' : String(node.value);
    node.value = new Pending(node.tag, arg, file, line);
  });
  for (const warning of doc.warnings) {
    const unresolved = /^Unresolved tag: (\S+)/.exec(warning.message)?.[1];
    // the tags of ours are unknown to the parser, as expected; any other tag is refused, as the
    // original refuses a tag it has no constructor for
    if (unresolved === undefined) options.onWarning?.(`${file}: ${warning.message}`);
    else if (!OUR_TAGS.has(unresolved)) {
      throw new ConfigurationError(`${file}, line ${warning.linePos?.[0].line ?? 0}: unknown tag ${unresolved}`);
    }
  }
  return doc.toJS();
}

/**
 * A key that is a mapping or a list (an unquoted `{{ template }}`) is refused, as the original
 * does, where the parser here would quietly make a string of it; a key given twice is reported
 * and the last value kept.
 */
function checkKeys(map: YAMLMap, file: string, lineOf: (node: Node) => number, options: YamlLoadOptions) {
  const seen = new Map<unknown, number>();
  for (const pair of map.items) {
    const key = pair.key as Node | null;
    const line = lineOf(key ?? map);
    if (isCollection(key)) {
      throw new ConfigurationError(`${file}, line ${line}: invalid key: a mapping or a list cannot be a key (quote a template)`);
    }
    if (!isScalar(key)) continue;
    const name = key.value;
    const before = seen.get(name);
    if (before !== undefined) {
      options.onWarning?.(`YAML file ${file} contains duplicate key "${String(name)}". Check lines ${before} and ${line}`);
    }
    seen.set(name, line);
  }
}

// The original reads YAML 1.1 as PyYAML resolves it, which differs from the parser's own YAML
// 1.1 schema: `y`/`n` stay strings, a float needs its dot (`1e3` is a string) and a signed
// exponent, a leading zero makes no sexagesimal number (`07:30` is a string, `7:30` is 450).
// Timestamps stay strings: the sections' checks read dates and times from text.
const PY_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const PY_INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const PY_FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** Sign and digits of a number as PyYAML takes them apart: underscores dropped. */
function signed(text: string): [number, string] {
  const clean = text.replace(/_/g, '');
  if (clean.startsWith('-')) return [-1, clean.slice(1)];
  return [1, clean.startsWith('+') ? clean.slice(1) : clean];
}

/** `1:30:00` as base-60 digits. */
function sexagesimal(digits: string): number {
  return digits.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);
}

const pyBool: ScalarTag = {
  tag: 'tag:yaml.org,2002:bool',
  default: true,
  identify: (value) => typeof value === 'boolean',
  test: PY_BOOL,
  resolve: (text) => /^(?:yes|true|on)$/i.test(text),
};

const pyInt: ScalarTag = {
  tag: 'tag:yaml.org,2002:int',
  default: true,
  identify: (value) => Number.isInteger(value),
  test: PY_INT,
  resolve(text) {
    const [sign, digits] = signed(text);
    if (digits === '0') return 0;
    if (digits.startsWith('0b')) return sign * parseInt(digits.slice(2), 2);
    if (digits.startsWith('0x')) return sign * parseInt(digits.slice(2), 16);
    if (digits.includes(':')) return sign * sexagesimal(digits);
    if (digits.startsWith('0')) return sign * parseInt(digits, 8);
    return sign * parseInt(digits, 10);
  },
};

const pyFloat: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  default: true,
  identify: (value) => typeof value === 'number',
  test: PY_FLOAT,
  resolve(text) {
    const [sign, digits] = signed(text.toLowerCase());
    if (digits === '.inf') return sign * Infinity;
    if (digits === '.nan') return NaN;
    if (digits.includes(':')) return sign * sexagesimal(digits);
    return sign * Number(digits);
  },
};

/** The parser's YAML 1.1 tags with PyYAML's booleans and numbers, and dates left as text. */
function pyyamlScalars(tags: Tags): Tags {
  const replaced = new Set(['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float']);
  const kept = tags
    .filter((tag) => typeof tag === 'string' || !replaced.has(tag.tag))
    // a date is text unless tagged `!!timestamp`
    .map((tag) => (typeof tag !== 'string' && tag.tag === 'tag:yaml.org,2002:timestamp' ? { ...tag, default: false } : tag));
  // `!!int "12"` and the like: the tag says what the text is, whatever it looks like
  const explicit = [pyBool, pyFloat, pyInt].map((tag) => ({ ...tag, default: false, test: undefined }));
  return [...kept, pyBool, pyFloat, pyInt, ...explicit];
}

/** Replaces each placeholder in a parsed value with what its tag stands for (in place). */
async function resolvePending(value: unknown, ctx: Context): Promise<unknown> {
  if (value instanceof Pending) return resolveTag(value, ctx);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = await resolvePending(value[i], ctx);
  } else if (value !== null && typeof value === 'object' && !(value instanceof Input)) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = await resolvePending(record[key], ctx);
  }
  return value;
}

async function resolveTag(p: Pending, ctx: Context): Promise<unknown> {
  if (p.tag === '!input') return new Input(p.arg);
  if (p.arg.trim() === '') throw new ConfigurationError(`${p.where()}: ${p.tag} needs an argument.`);
  switch (p.tag) {
    case '!secret':
      if (!ctx.secrets) throw new ConfigurationError(`${p.where()}: !secret is not supported in ${SECRETS_FILE}`);
      return ctx.secrets.get(p.file, p.arg, p.line);
    case '!env_var':
      return envVar(p, ctx.options.env ?? process.env);
    case '!include':
      return include(p, ctx);
    default:
      return includeDir(p, ctx);
  }
}

function envVar(p: Pending, env: Record<string, string | undefined>): string {
  // the original splits on white space: the first word names the variable, the rest (joined by
  // one space) is its default, a string like the variable's own value
  const [name, ...fallback] = p.arg.trim().split(/\s+/);
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  if (value !== undefined) return value;
  if (fallback.length > 0) return fallback.join(' ');
  throw new ConfigurationError(`${p.where()}: environment variable ${name} is not defined`);
}

async function include(p: Pending, ctx: Context): Promise<unknown> {
  // as os.path.join: relative to the including file's folder, an absolute path as it is
  const target = resolve(dirname(p.file), p.arg);
  let loaded: unknown;
  try {
    loaded = await loadFile(target, ctx);
  } catch (err: any) {
    if (err.code === 'ENOENT') throw new ConfigurationError(`${p.where()}: Unable to read file ${target}`);
    throw err;
  }
  // an empty included file stands for an empty mapping
  return loaded ?? {};
}

async function includeDir(p: Pending, ctx: Context): Promise<unknown> {
  const dir = resolve(dirname(p.file), p.arg);
  const files = await yamlFilesUnder(dir, p);
  const load = async (file: string) => {
    try {
      return await loadFile(file, ctx);
    } catch (err: any) {
      // vanished between the listing and the read, or a dangling link
      if (err.code === 'ENOENT') throw new ConfigurationError(`${p.where()}: Unable to read file ${file}`);
      throw err;
    }
  };
  switch (p.tag) {
    case '!include_dir_list': {
      const list: unknown[] = [];
      for (const file of files) {
        const loaded = await load(file);
        if (loaded !== null) list.push(loaded);
      }
      return list;
    }
    case '!include_dir_merge_list': {
      const list: unknown[] = [];
      for (const file of files) {
        const loaded = await load(file);
        // a file that is not a list is left out, as in the original
        if (Array.isArray(loaded)) list.push(...loaded);
      }
      return list;
    }
    case '!include_dir_named': {
      const named: Record<string, unknown> = {};
      for (const file of files) {
        const loaded = await load(file);
        setOwn(named, basename(file, extname(file)), loaded ?? {});
      }
      return named;
    }
    default: {
      const merged: Record<string, unknown> = {};
      for (const file of files) {
        const loaded = await load(file);
        // a file that is not a mapping is left out, as in the original
        if (isPlainMapping(loaded)) for (const [key, value] of Object.entries(loaded)) setOwn(merged, key, value);
      }
      return merged;
    }
  }
}

/**
 * The `*.yaml` files under a folder as the original walks it: each folder's files sorted by
 * name, then its subfolders; names starting with a dot and secrets.yaml skipped; links to
 * folders not followed. A folder that does not exist holds no files.
 */
async function yamlFilesUnder(dir: string, p: Pending): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err: any) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [];
    throw new ConfigurationError(`${p.where()}: Unable to read folder ${dir}: ${err.message}`);
  }
  const files: string[] = [];
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) folders.push(path);
    else if (entry.isSymbolicLink()) {
      // a link to a folder is listed but not walked; a link to a file is read
      const target = await stat(path).catch(() => null);
      if (!target?.isDirectory() && entry.name.endsWith('.yaml') && entry.name !== SECRETS_FILE) files.push(path);
    } else if (entry.name.endsWith('.yaml') && entry.name !== SECRETS_FILE) files.push(path);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  files.sort(byName);
  // the original descends in the order the file system lists folders; sorted here, so a load
  // reads the same on every machine
  folders.sort(byName);
  const nested = [];
  for (const folder of folders) nested.push(...(await yamlFilesUnder(folder, p)));
  return [...files, ...nested];
}

/** secrets.yaml files, each read once per load. */
class Secrets {
  private readonly cache = new Map<string, Promise<Record<string, unknown>>>();
  constructor(private readonly configDir: string, private readonly options: YamlLoadOptions) {}

  /** The secret for a file: from its folder's secrets.yaml, then each parent's up to the configuration folder. */
  async get(requester: string, name: string, line: number): Promise<unknown> {
    for (const dir of this.foldersFor(requester)) {
      const secrets = await this.secretsIn(dir);
      // own keys only: `in` would find toString, constructor, __proto__... on every object
      if (Object.hasOwn(secrets, name)) return secrets[name];
    }
    throw new ConfigurationError(`${requester}: secret '${name}' is not defined in ${SECRETS_FILE} (line ${line})`);
  }

  private foldersFor(requester: string): string[] {
    const folders: string[] = [];
    for (let dir = dirname(requester); inside(dir, this.configDir); dir = dirname(dir)) {
      folders.push(dir);
      if (dir === this.configDir) break;
    }
    // a file included from outside the configuration folder still sees its secrets.yaml
    return folders.length > 0 ? folders : [this.configDir];
  }

  private secretsIn(dir: string): Promise<Record<string, unknown>> {
    let pending = this.cache.get(dir);
    if (!pending) {
      pending = this.read(join(dir, SECRETS_FILE));
      this.cache.set(dir, pending);
    }
    return pending;
  }

  private async read(file: string): Promise<Record<string, unknown>> {
    let doc: unknown;
    try {
      doc = await loadFile(file, { options: this.options, secrets: null, chain: [] });
    } catch (err: any) {
      if (err.code === 'ENOENT') return {};
      throw err;
    }
    doc ??= {};
    if (!isPlainMapping(doc)) {
      throw new ConfigurationError(`${file}: the top level must be a mapping of secret names to values`);
    }
    // `logger: debug` turns on the original's logging of secret look-ups; it is never a secret
    delete doc.logger;
    return doc;
  }
}

function inside(dir: string, root: string): boolean {
  const rel = relative(root, dir);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function isPlainMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Input);
}

/** Sets a key even when it is `__proto__`, which plain assignment would take as the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

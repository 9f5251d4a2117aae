import { slugify } from '../../entities/domains/config.ts';
import * as cv from '../../voluptuous/cv.ts';
import type { Path } from '../../voluptuous/problems.ts';
import { Refusal } from '../../voluptuous/schema.ts';
import { readActions, type Action } from './actions.ts';
import { ConfigProblem, DictReader, Gathered, isDict, pyFalsy, refuse } from './read.ts';
import { scriptVariables } from './validators.ts';

/**
 * The `script:` section as the original's script/config.py reads it: a mapping of object ids to
 * scripts (several `script <label>:` sections merged, a name seen twice kept the first time), each
 * SCRIPT_ENTITY_SCHEMA with the run mode of make_script_schema. An invalid script is reported
 * and left out; the others load.
 */

/** How a new run is handled while one is running (make_script_schema). */
export type RunMode = 'single' | 'restart' | 'queued' | 'parallel';
export const RUN_MODES: readonly RunMode[] = ['parallel', 'queued', 'restart', 'single'];
/** The log levels (and SILENT) a run refused by `max` is logged at, as the original sorts them in its message. */
export const MAX_EXCEEDED = ['CRITICAL', 'DEBUG', 'ERROR', 'FATAL', 'INFO', 'NOTSET', 'SILENT', 'WARN', 'WARNING'] as const;
export type MaxExceeded = (typeof MAX_EXCEEDED)[number];

/** mode, max and max_exceeded, with the original's defaults. */
export interface RunLimits {
  mode: RunMode;
  /** runs at once (queued, parallel): 10 unless given, at least 2 */
  max: number;
  /** how a run beyond `max` is logged: WARNING unless given */
  max_exceeded: MaxExceeded;
}

export const RUN_MODE_KEYS = ['mode', 'max', 'max_exceeded'];

/** make_script_schema's keys: vol.In(modes), vol.All(Coerce(int), Range(min=2)), vol.All(Upper, In(levels)). */
export function readRunLimits(r: DictReader, gathered = new Gathered()): RunLimits {
  const limits = {
    mode:
      gathered.take(() => r.checked('mode', (v) => {
        if (typeof v !== 'string' || !(RUN_MODES as readonly string[]).includes(v)) throw new Refusal(`value must be one of [${RUN_MODES.map((m) => `'${m}'`).join(', ')}]`);
        return v as RunMode;
      })) ?? 'single',
    max:
      gathered.take(() => r.checked('max', (v) => {
        const n = cv.convert(cv.coerceInt, v);
        if (n < 2) throw new Refusal('value must be at least 2');
        return n;
      })) ?? 10,
    max_exceeded:
      gathered.take(() => r.checked('max_exceeded', (v) => {
        const upper = typeof v === 'string' ? v.toUpperCase() : v;
        if (typeof upper !== 'string' || !(MAX_EXCEEDED as readonly string[]).includes(upper)) {
          throw new Refusal(`value must be one of [${MAX_EXCEEDED.map((m) => `'${m}'`).join(', ')}]`);
        }
        return upper as MaxExceeded;
      })) ?? 'WARNING',
  };
  return limits;
}

/** One field a script takes (what the UI asks for when it is run). */
export interface ScriptField {
  advanced: boolean;
  default?: unknown;
  description?: string;
  example?: string;
  name?: string;
  required: boolean;
  /** kept as written: the selectors are the frontend's */
  selector?: Record<string, unknown>;
}

/** A script, read and normalised. */
export interface ScriptConfig extends RunLimits {
  /** its object id: `script.<object_id>` is its entity and its service */
  object_id: string;
  alias?: string;
  icon?: string;
  description: string;
  fields: Record<string, ScriptField>;
  variables?: Record<string, unknown>;
  sequence: Action[];
}

/** A script the original would refuse: left out, with what is wrong. */
export interface InvalidScript {
  object_id: string;
  alias?: string;
  /** `Invalid config for 'script' (object id: x, alias: y): <problem>` */
  message: string;
  problem?: ConfigProblem;
}

const RESERVED = ['reload', 'toggle', 'turn_off', 'turn_on'];

function readField(value: unknown, path: Path): ScriptField {
  const r = DictReader.of(value, path, ['advanced', 'default', 'description', 'example', 'name', 'required', 'selector']);
  const field: ScriptField = { advanced: r.optional('advanced', cv.boolean, false), required: r.optional('required', cv.boolean, false) };
  if (Object.hasOwn(r.raw, 'default')) field.default = r.raw.default;
  if (r.has('description')) field.description = r.required('description', cv.string);
  if (r.has('example')) field.example = r.required('example', cv.string);
  if (r.has('name')) field.name = r.required('name', cv.string);
  if (r.has('selector')) field.selector = r.read('selector', (v, p) => DictReader.of(v, p, undefined, 'expected dict').raw);
  return field;
}

/** One script (SCRIPT_ENTITY_SCHEMA), its object id already checked. */
export function readScript(objectId: string, value: unknown): ScriptConfig {
  if (!isDict(value)) throw refuse('expected a dictionary', [], value);
  const g = new Gathered();
  const r = DictReader.gathering(value, [], ['alias', 'icon', 'description', 'fields', 'variables', 'sequence', 'trace', ...RUN_MODE_KEYS], g);
  const script: ScriptConfig = {
    object_id: objectId,
    description: g.take(() => r.optional('description', cv.string, '')) ?? '',
    fields:
      g.take(() =>
        r.read('fields', (v, p) => {
          if (!isDict(v)) throw refuse('expected dict', p, v);
          return Object.fromEntries(Object.entries(v).map(([name, field]) => [name, readField(field, [...p, name])]));
        }),
      ) ?? {},
    ...readRunLimits(r, g),
    sequence: g.take(() => r.need('sequence', readActions)) ?? [],
  };
  if (r.has('alias')) script.alias = g.take(() => r.required('alias', cv.string));
  if (r.has('icon')) script.icon = g.take(() => r.required('icon', cv.icon));
  if (r.has('variables')) script.variables = g.take(() => r.read('variables', scriptVariables));
  g.done();
  return script;
}

/** The sections of the domain among configuration.yaml's: `<domain>` and `<domain> <label>`, in the file's order. */
export function sectionsOf(sections: Record<string, unknown>, domain: string): unknown[] {
  return Object.entries(sections)
    .filter(([key]) => key === domain || (key.startsWith(`${domain} `) && key.slice(domain.length + 1).trim() !== ''))
    .map(([, value]) => value);
}

const named = (objectId: string, alias: unknown) => `(object id: ${objectId}${typeof alias === 'string' ? `, alias: ${alias}` : ''})`;

/** Every script of configuration.yaml's sections: those that load, and those refused with why. */
export function readScriptSections(sections: Record<string, unknown>): { scripts: ScriptConfig[]; invalid: InvalidScript[]; warnings: string[] } {
  const scripts: ScriptConfig[] = [];
  const invalid: InvalidScript[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const section of sectionsOf(sections, 'script')) {
    if (pyFalsy(section)) continue;
    if (!isDict(section)) {
      invalid.push({ object_id: '', message: `Invalid config for 'script': expected a dictionary` });
      continue;
    }
    for (const [objectId, value] of Object.entries(section)) {
      if (seen.has(objectId)) {
        warnings.push(`Duplicate script detected with name: '${objectId}'`);
        continue;
      }
      seen.add(objectId);
      const alias = isDict(value) ? value.alias : undefined;
      const slug = slugify(objectId);
      if (slug !== objectId) {
        invalid.push({ object_id: objectId, message: `Invalid config for 'script' ${named(objectId, alias)}: invalid slug ${objectId} (try ${slug})` });
        continue;
      }
      if (RESERVED.includes(objectId)) {
        invalid.push({ object_id: objectId, message: `Invalid config for 'script' ${named(objectId, alias)}: A script's object_id must not be one of ${RESERVED.join(', ')}` });
        continue;
      }
      try {
        scripts.push(readScript(objectId, value));
      } catch (err) {
        if (!(err instanceof ConfigProblem)) throw err;
        const entry: InvalidScript = { object_id: objectId, message: `Invalid config for 'script' ${named(objectId, alias)}: ${err.message}`, problem: err };
        if (typeof alias === 'string') entry.alias = alias;
        invalid.push(entry);
      }
    }
  }
  return { scripts, invalid, warnings };
}

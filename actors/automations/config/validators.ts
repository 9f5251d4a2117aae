import { parseFloatText, parseIntText } from '../../../machines/python/float.ts';
import { pyStr } from '../../../machines/python/repr.ts';
import { parseTimeOfDay } from '../../entities/domains/input_datetime.ts';
import { parseTemplate } from '../../templates/compile.ts';
import { TemplateError } from '../../templates/errors.ts';
import * as cv from '../../voluptuous/cv.ts';
import type { Path } from '../../voluptuous/problems.ts';
import { Refusal } from '../../voluptuous/schema.ts';
import { check, ensureList, isDict, refuse } from './read.ts';

/**
 * The validators of the original's config_validation that automations and scripts use and
 * actors/voluptuous does not have yet (cv.template, cv.time_period, cv.entity_ids, cv.service...):
 * each a function that returns the value as the original keeps it or throws a Refusal in its words.
 */

/** A template's source text, checked for syntax; rendered later by actors/templates. */
export type Template = string;

/** A time period the original keeps as a timedelta: here milliseconds. */
export type Period = { ms: number };
/** cv.positive_time_period_template: a fixed period, a template of one, or a dict of fields some of which are templates. */
export type PeriodTemplate = Period | { template: Template } | { fields: Record<string, unknown> };

const TEMPLATE_MARK = /\{\{|\{%|\{#/;

/** template_helper.is_template_string. */
export const isTemplateString = (text: string) => TEMPLATE_MARK.test(text);

/** cv.template: any scalar as its str(), checked for syntax. */
export function template(value: unknown): Template {
  if (value === null || value === undefined) throw new Refusal('template value is None');
  if (typeof value === 'object') throw new Refusal('template value should be a string');
  const text = pyStr(value);
  try {
    parseTemplate(text);
  } catch (err) {
    if (err instanceof TemplateError) throw new Refusal(`invalid template (${err.toString()})`);
    throw err;
  }
  return text;
}

/** cv.dynamic_template: a template with something to render. */
export function dynamicTemplate(value: unknown): Template {
  if (value === null || value === undefined) throw new Refusal('template value is None');
  if (typeof value === 'object') throw new Refusal('template value should be a string');
  if (!isTemplateString(pyStr(value))) throw new Refusal('template value does not contain a dynamic template');
  return template(value);
}

/** cv.template_complex: lists and dicts walked, each str holding a template checked; kept as written. */
export function templateComplex(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(templateComplex);
  if (isDict(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = templateComplex(v);
    return out;
  }
  if (typeof value === 'string' && isTemplateString(value)) return template(value);
  return value;
}

/** vol.All(dict, cv.template_complex). */
export function templateDict(value: unknown): Record<string, unknown> {
  if (!isDict(value)) throw new Refusal('expected dict');
  return templateComplex(value) as Record<string, unknown>;
}

/** cv.SCRIPT_VARIABLES_SCHEMA: a dict of names to values that may hold templates. */
export function scriptVariables(value: unknown, path: Path): Record<string, unknown> {
  if (!isDict(value)) throw refuse('expected dict', path, value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = check([...path, k], v, templateComplex);
  return out;
}

const TIME_PERIOD_KEYS = ['days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;
const MS_PER = { days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1000, milliseconds: 1 };
const periodError = (value: unknown) => `offset ${pyStr(value)} should be format 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.F'`;

/** cv.time_period_str: `[+-]H:M[:S.F]`. */
function periodOfText(text: string): Period | undefined {
  let sign = 1;
  let body = text;
  if (body.startsWith('-')) [sign, body] = [-1, body.slice(1)];
  else if (body.startsWith('+')) body = body.slice(1);
  const parts = body.split(':');
  if (parts.length !== 2 && parts.length !== 3) return undefined;
  const [h, m] = [parseIntText(parts[0]), parseIntText(parts[1])];
  const s = parts.length === 3 ? parseFloatText(parts[2]) : 0;
  if (h === undefined || m === undefined || s === undefined) return undefined;
  return { ms: sign * Math.round(h * 3_600_000 + m * 60_000 + s * 1000) };
}

/** cv.time_period_dict: days, hours, minutes, seconds, milliseconds (floats), at least one. */
function periodOfDict(value: Record<string, unknown>, path: Path): Period {
  let ms = 0;
  for (const [k, v] of Object.entries(value)) {
    if (!(TIME_PERIOD_KEYS as readonly string[]).includes(k)) throw refuse('extra keys not allowed', [...path, k], v, false);
    ms += check([...path, k], v, (x) => cv.convert(cv.coerceFloat, x)) * MS_PER[k as keyof typeof MS_PER];
  }
  if (!Object.keys(value).length) throw refuse(`must contain at least one of ${TIME_PERIOD_KEYS.join(', ')}.`, path, value);
  return { ms: Math.round(ms) };
}

/** cv.time_period: a `HH:MM:SS` text, a number of seconds (or a text of one), or a dict of fields. */
export function timePeriod(value: unknown, path: Path): Period {
  if (isDict(value)) return periodOfDict(value, path);
  if (typeof value === 'string') {
    const p = periodOfText(value);
    if (p) return p;
    // time_period_seconds: float() of the text
    const seconds = parseFloatText(value);
    if (seconds !== undefined && Number.isFinite(seconds)) return { ms: Math.round(seconds * 1000) };
  }
  if (typeof value === 'number' && Number.isFinite(value)) return { ms: Math.round(value * 1000) };
  throw refuse(periodError(value), path, value);
}

/** cv.positive_time_period. */
export function positivePeriod(value: unknown, path: Path): Period {
  const p = timePeriod(value, path);
  if (p.ms < 0) throw refuse('Time period should be positive', path, value);
  return p;
}

/** cv.positive_time_period_template: a positive period, a dynamic template, or a dict whose fields may be templates. */
export function positivePeriodTemplate(value: unknown, path: Path): PeriodTemplate {
  if (typeof value === 'string' && isTemplateString(value)) return { template: check(path, value, dynamicTemplate) };
  if (isDict(value) && Object.entries(value).some(([k, v]) => isTemplateString(k) || (typeof v === 'string' && isTemplateString(v)))) {
    for (const [k, v] of Object.entries(value)) {
      if (!isTemplateString(k) && !(TIME_PERIOD_KEYS as readonly string[]).includes(k)) throw refuse('extra keys not allowed', [...path, k], v, false);
      if (typeof v === 'string' && isTemplateString(v)) continue;
      const n = check([...path, k], v, (x) => cv.convert(cv.coerceFloat, x));
      if (n < 0) throw refuse('value must be at least 0', [...path, k], v);
    }
    return { fields: check(path, value, templateDict) };
  }
  return positivePeriod(value, path);
}

// core.valid_entity_id: a domain and an object id of lower-case words, no double or edge underscores
const ENTITY_ID = /^(?!.+__)(?!_)[\da-z_]+(?<!_)\.(?!_)[\da-z_]+(?<!_)$/;
const FAKE_UUID = /^[0-9a-f]{32}$/;

/** cv.entity_id: one entity id, lower-cased. */
export function entityId(value: unknown): string {
  const text = cv.convert(cv.string, value).toLowerCase();
  if (ENTITY_ID.test(text)) return text;
  throw new Refusal(`Entity ID ${pyStr(value)} is an invalid entity ID`);
}

function entityIdsOf(value: unknown, allowUuid: boolean): string[] {
  if (value === null || value === undefined) throw new Refusal('Entity IDs cannot be None');
  const items = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : Array.isArray(value) ? value : null;
  if (!items) throw new Refusal(`Entity ID ${pyStr(value)} is an invalid entity ID`);
  return items.map((item) => {
    if (!allowUuid) return entityId(item);
    try {
      return entityId(item);
    } catch {
      if (typeof item === 'string' && FAKE_UUID.test(item)) return item;
      throw new Refusal(`Entity ${pyStr(item)} is neither a valid entity ID nor a valid UUID`);
    }
  });
}

/** cv.entity_ids: a list, or a comma-separated text, of entity ids. */
export const entityIds = (value: unknown) => entityIdsOf(value, false);
/** cv.entity_ids_or_uuids: entity ids or entity registry ids. */
export const entityIdsOrUuids = (value: unknown) => entityIdsOf(value, true);

/** cv.comp_entity_ids(_or_uuids): `all`, `none`, or entity ids. */
export function compEntityIds(value: unknown): string[] | 'all' | 'none' {
  if (typeof value === 'string' && ['all', 'none'].includes(value.toLowerCase())) return value.toLowerCase() as 'all' | 'none';
  return entityIdsOrUuids(value);
}

/** cv.entity_domain(domains): exactly one entity id of one of the domains. */
export function entityOfDomain(domains: readonly string[]) {
  return (value: unknown): string => {
    const ids = entityIds(value);
    for (const id of ids) {
      const domain = id.split('.')[0];
      if (!domains.includes(domain)) throw new Refusal(`Entity ID '${id}' does not belong to domain '${domains.length === 1 ? domains[0] : `[${domains.map((d) => `'${d}'`).join(', ')}]`}'`);
    }
    if (ids.length !== 1) throw new Refusal(`Expected exactly 1 entity, got ${ids.length}`);
    return ids[0];
  };
}

/** cv.service: `<domain>.<name>`, lower-cased. */
export function service(value: unknown): string {
  const text = cv.convert(cv.string, value).toLowerCase();
  if (ENTITY_ID.test(text)) return text;
  throw new Refusal(`Service ${pyStr(value)} does not match format <domain>.<name>`);
}

/** vol.Any(cv.service, cv.dynamic_template): a service name or a template of one. */
export function serviceOrTemplate(value: unknown): string {
  if (typeof value === 'string' && isTemplateString(value)) return dynamicTemplate(value);
  return service(value);
}

/** cv.time: a `HH:MM[:SS]` time of day, kept as written. */
export function timeOfDay(value: unknown): string {
  if (typeof value !== 'string') throw new Refusal('Not a parseable type');
  if (!parseTimeOfDay(value)) throw new Refusal(`Invalid time specified: ${value}`);
  return value;
}

/** vol.Any(cv.time, vol.All(str, cv.entity_domain([...]))): a time of day or an entity holding one. */
export function timeOrEntity(domains: readonly string[]) {
  const entity = entityOfDomain(domains);
  return (value: unknown): string => {
    try {
      return timeOfDay(value);
    } catch (err) {
      if (typeof value !== 'string') throw err;
      return entity(value);
    }
  };
}

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** cv.weekdays: one weekday or a list of them. */
export function weekdays(value: unknown, path: Path): string[] {
  return ensureList(value).map((day, i) =>
    check([...path, i], day, (d) => {
      if (typeof d !== 'string' || !WEEKDAYS.includes(d)) throw new Refusal(`value must be one of [${WEEKDAYS.map((w) => `'${w}'`).join(', ')}]`);
      return d;
    }),
  );
}

/** cv.sun_event: sunrise or sunset, any case. */
export function sunEvent(value: unknown): 'sunrise' | 'sunset' {
  const lower = typeof value === 'string' ? value.toLowerCase() : value;
  if (lower === 'sunrise' || lower === 'sunset') return lower;
  throw new Refusal(`value must be one of ['sunrise', 'sunset']`);
}

/** vol.In(choices) of literal values. */
export function oneOf<const T extends string>(choices: readonly T[]) {
  return (value: unknown): T => {
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    throw new Refusal(`value must be one of [${choices.map((c) => `'${c}'`).join(', ')}]`);
  };
}

/** vol.Any(cv.boolean, cv.template): an `enabled` that may be decided when run. */
export function booleanOrTemplate(value: unknown): boolean | Template {
  try {
    return cv.convert(cv.boolean, value);
  } catch (err) {
    if (typeof value === 'string' && isTemplateString(value)) return template(value);
    throw err;
  }
}

/** vol.All(cv.ensure_list, [cv.string]): at least none. */
export function stringList(value: unknown, path: Path): string[] {
  return ensureList(value).map((item, i) => check([...path, i], item, (x) => cv.convert(cv.string, x)));
}

/** vol.Any(vol.Coerce(float), vol.All(str, cv.entity_domain(...))): a numeric_state threshold. */
export function threshold(value: unknown): number | string {
  try {
    return cv.convert(cv.coerceFloat, value);
  } catch (err) {
    if (typeof value !== 'string') throw err;
    return entityOfDomain(['input_number', 'number', 'sensor', 'zone'])(value);
  }
}

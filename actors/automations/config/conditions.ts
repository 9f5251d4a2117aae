import { pyStr } from '../../../machines/python/repr.ts';
import * as cv from '../../voluptuous/cv.ts';
import type { Path } from '../../voluptuous/problems.ts';
import { Refusal } from '../../voluptuous/schema.ts';
import { DictReader, check, ensureList, isDict, pyStrOnly, refuse } from './read.ts';
import {
  booleanOrTemplate,
  dynamicTemplate,
  entityIds,
  entityIdsOrUuids,
  isTemplateString,
  positivePeriodTemplate,
  stringList,
  sunEvent,
  template,
  threshold,
  timeOrEntity,
  timePeriod,
  weekdays,
  type Period,
  type PeriodTemplate,
  type Template,
} from './validators.ts';

/**
 * Conditions as the original's CONDITION_SCHEMA reads them (config_validation.py): a dict keyed
 * by `condition`, the shorthands `{and: [...]}`, `{or: ...}`, `{not: ...}` and `condition: [...]`
 * expanded, and a bare template text made a template condition.
 */

/** What every condition may have. */
export interface ConditionBase {
  alias?: string;
  /** false, or a template deciding when the automation runs */
  enabled?: boolean | Template;
}

export interface StateCondition extends ConditionBase {
  condition: 'state';
  entity_id: string[];
  /** whether all the entities or any of them must match; `all` unless given */
  match: 'all' | 'any';
  attribute?: string;
  /** a state or a list of them; with `attribute`, any value */
  state: unknown;
  for?: PeriodTemplate;
}

export interface NumericStateCondition extends ConditionBase {
  condition: 'numeric_state';
  entity_id: string[];
  attribute?: string;
  /** a number, or the entity id of an input_number, number, sensor or zone holding one */
  below?: number | string;
  above?: number | string;
  value_template?: Template;
}

export interface TemplateCondition extends ConditionBase {
  condition: 'template';
  value_template: Template;
}

export interface TimeCondition extends ConditionBase {
  condition: 'time';
  /** `HH:MM[:SS]` or an input_datetime/sensor entity */
  before?: string;
  after?: string;
  weekday?: string[];
}

export interface SunCondition extends ConditionBase {
  condition: 'sun';
  before?: 'sunrise' | 'sunset';
  after?: 'sunrise' | 'sunset';
  before_offset?: Period;
  after_offset?: Period;
}

export interface ZoneCondition extends ConditionBase {
  condition: 'zone';
  entity_id: string[];
  zone: string[];
}

export interface TriggerCondition extends ConditionBase {
  condition: 'trigger';
  id: string[];
}

export interface LogicCondition extends ConditionBase {
  condition: 'and' | 'or' | 'not';
  conditions: Condition[];
}

/** A device's own condition: checked by its integration, kept as written here. */
export interface DeviceCondition extends ConditionBase {
  condition: 'device';
  device_id: string;
  domain: string;
  [key: string]: unknown;
}

export type Condition =
  | StateCondition
  | NumericStateCondition
  | TemplateCondition
  | TimeCondition
  | SunCondition
  | ZoneCondition
  | TriggerCondition
  | LogicCondition
  | DeviceCondition;

const KINDS = ['and', 'device', 'not', 'numeric_state', 'or', 'state', 'sun', 'template', 'time', 'trigger', 'zone'] as const;
const BASE_KEYS = ['alias', 'enabled', 'condition'];

/** alias and enabled, read as CONDITION_BASE_SCHEMA reads them. */
function readBase(r: DictReader): ConditionBase {
  const base: ConditionBase = {};
  if (r.has('alias')) base.alias = r.required('alias', cv.string);
  if (r.has('enabled')) base.enabled = r.checked('enabled', booleanOrTemplate);
  return base;
}

/** A list of conditions (vol.All(cv.ensure_list, [CONDITION_SCHEMA])). */
export function readConditions(value: unknown, path: Path): Condition[] {
  return ensureList(value).map((item, i) => readCondition(item, [...path, i]));
}

/** expand_condition_shorthand: `{and: [...]}` (with at most alias and enabled beside) and `condition: [...]`. */
function expandShorthand(value: Record<string, unknown>): Record<string, unknown> {
  if ('conditions' in value) return value;
  for (const key of ['and', 'or', 'not']) {
    if (key in value && Object.keys(value).every((k) => k === key || k === 'alias' || k === 'enabled')) {
      const { [key]: conditions, ...rest } = value;
      return { condition: key, conditions, ...rest };
    }
  }
  if (Array.isArray(value.condition)) return { ...value, condition: 'and', conditions: value.condition };
  return value;
}

/**
 * One condition (CONDITION_SCHEMA). Where it is a step of a script (`inAction`), a
 * `condition:` holding a template is a template condition too (CONDITION_ACTION_SCHEMA).
 */
export function readCondition(value: unknown, path: Path, inAction = false): Condition {
  if (!isDict(value)) {
    // a shorthand template condition; anything else, a bad template too, is refused as the first
    // alternative of the original's vol.Any refuses it
    if (typeof value === 'string' && !inAction) {
      try {
        return { condition: 'template', value_template: dynamicTemplate(value) };
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
      }
    }
    throw refuse(inAction ? 'expected dictionary' : 'Expected a dictionary', path, value);
  }
  const expanded = expandShorthand(value);
  const kind = expanded.condition;
  if (typeof kind === 'string' && (KINDS as readonly string[]).includes(kind)) return readOfKind(kind as (typeof KINDS)[number], expanded, path);
  if (inAction && typeof kind === 'string' && isTemplateString(kind)) {
    const r = new DictReader(expanded, path, BASE_KEYS);
    return { ...readBase(r), condition: 'template', value_template: check(r.at('condition'), kind, dynamicTemplate) };
  }
  const expected = inAction ? `${KINDS.join(', ')}, a list of conditions or a valid template` : KINDS.join(', ');
  throw refuse(`Unexpected value for condition: '${pyStr(kind ?? null)}'. Expected ${expected}`, path, value);
}

function readOfKind(kind: (typeof KINDS)[number], raw: Record<string, unknown>, path: Path): Condition {
  switch (kind) {
    case 'and':
    case 'or':
    case 'not': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'conditions']);
      return { ...readBase(r), condition: kind, conditions: r.need('conditions', readConditions) };
    }
    case 'state': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'entity_id', 'match', 'attribute', 'state', 'for', 'from']);
      const c: StateCondition = { ...readBase(r), condition: 'state', entity_id: r.need('entity_id', (v, p) => check(p, v, entityIdsOrUuids)), match: 'all', state: undefined };
      const match = r.checked('match', (v) => {
        const lower = typeof v === 'string' ? v.toLowerCase() : v;
        if (lower !== 'all' && lower !== 'any') throw new Refusal(`value must be one of ['all', 'any']`);
        return lower as 'all' | 'any';
      });
      if (match) c.match = match;
      if (r.has('attribute')) c.attribute = r.checked('attribute', pyStrOnly);
      c.state = r.need('state', (v, p) => {
        if (c.attribute !== undefined) return v;
        // vol.Any(str, [str]): no coercion, so an unquoted `on` (a bool) is refused
        if (Array.isArray(v)) return v.map((s, i) => check([...p, i], s, pyStrOnly));
        return check(p, v, pyStrOnly);
      });
      if (r.has('for')) c.for = r.read('for', positivePeriodTemplate);
      return c;
    }
    case 'numeric_state': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'entity_id', 'attribute', 'below', 'above', 'value_template']);
      const c: NumericStateCondition = { ...readBase(r), condition: 'numeric_state', entity_id: r.need('entity_id', (v, p) => check(p, v, entityIdsOrUuids)) };
      if (r.has('attribute')) c.attribute = r.checked('attribute', pyStrOnly);
      if (r.has('below')) c.below = r.checked('below', threshold);
      if (r.has('above')) c.above = r.checked('above', threshold);
      if (r.has('value_template')) c.value_template = r.checked('value_template', template);
      r.atLeastOne('below', 'above');
      return c;
    }
    case 'template': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'value_template']);
      return { ...readBase(r), condition: 'template', value_template: r.need('value_template', (v, p) => check(p, v, template)) };
    }
    case 'time': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'before', 'after', 'weekday']);
      const timeOrEntityOf = timeOrEntity(['input_datetime', 'sensor']);
      const c: TimeCondition = { ...readBase(r), condition: 'time' };
      if (r.has('before')) c.before = r.checked('before', timeOrEntityOf);
      if (r.has('after')) c.after = r.checked('after', timeOrEntityOf);
      if (r.has('weekday')) c.weekday = r.read('weekday', weekdays);
      r.atLeastOne('before', 'after', 'weekday');
      return c;
    }
    case 'sun': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'before', 'before_offset', 'after', 'after_offset']);
      const c: SunCondition = { ...readBase(r), condition: 'sun' };
      if (r.has('before')) c.before = r.checked('before', sunEvent);
      if (r.has('before_offset')) c.before_offset = r.read('before_offset', timePeriod);
      if (r.has('after')) c.after = r.checked('after', sunEvent);
      if (r.has('after_offset')) c.after_offset = r.read('after_offset', timePeriod);
      r.atLeastOne('before', 'after');
      return c;
    }
    case 'zone': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'entity_id', 'zone', 'event']);
      return {
        ...readBase(r),
        condition: 'zone',
        entity_id: r.need('entity_id', (v, p) => check(p, v, entityIds)),
        zone: r.need('zone', (v, p) => check(p, v, entityIds)),
      };
    }
    case 'trigger': {
      const r = new DictReader(raw, path, [...BASE_KEYS, 'id']);
      return { ...readBase(r), condition: 'trigger', id: r.need('id', stringList) };
    }
    case 'device': {
      const r = new DictReader(raw, path);
      const { metadata: _metadata, ...rest } = raw;
      return {
        ...rest,
        ...readBase(r),
        condition: 'device',
        device_id: r.need('device_id', (v, p) => check(p, v, pyStrOnly)),
        domain: r.need('domain', (v, p) => check(p, v, pyStrOnly)),
      };
    }
  }
}

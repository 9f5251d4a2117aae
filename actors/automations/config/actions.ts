import * as cv from '../../voluptuous/cv.ts';
import type { Path } from '../../voluptuous/problems.ts';
import { readCondition, readConditions, type Condition } from './conditions.ts';
import { DictReader, check, ensureList, isDict, pyStrOnly, refuse } from './read.ts';
import { readTriggers, type Trigger } from './triggers.ts';
import {
  booleanOrTemplate,
  compEntityIds,
  dynamicTemplate,
  entityOfDomain,
  isTemplateString,
  positivePeriodTemplate,
  scriptVariables,
  serviceOrTemplate,
  template,
  templateComplex,
  templateDict,
  type PeriodTemplate,
  type Template,
} from './validators.ts';

/**
 * The steps of a script or an automation's actions, as the original's SCRIPT_SCHEMA reads them
 * (config_validation.py): the kind found from the keys in the original's order of precedence
 * (determine_script_action), then that kind's schema; `service:` taken as `action:`.
 */

/** What every step may have (SCRIPT_ACTION_BASE_SCHEMA). */
export interface ActionBase {
  alias?: string;
  continue_on_error?: boolean;
  enabled?: boolean | Template;
}

/** A service call's target: entity, device, area, floor and label ids, or templates of them. */
export interface Target {
  entity_id?: string[] | 'all' | 'none' | Template | unknown[];
  device_id?: (string | Template)[] | 'none';
  area_id?: (string | Template)[] | 'none';
  floor_id?: (string | Template)[] | 'none';
  label_id?: (string | Template)[] | 'none';
}

/** A service call (`action: light.turn_on`; a script runs as `action: script.<name>`). */
export interface ServiceAction extends ActionBase {
  /** `<domain>.<service>`, or a template of one (the old `service:` and `service_template:`) */
  action: string;
  /** a top-level `entity_id` is moved here, where the original merges it at run time */
  target?: Target | Template;
  data?: Record<string, unknown> | Template;
  data_template?: Record<string, unknown> | Template;
  response_variable?: string;
}

export interface DelayAction extends ActionBase {
  delay: PeriodTemplate;
}

export interface WaitTemplateAction extends ActionBase {
  wait_template: Template;
  timeout?: PeriodTemplate;
  continue_on_timeout?: boolean;
}

export interface WaitForTriggerAction extends ActionBase {
  wait_for_trigger: Trigger[];
  timeout?: PeriodTemplate;
  continue_on_timeout?: boolean;
}

export interface EventAction extends ActionBase {
  event: string;
  event_data?: Record<string, unknown>;
  event_data_template?: Record<string, unknown>;
}

/** A condition as a step: the script stops when it fails. */
export type ConditionAction = Condition;

export interface ChooseOption {
  alias?: string;
  conditions: Condition[];
  sequence: Action[];
}

export interface ChooseAction extends ActionBase {
  choose: ChooseOption[];
  default?: Action[];
}

export interface IfAction extends ActionBase {
  if: Condition[];
  then: Action[];
  else?: Action[];
}

export interface Repeat {
  count?: number | Template;
  for_each?: Template | unknown[];
  while?: Condition[];
  until?: Condition[];
  sequence: Action[];
}

export interface RepeatAction extends ActionBase {
  repeat: Repeat;
}

export interface SequenceAction extends ActionBase {
  sequence: Action[];
}

export interface ParallelAction extends ActionBase {
  /** each branch a sequence (a lone step is made a sequence of one) */
  parallel: SequenceAction[];
}

export interface VariablesAction extends ActionBase {
  variables: Record<string, unknown>;
}

export interface StopAction extends ActionBase {
  stop: string | null;
  error?: boolean;
  response_variable?: string;
}

export interface SceneAction extends ActionBase {
  scene: string;
}

export interface SetConversationResponseAction extends ActionBase {
  set_conversation_response: Template | null;
}

/** A device's own action: checked by its integration, kept as written here. */
export interface DeviceAction extends ActionBase {
  device_id: string;
  domain: string;
  [key: string]: unknown;
}

export type Action =
  | ServiceAction
  | DelayAction
  | WaitTemplateAction
  | WaitForTriggerAction
  | EventAction
  | ConditionAction
  | ChooseAction
  | IfAction
  | RepeatAction
  | SequenceAction
  | ParallelAction
  | VariablesAction
  | StopAction
  | SceneAction
  | SetConversationResponseAction
  | DeviceAction;

/** The kinds of step, each by the key that makes it one, in the original's order of precedence. */
const KEY_KINDS = [
  ['delay', 'delay'],
  ['wait_template', 'wait_template'],
  ['condition', 'condition'],
  ['and', 'condition'],
  ['or', 'condition'],
  ['not', 'condition'],
  ['event', 'event'],
  ['device_id', 'device'],
  ['scene', 'scene'],
  ['repeat', 'repeat'],
  ['choose', 'choose'],
  ['wait_for_trigger', 'wait_for_trigger'],
  ['variables', 'variables'],
  ['if', 'if'],
  ['action', 'call_service'],
  ['service', 'call_service'],
  ['service_template', 'call_service'],
  ['stop', 'stop'],
  ['parallel', 'parallel'],
  ['sequence', 'sequence'],
  ['set_conversation_response', 'set_conversation_response'],
] as const;

export type ActionType = (typeof KEY_KINDS)[number][1];

/** determine_script_action: the kind of a step, by the first of its keys in the order above. */
export function actionType(action: Record<string, unknown>): ActionType | undefined {
  return KEY_KINDS.find(([key]) => key in action)?.[1];
}

const BASE_KEYS = ['alias', 'continue_on_error', 'enabled'];

function readBase(r: DictReader): ActionBase {
  const base: ActionBase = {};
  if (r.has('alias')) base.alias = r.required('alias', cv.string);
  if (r.has('continue_on_error')) base.continue_on_error = r.required('continue_on_error', cv.boolean);
  if (r.has('enabled')) base.enabled = r.checked('enabled', booleanOrTemplate);
  return base;
}

/** A list of steps (SCRIPT_SCHEMA: vol.All(cv.ensure_list, [script_action])). */
export function readActions(value: unknown, path: Path): Action[] {
  return ensureList(value).map((item, i) => readAction(item, [...path, i]));
}

/** vol.Any(template, vol.All(dict, template_complex)): service data. */
function serviceData(value: unknown): Record<string, unknown> | Template {
  if (isDict(value)) return templateDict(value);
  return template(value);
}

/** vol.Any(ENTITY_MATCH_NONE, vol.All(cv.ensure_list, [vol.Any(dynamic_template, str)])). */
function targetIds(value: unknown, path: Path): (string | Template)[] | 'none' {
  if (value === 'none') return 'none';
  return ensureList(value).map((id, i) =>
    check([...path, i], id, (x) => {
      if (typeof x === 'string' && isTemplateString(x)) return dynamicTemplate(x);
      return pyStrOnly(x);
    }),
  );
}

/** vol.Any(TARGET_SERVICE_FIELDS, cv.dynamic_template). */
function readTarget(value: unknown, path: Path): Target | Template {
  if (typeof value === 'string') return check(path, value, dynamicTemplate);
  const r = DictReader.of(value, path, ['entity_id', 'device_id', 'area_id', 'floor_id', 'label_id']);
  const target: Target = {};
  if (r.has('entity_id')) {
    target.entity_id = r.checked('entity_id', (v) => {
      if (typeof v === 'string' && isTemplateString(v)) return dynamicTemplate(v);
      if (Array.isArray(v) && v.some((x) => typeof x === 'string' && isTemplateString(x))) return templateComplex(v) as unknown[];
      return compEntityIds(v);
    });
  }
  for (const key of ['device_id', 'area_id', 'floor_id', 'label_id'] as const) if (r.has(key)) target[key] = r.read(key, targetIds);
  return target;
}

/** The old `service:` as `action:` (both at once refused, as the original does). */
function renamed(value: Record<string, unknown>, path: Path): Record<string, unknown> {
  if (!('service' in value)) return value;
  if ('action' in value) throw refuse("Cannot specify both 'service' and 'action'. Please use 'action' only.", path, value);
  const { service, ...rest } = value;
  return { action: service, ...rest };
}

function readService(raw: Record<string, unknown>, path: Path): ServiceAction {
  const r = new DictReader(raw, path, [...BASE_KEYS, 'action', 'service_template', 'data', 'data_template', 'entity_id', 'target', 'response_variable', 'metadata']);
  r.exclusive('service name', 'action', 'service_template');
  const key = r.has('action') ? 'action' : 'service_template';
  const a: ServiceAction = { ...readBase(r), action: r.need(key, (v, p) => check(p, v, serviceOrTemplate)) };
  if (r.has('target')) a.target = r.read('target', readTarget);
  if (r.has('entity_id')) {
    const ids = r.checked('entity_id', compEntityIds);
    // the original merges a top-level entity_id into the target when it runs
    if (typeof a.target === 'string') throw r.error('entity_id', 'extra keys not allowed');
    a.target = { ...(a.target ?? {}), entity_id: ids };
  }
  if (r.has('data')) a.data = r.checked('data', serviceData);
  if (r.has('data_template')) a.data_template = r.checked('data_template', serviceData);
  if (r.has('response_variable')) a.response_variable = r.checked('response_variable', pyStrOnly);
  return a;
}

/** A parallel branch: a `{sequence: [...]}` step, or any step (or list of them) made a sequence. */
function readBranch(value: unknown, path: Path): SequenceAction {
  if (isDict(value) && 'sequence' in value && Object.keys(value).every((k) => k === 'sequence' || BASE_KEYS.includes(k))) {
    const r = new DictReader(value, path, [...BASE_KEYS, 'sequence']);
    return { ...readBase(r), sequence: r.need('sequence', readActions) };
  }
  return { sequence: readActions(value, path) };
}

function readRepeat(value: unknown, path: Path): Repeat {
  const r = DictReader.of(value, path, ['count', 'for_each', 'while', 'until', 'sequence']);
  r.exclusive('repeat', 'count', 'for_each', 'while', 'until');
  const repeat: Repeat = { sequence: r.need('sequence', readActions) };
  if (r.has('count')) {
    repeat.count = r.checked('count', (v) => {
      if (typeof v === 'string' && isTemplateString(v)) return template(v);
      return cv.convert(cv.coerceInt, v);
    });
  }
  if (r.has('for_each')) {
    repeat.for_each = r.checked('for_each', (v) => {
      if (Array.isArray(v)) return templateComplex(v) as unknown[];
      return dynamicTemplate(v);
    });
  }
  if (r.has('while')) repeat.while = r.read('while', readConditions);
  if (r.has('until')) repeat.until = r.read('until', readConditions);
  if (!['count', 'for_each', 'while', 'until'].some((k) => r.has(k))) throw r.error(undefined, 'must contain at least one of count, for_each, while, until.');
  return repeat;
}

/** One step of a script. */
export function readAction(value: unknown, path: Path): Action {
  if (!isDict(value)) throw refuse('expected dictionary', path, value);
  const kind = actionType(value);
  if (!kind) throw refuse('Unable to determine action', path, value);
  const keys = (...own: string[]) => [...BASE_KEYS, ...own];
  switch (kind) {
    case 'call_service':
      return readService(renamed(value, path), path);
    case 'delay': {
      const r = new DictReader(value, path, keys('delay'));
      return { ...readBase(r), delay: r.need('delay', positivePeriodTemplate) };
    }
    case 'wait_template': {
      const r = new DictReader(value, path, keys('wait_template', 'timeout', 'continue_on_timeout'));
      const a: WaitTemplateAction = { ...readBase(r), wait_template: r.need('wait_template', (v, p) => check(p, v, template)) };
      if (r.has('timeout')) a.timeout = r.read('timeout', positivePeriodTemplate);
      if (r.has('continue_on_timeout')) a.continue_on_timeout = r.required('continue_on_timeout', cv.boolean);
      return a;
    }
    case 'wait_for_trigger': {
      const r = new DictReader(value, path, keys('wait_for_trigger', 'timeout', 'continue_on_timeout'));
      const a: WaitForTriggerAction = { ...readBase(r), wait_for_trigger: r.need('wait_for_trigger', readTriggers) };
      if (r.has('timeout')) a.timeout = r.read('timeout', positivePeriodTemplate);
      if (r.has('continue_on_timeout')) a.continue_on_timeout = r.required('continue_on_timeout', cv.boolean);
      return a;
    }
    case 'event': {
      const r = new DictReader(value, path, keys('event', 'event_data', 'event_data_template'));
      const a: EventAction = { ...readBase(r), event: r.required('event', cv.string) };
      if (r.has('event_data')) a.event_data = r.checked('event_data', templateDict);
      if (r.has('event_data_template')) a.event_data_template = r.checked('event_data_template', templateDict);
      return a;
    }
    case 'condition':
      return readCondition(value, path, true);
    case 'choose': {
      const r = new DictReader(value, path, keys('choose', 'default'));
      const a: ChooseAction = {
        ...readBase(r),
        choose: r.need('choose', (v, p) =>
          ensureList(v).map((option, i) => {
            const o = DictReader.of(option, [...p, i], ['alias', 'conditions', 'sequence']);
            const read: ChooseOption = { conditions: o.need('conditions', readConditions), sequence: o.need('sequence', readActions) };
            if (o.has('alias')) read.alias = o.required('alias', cv.string);
            return read;
          }),
        ),
      };
      if (r.has('default')) a.default = r.read('default', readActions);
      return a;
    }
    case 'if': {
      const r = new DictReader(value, path, keys('if', 'then', 'else'));
      const a: IfAction = { ...readBase(r), if: r.need('if', readConditions), then: r.need('then', readActions) };
      if (r.has('else')) a.else = r.read('else', readActions);
      return a;
    }
    case 'repeat': {
      const r = new DictReader(value, path, keys('repeat'));
      return { ...readBase(r), repeat: r.need('repeat', readRepeat) };
    }
    case 'sequence': {
      const r = new DictReader(value, path, keys('sequence'));
      return { ...readBase(r), sequence: r.need('sequence', readActions) };
    }
    case 'parallel': {
      const r = new DictReader(value, path, keys('parallel'));
      return { ...readBase(r), parallel: r.need('parallel', (v, p) => ensureList(v).map((b, i) => readBranch(b, [...p, i]))) };
    }
    case 'variables': {
      const r = new DictReader(value, path, keys('variables'));
      return { ...readBase(r), variables: r.need('variables', scriptVariables) };
    }
    case 'stop': {
      const r = new DictReader(value, path, keys('stop', 'error', 'response_variable'));
      const a: StopAction = { ...readBase(r), stop: r.need('stop', (v, p) => (v === null ? null : check(p, v, (x) => cv.convert(cv.string, x)))) };
      if (r.has('error') && r.has('response_variable')) throw r.error('response_variable', 'not allowed to add a response to an error stop action');
      if (r.has('error')) a.error = r.required('error', cv.boolean);
      if (r.has('response_variable')) a.response_variable = r.checked('response_variable', pyStrOnly);
      return a;
    }
    case 'scene': {
      const r = new DictReader(value, path, keys('scene'));
      return { ...readBase(r), scene: r.need('scene', (v, p) => check(p, v, entityOfDomain(['scene']))) };
    }
    case 'set_conversation_response': {
      const r = new DictReader(value, path, keys('set_conversation_response'));
      const response = r.raw.set_conversation_response;
      return { ...readBase(r), set_conversation_response: response === null ? null : check(r.at('set_conversation_response'), response, template) };
    }
    case 'device': {
      const r = new DictReader(value, path);
      const { metadata: _metadata, ...rest } = value;
      return {
        ...rest,
        ...readBase(r),
        device_id: r.need('device_id', (v, p) => check(p, v, (x) => cv.convert(cv.string, x))),
        domain: r.need('domain', (v, p) => check(p, v, pyStrOnly)),
      };
    }
  }
}

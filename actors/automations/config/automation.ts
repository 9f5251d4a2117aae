import * as cv from '../../voluptuous/cv.ts';
import { readActions, type Action } from './actions.ts';
import { readConditions, type Condition } from './conditions.ts';
import { ConfigProblem, DictReader, Gathered, check, isDict, pyFalsy, pyStrOnly, refuse } from './read.ts';
import { RUN_MODE_KEYS, readRunLimits, sectionsOf, type RunLimits } from './script.ts';
import { readTriggers, type Trigger } from './triggers.ts';
import { scriptVariables } from './validators.ts';

/**
 * The `automation:` section as the original's automation/config.py reads it: every
 * `automation` and `automation <label>` section (a list, or one automation), the old keys
 * `trigger`/`condition`/`action` taken as `triggers`/`conditions`/`actions`, then PLATFORM_SCHEMA
 * with its triggers, conditions and actions. An invalid automation is reported with its id,
 * alias and the field at fault, and the others load.
 */

/** An automation, read and normalised to the current keys. */
export interface AutomationConfig extends RunLimits {
  /** the id the editor gives it (a str as written: the original does not coerce it) */
  id?: string;
  alias?: string;
  description?: string;
  /** on or off at start; when absent, the last state is restored (on the first time) */
  initial_state?: boolean;
  trace: { stored_traces?: number };
  variables?: Record<string, unknown>;
  trigger_variables?: Record<string, unknown>;
  triggers: Trigger[];
  conditions?: Condition[];
  actions: Action[];
}

/** Which part of the automation failed, as the original's validation_status names it. */
export type ValidationStatus = 'failed_schema' | 'failed_triggers' | 'failed_conditions' | 'failed_actions';

/** An automation the original would refuse: kept by id and alias (the original shows it unavailable), with what is wrong. */
export interface InvalidAutomation {
  id?: string;
  alias?: string;
  description?: string;
  status: ValidationStatus;
  /** `Invalid config for 'automation' (id: x, alias: y): <problem>` */
  message: string;
  problem?: ConfigProblem;
}

const KEYS = ['id', 'alias', 'description', 'trace', 'initial_state', 'hide_entity', 'triggers', 'conditions', 'variables', 'trigger_variables', 'actions', ...RUN_MODE_KEYS];

/** cv.renamed(old, new) for the three lists: the old key taken for the new, both at once refused. */
function renamed(raw: Record<string, unknown>): Record<string, unknown> {
  let out = raw;
  for (const [old, current] of [
    ['trigger', 'triggers'],
    ['action', 'actions'],
    ['condition', 'conditions'],
  ]) {
    if (!(old in out)) continue;
    if (current in out) throw refuse(`Cannot specify both '${old}' and '${current}'. Please use '${current}' only.`, [], raw);
    const { [old]: value, ...rest } = out;
    out = { ...rest, [current]: value };
  }
  return out;
}

/** One automation (PLATFORM_SCHEMA, then its triggers, conditions and actions). */
export function readAutomation(value: unknown): AutomationConfig {
  if (!isDict(value)) throw refuse('expected a dictionary', [], value);
  if ('use_blueprint' in value) throw refuse('automations from blueprints are not read yet', ['use_blueprint'], value.use_blueprint);
  const g = new Gathered();
  const r = DictReader.gathering(renamed(value), [], KEYS, g);
  const automation: AutomationConfig = {
    trace:
      g.take(() =>
        r.read('trace', (v, p) => {
          const t = DictReader.of(v, p, ['stored_traces']);
          return t.has('stored_traces') ? { stored_traces: t.required('stored_traces', cv.positiveInt) } : {};
        }),
      ) ?? {},
    ...readRunLimits(r, g),
    triggers: g.take(() => r.need('triggers', readTriggers)) ?? [],
    actions: [],
  };
  if (r.has('id')) automation.id = g.take(() => r.checked('id', pyStrOnly));
  if (r.has('alias')) automation.alias = g.take(() => r.required('alias', cv.string));
  if (r.has('description')) automation.description = g.take(() => r.required('description', cv.string));
  if (r.has('initial_state')) automation.initial_state = g.take(() => r.required('initial_state', cv.boolean));
  if (r.has('hide_entity')) g.take(() => r.required('hide_entity', cv.boolean));
  if (r.has('variables')) automation.variables = g.take(() => r.read('variables', scriptVariables));
  if (r.has('trigger_variables')) automation.trigger_variables = g.take(() => r.read('trigger_variables', scriptVariables));
  if (r.has('conditions')) automation.conditions = g.take(() => r.read('conditions', readConditions));
  automation.actions = g.take(() => r.need('actions', readActions)) ?? [];
  // every key's problem at once, as the original's schema reports them
  g.done();
  return automation;
}

// The original checks the whole automation with one schema (failed_schema) and only then each
// trigger's own schema (failed_triggers; inside wait_for_trigger, with the actions: failed_actions).
function statusOf(problem: ConfigProblem): ValidationStatus {
  if (!problem.late) return 'failed_schema';
  return problem.problem.path[0] === 'actions' ? 'failed_actions' : 'failed_triggers';
}

/** The original's _MINIMAL_PLATFORM_SCHEMA: what can still be told of a refused automation. */
function minimal(value: unknown): Pick<InvalidAutomation, 'id' | 'alias' | 'description'> {
  const out: Pick<InvalidAutomation, 'id' | 'alias' | 'description'> = {};
  if (!isDict(value)) return out;
  if (typeof value.id === 'string') out.id = value.id;
  for (const key of ['alias', 'description'] as const) {
    try {
      if (value[key] !== undefined && value[key] !== null) out[key] = check([key], value[key], (v) => cv.convert(cv.string, v));
    } catch {
      // not a str: left out, as the minimal schema would refuse it
    }
  }
  return out;
}

/** `(id: x, alias: y)`, of what the automation has. */
function named(who: Pick<InvalidAutomation, 'id' | 'alias'>): string {
  const parts = [who.id !== undefined ? `id: ${who.id}` : undefined, who.alias !== undefined ? `alias: ${who.alias}` : undefined].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Every automation of configuration.yaml's sections: those that load, and those refused with why. */
export function readAutomationSections(sections: Record<string, unknown>): { automations: AutomationConfig[]; invalid: InvalidAutomation[] } {
  const automations: AutomationConfig[] = [];
  const invalid: InvalidAutomation[] = [];
  for (const section of sectionsOf(sections, 'automation')) {
    // config_per_platform: an empty section has none, one automation alone is a list of one
    if (pyFalsy(section)) continue;
    for (const item of Array.isArray(section) ? section : [section]) {
      try {
        automations.push(readAutomation(item));
      } catch (err) {
        if (!(err instanceof ConfigProblem)) throw err;
        const who = minimal(item);
        invalid.push({ ...who, status: statusOf(err), message: `Invalid config for 'automation'${named(who)}: ${err.message}`, problem: err });
      }
    }
  }
  return { automations, invalid };
}

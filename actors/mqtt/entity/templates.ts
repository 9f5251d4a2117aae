import type { EntityState } from '../../entities/types.ts';
import { stateVariable, type Templates } from '../../templates/index.ts';
import { fromJson } from '../../templates/render-env.ts';
import { str } from '../../templates/values.ts';

/**
 * MQTT's templates on Hearth's template engine, with the original's variables: a value template
 * sees `value` (the payload), `value_json` (the payload as JSON, when it is), `entity_id`,
 * `name` and `this` (the entity's state); a command template sees `value` (what is sent) and the
 * same entity variables. A failed render is a warning worded as the original's.
 */

/** The entity a template renders for. */
export interface TemplateEntity {
  entityId: string;
  name: string | null;
  state: EntityState | undefined;
}

export type Rendered = { ok: true; text: string } | { ok: false; warning: string };

const NOT_JSON = Symbol('not JSON');

/** `{{ value_json.<key> }}`, the value template zigbee2mqtt gives every entity, and the key it reads. */
const VALUE_JSON_KEY = /^\s*\{\{\s*value_json\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;
/** names a dict answers with a method of its own rather than an item */
const DICT_METHODS = new Set(['items', 'keys', 'values', 'get', 'pop', 'popitem', 'update', 'copy', 'clear', 'setdefault', 'fromkeys']);

export class MqttTemplates {
  /** the key each template reads when it is `{{ value_json.<key> }}` (null when it is another template) */
  private readonly simple = new Map<string, string | null>();
  /** the last payload parsed: the entities of one state topic all get the same message */
  private lastPayload: string | undefined;
  private lastParsed: unknown;

  constructor(
    private readonly templates: Templates,
    private readonly log?: (line: string) => void,
  ) {}

  private variables(entity: TemplateEntity | undefined, value: unknown): Record<string, unknown> {
    const vars: Record<string, unknown> = { value };
    if (!entity) return vars;
    vars.entity_id = entity.entityId;
    vars.name = entity.name;
    if (entity.state) vars.this = stateVariable(entity.state);
    return vars;
  }

  /** A received payload through a value template (the original's render_with_possible_json_value). */
  value(template: string, payload: string, entity?: TemplateEntity): Rendered {
    const parsed = this.parse(payload);
    // the value of a key of a JSON object, as the engine would print it, without a render
    const key = this.simpleKey(template);
    if (key !== null && parsed !== NOT_JSON && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.hasOwn(parsed, key)) {
      const v = (parsed as Record<string, unknown>)[key];
      if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return { ok: true, text: str(fromJson(v)).trim() };
    }
    const vars = this.variables(entity, payload);
    // not JSON: the template has `value` only
    if (parsed !== NOT_JSON) vars.value_json = parsed;
    const out = this.templates.render(template, vars, { log: this.log && ((_, m) => this.log!(m)) });
    if (out.ok) return { ok: true, text: out.text };
    const who = entity ? ` for entity '${entity.entityId}'` : '';
    return { ok: false, warning: `${out.error.toString()} rendering template${who}, template: '${template}' and payload: ${payload}` };
  }

  /**
   * Whether a template (undefined: none) gives the same text for the same payload whatever else
   * changes: none, or `{{ value_json.<key> }}`.
   */
  readsOnlyPayload(template: unknown): boolean {
    if (template === undefined) return true;
    if (typeof template !== 'string') return false;
    return this.simpleKey(template) !== null;
  }

  private simpleKey(template: string): string | null {
    let key = this.simple.get(template);
    if (key === undefined) {
      const m = VALUE_JSON_KEY.exec(template);
      key = m && !DICT_METHODS.has(m[1]) ? m[1] : null;
      if (this.simple.size < 10_000) this.simple.set(template, key);
    }
    return key;
  }

  /** A payload as JSON (the last one is kept: a device's message reaches each of its entities); NOT_JSON when it is not. */
  private parse(payload: string): unknown {
    if (payload === this.lastPayload) return this.lastParsed;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      parsed = NOT_JSON;
    }
    this.lastPayload = payload;
    this.lastParsed = parsed;
    return parsed;
  }

  /** A value to send through a command template, with the platform's variables (a light's `red`, a siren's tone), as the original's MqttCommandTemplate takes them. */
  command(template: string, value: unknown, entity?: TemplateEntity, extra?: Record<string, unknown>): Rendered {
    const out = this.templates.render(template, { ...extra, ...this.variables(entity, value) }, { log: this.log && ((_, m) => this.log!(m)) });
    if (out.ok) return { ok: true, text: out.text };
    const who = entity ? ` for entity '${entity.entityId}'` : '';
    return { ok: false, warning: `${out.error.toString()} rendering template${who}, template: '${template}' and payload: ${String(value)}` };
  }
}

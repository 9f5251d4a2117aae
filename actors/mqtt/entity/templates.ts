import type { EntityState } from '../../entities/types.ts';
import { stateVariable, type Templates } from '../../templates/index.ts';

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

export class MqttTemplates {
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
    const vars = this.variables(entity, payload);
    try {
      vars.value_json = JSON.parse(payload);
    } catch {
      // not JSON: the template has `value` only
    }
    const out = this.templates.render(template, vars, { log: this.log && ((_, m) => this.log!(m)) });
    if (out.ok) return { ok: true, text: out.text };
    const who = entity ? ` for entity '${entity.entityId}'` : '';
    return { ok: false, warning: `${out.error.toString()} rendering template${who}, template: '${template}' and payload: ${payload}` };
  }

  /** A value to send through a command template (`extra`: more variables, a siren's tone and duration). */
  command(template: string, value: unknown, entity?: TemplateEntity, extra?: Record<string, unknown>): Rendered {
    const out = this.templates.render(template, { ...extra, ...this.variables(entity, value) }, { log: this.log && ((_, m) => this.log!(m)) });
    if (out.ok) return { ok: true, text: out.text };
    const who = entity ? ` for entity '${entity.entityId}'` : '';
    return { ok: false, warning: `${out.error.toString()} rendering template${who}, template: '${template}' and payload: ${String(value)}` };
  }
}

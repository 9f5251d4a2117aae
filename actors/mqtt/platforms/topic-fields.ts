import { optional, toTemplate, type Fields } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';

/**
 * The options of one part of an entity that has topics of its own (a fan's percentage, a
 * light's brightness, a climate's fan mode): `<part>_command_topic` and `<part>_command_template`
 * (unless `command` is false), `<part>_state_topic` and `<part>_<stateTemplate>_template` (unless
 * `state` is false; the template is `value` for most platforms, `state` for climate).
 */
export function partTopicFields(part: string, { command = true, state = true, stateTemplate = 'value' }: { command?: boolean; state?: boolean; stateTemplate?: 'value' | 'state' } = {}): Fields {
  return {
    ...(command ? { [`${part}_command_topic`]: optional(validPublishTopic), [`${part}_command_template`]: optional(toTemplate) } : {}),
    ...(state ? { [`${part}_state_topic`]: optional(validSubscribeTopic), [`${part}_${stateTemplate}_template`]: optional(toTemplate) } : {}),
  };
}

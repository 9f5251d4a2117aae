import { mqttBasicLight } from './light-basic.ts';
import { mqttJsonLight } from './light-json.ts';
import { LIGHT_SCHEMAS } from './light-shared.ts';
import { mqttTemplateLight } from './light-template.ts';
import type { MqttPlatform } from './types.ts';

const BY_SCHEMA: Record<string, MqttPlatform> = { basic: mqttBasicLight, json: mqttJsonLight, template: mqttTemplateLight };

/**
 * light: the original's three schemas, `schema: basic` (the default: a topic per attribute),
 * `json` (one JSON document each way) and `template` (templates render commands and read
 * states). The config's `schema` picks the variant that reads and runs it; an unknown schema is
 * refused by the basic variant's own check of the option.
 */
export const mqttLight: MqttPlatform = {
  ...mqttBasicLight,
  variant: (raw) => {
    const schema = typeof raw.schema === 'string' ? raw.schema.toLowerCase() : 'basic';
    return (LIGHT_SCHEMAS as readonly string[]).includes(schema) ? BY_SCHEMA[schema] : mqttBasicLight;
  },
};

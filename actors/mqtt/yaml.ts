import type { Context } from '../../store/types.ts';
import type { Logger } from '../logging/logs.ts';
import type { YamlItem } from './config.ts';
import { readEntityConfig } from './entity/config.ts';
import type { MqttEntities } from './entity/manager.ts';
import { MQTT_PLATFORMS } from './platforms/index.ts';
import { Invalid } from './schema.ts';

export const YAML_KEY = 'yaml:';

/**
 * The entities of configuration.yaml's `mqtt:` section: each item validated by its platform (an
 * invalid one is logged, as the original logs a manually configured item it refuses, and the
 * others are set up), then set; items gone since the last time are removed. An item is known by
 * its unique_id when it has one, else by its place.
 */
export async function applyYamlEntities(items: YamlItem[], entities: MqttEntities, known: Set<string>, log: Logger, context: Context, file: string): Promise<void> {
  const seen = new Set<string>();
  for (const item of items) {
    const platform = MQTT_PLATFORMS.get(item.domain);
    if (!platform) {
      log.error(`MQTT ${item.domain} is not supported by Hearth yet: ${item.where} is left out`);
      continue;
    }
    let config;
    try {
      config = readEntityConfig(platform, item.raw, 'forbid');
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      log.error(`${err.message} for manually configured MQTT ${item.domain} item, in ${file}, at ${item.where} Got ${JSON.stringify(item.raw)}`);
      continue;
    }
    const key = `${YAML_KEY}${item.domain}:${config.unique_id ?? item.where}`;
    seen.add(key);
    await entities.apply(key, platform, config, context);
  }
  for (const key of known) {
    if (seen.has(key)) continue;
    const domain = key.slice(YAML_KEY.length, key.indexOf(':', YAML_KEY.length));
    await entities.apply(key, MQTT_PLATFORMS.get(domain)!, undefined, context);
  }
  known.clear();
  for (const key of seen) known.add(key);
}

import type { HelperDomain } from '../entities/types.ts';
import type { EntityInfo } from './types.ts';

/**
 * The entity-registry entries of a helper domain's configuration.yaml items: the original's
 * YAML helpers (input_boolean...) have their key as unique id, so each gets an entry
 * (platform: the domain) that a client can give an area, labels or a name.
 */
export function helperEntries(domain: Pick<HelperDomain, 'domain' | 'parseConfig'>, section: unknown): EntityInfo[] {
  const items = section === undefined || section === null ? [] : domain.parseConfig(section);
  return items.map((item) => ({
    entity_id: `${domain.domain}.${item.objectId}`,
    unique_id: item.objectId,
    platform: domain.domain,
    original_name: typeof item.config?.name === 'string' ? item.config.name : null,
    original_icon: typeof item.config?.icon === 'string' ? item.config.icon : null,
  }));
}

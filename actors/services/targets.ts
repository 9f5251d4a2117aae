/**
 * What the service registry asks of the registries about a call's device, area, floor and
 * label targets. The services know only this interface, not the registries.
 */

/** The ids a call names besides entity ids, each key as a list (`none` names nothing). */
export interface TargetRefs {
  device_id: string[];
  area_id: string[];
  floor_id: string[];
  label_id: string[];
}

/** The entities those ids reach, and the ids no registry knows (the original warns of them, never refuses). */
export interface TargetExpansion {
  entityIds: string[];
  missing: { floors: string[]; areas: string[]; devices: string[]; labels: string[] };
}

export interface TargetResolver {
  /** The original's async_extract_referenced_entity_ids, for what it calls indirectly referenced. */
  expand(refs: TargetRefs): TargetExpansion;
  /** True for an entity the registry has disabled: no call reaches it. */
  isDisabled(entityId: string): boolean;
}

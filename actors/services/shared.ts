import type { ServiceCall, ServiceSpec } from './types.ts';

const providers = new WeakMap<ServiceSpec, ServiceSpec[]>();

/**
 * One entity service provided by several platforms: described by the first, each call split by
 * entity among the providers (those with `owns` take the entities they own, the one without
 * takes the rest); every provider runs, each with its share, as the original runs an entity
 * service on each platform's entities.
 */
export function sharedService(registered: ServiceSpec, added: ServiceSpec): ServiceSpec {
  const list = [...(providers.get(registered) ?? [registered]), added];
  const shared: ServiceSpec = {
    ...list[0],
    owns: undefined,
    async handler(call: ServiceCall) {
      const claimed = new Set<string>();
      const shares = list.map((spec) => {
        if (!spec.owns) return { spec, ids: [] as string[] };
        const ids = call.entityIds.filter((id) => spec.owns!(id));
        for (const id of ids) claimed.add(id);
        return { spec, ids };
      });
      for (const share of shares) if (!share.spec.owns) share.ids = call.entityIds.filter((id) => !claimed.has(id));
      await Promise.all(shares.map(({ spec, ids }) => spec.handler({ ...call, entityIds: ids })));
    },
  };
  providers.set(shared, list);
  return shared;
}

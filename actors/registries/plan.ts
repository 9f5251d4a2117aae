import type { RegistryRecord } from './state.ts';

/** One record a change appends: a registry record, or (stream `bus`) the bus event telling of it. */
export interface Step {
  stream: string;
  type: string;
  data: unknown;
}

/** The stream bus events go to. */
export const BUS_STREAM = 'bus';

/**
 * The records one change of the registries appends, in the order the original fires its events
 * (a removed area's devices and entities are updated before the area goes). A plan is worked
 * out against the committed entries and appended as one batch, so a change is whole or absent.
 */
export class Plan {
  readonly steps: Step[] = [];
  /** entity ids this plan gives to new entries, which the committed entries do not know yet */
  readonly newEntityIds = new Set<string>();

  constructor(readonly now: number) {}

  record(stream: string, kind: RegistryRecord): void {
    this.steps.push({ stream, ...kind });
  }

  /** A bus event (`area_registry_updated`...) with the original's data. */
  event(type: string, data: Record<string, unknown>): void {
    this.steps.push({ stream: BUS_STREAM, type, data });
  }
}

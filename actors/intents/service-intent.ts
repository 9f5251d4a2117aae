import type { EntityState } from '../entities/types.ts';
import { IntentHandleError, type MatchConstraints } from './errors.ts';
import type { IntentHome } from './platforms.ts';
import { IntentResponse } from './response.ts';
import { nonEmptyString, slotValue, str, stringList } from './slots.ts';
import { matchTargets, stateName, type MatchPreferences, type MatchResult } from './targeting.ts';
import type { Intent, IntentHandler, IntentTarget, SlotValidator } from './types.ts';

/** How long a handler waits for each service call before leaving it to finish on its own. */
export const SERVICE_TIMEOUT_MS = 200;

/** A slot the handler declares: copied into the service data (under `serviceKey`, else its name). */
export interface DeclaredSlot {
  validator: SlotValidator;
  serviceKey?: string;
}

/** What a service intent does, and what it asks of its targets. */
export interface ServiceIntentOptions {
  intentType: string;
  description?: string;
  /** the service called for every target, unless `serviceFor` chooses per entity */
  domain?: string;
  service?: string;
  /**
   * The service for one matched entity, chosen before any call (the original's
   * DynamicServiceIntentHandler); an IntentHandleError it throws fails the whole intent.
   */
  serviceFor?(state: EntityState, intent: Intent): { domain: string; service: string };
  /**
   * The service actually called for one entity, chosen as its call starts (the original's
   * OnOffIntentHandler.async_call_service): an error it throws fails that entity only.
   */
  routeCall?(state: EntityState, target: { domain: string; service: string }): { domain: string; service: string };
  requiredSlots?: Record<string, DeclaredSlot>;
  optionalSlots?: Record<string, DeclaredSlot>;
  /** only entities of these domains are targets */
  requiredDomains?: string[];
  /** supported_features bits every target must have */
  requiredFeatures?: number;
  /** states every target must be in */
  requiredStates?: string[];
  /** the device classes the `device_class` slot may name */
  deviceClasses?: string[];
  /** spoken on success, `{}` replaced by the first floor's, area's or entity's name */
  speech?: string;
  /**
   * The matched states the service is called on (the original's handlers that override
   * async_handle_states): the media player intents remember what a pause reached and resume it.
   */
  targets?(intent: Intent, states: EntityState[], constraints: MatchConstraints): EntityState[];
}

/** The standard targeting slots of a service intent (the original's ServiceIntentHandler). */
export function targetingSlots(deviceClasses?: string[]): NonNullable<IntentHandler['slotSchema']> {
  return {
    name: { validator: nonEmptyString },
    area: { validator: nonEmptyString },
    floor: { validator: nonEmptyString },
    domain: { validator: stringList() },
    device_class: { validator: stringList(deviceClasses ? new Set(deviceClasses) : undefined) },
    preferred_area_id: { validator: str },
    preferred_floor_id: { validator: str },
  };
}

/** Python's repr of a list of strings, as the original's messages show one. */
export const pyList = (items: string[]) => `[${items.map((s) => `'${s}'`).join(', ')}]`;

/** The constraints and preferences of an intent's standard targeting slots. */
export function targetingOf(intent: Intent, extra: Partial<MatchConstraints> = {}): { constraints: MatchConstraints; preferences: MatchPreferences } {
  let name = slotValue<string>(intent.slots, 'name') ?? null;
  // "all" targets everything the other slots allow
  if (name === 'all') name = null;
  const domains = slotValue<string[]>(intent.slots, 'domain');
  const deviceClasses = slotValue<string[]>(intent.slots, 'device_class');
  return {
    constraints: {
      name,
      areaName: slotValue<string>(intent.slots, 'area') ?? null,
      floorName: slotValue<string>(intent.slots, 'floor') ?? null,
      domains: domains?.length ? domains : null,
      deviceClasses: deviceClasses?.length ? deviceClasses : null,
      assistant: intent.assistant,
      ...extra,
    },
    preferences: {
      areaId: slotValue<string>(intent.slots, 'preferred_area_id') ?? null,
      floorId: slotValue<string>(intent.slots, 'preferred_floor_id') ?? null,
    },
  };
}

const hasConstraints = (c: MatchConstraints) =>
  Boolean(c.name || c.areaName || c.floorName || c.domains?.length || c.deviceClasses?.length || c.features || c.states?.length);

/** Runs a call, waiting at most `ms` for it; a call still running then is left to finish alone. */
async function runThenBackground(call: Promise<unknown>, ms: number, onLateFailure: (err: unknown) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const outcome = await Promise.race([call.then(() => 'done' as const), late]);
    if (outcome === 'late') call.catch(onLateFailure);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A handler that calls a service on each entity its slots reach (the original's
 * ServiceIntentHandler): matches targets (a failed match throws MatchFailedError), calls the
 * service once per entity in parallel with the declared slots as service data, and answers the
 * floors or areas named, then each entity whose call succeeded, failures under `failed`.
 */
export function serviceIntentHandler(home: IntentHome, options: ServiceIntentOptions): IntentHandler {
  const declared = { ...(options.requiredSlots ?? {}), ...(options.optionalSlots ?? {}) };
  const slotSchema = targetingSlots(options.deviceClasses);
  for (const [name, slot] of Object.entries(options.requiredSlots ?? {})) slotSchema[name] = { validator: slot.validator, required: true };
  for (const [name, slot] of Object.entries(options.optionalSlots ?? {})) slotSchema[name] = { validator: slot.validator };

  const callOne = async (intent: Intent, state: EntityState, chosen: { domain: string; service: string }): Promise<void> => {
    const target = options.routeCall ? options.routeCall(state, chosen) : chosen;
    const data: Record<string, unknown> = { entity_id: state.entity_id };
    for (const [name, slot] of Object.entries(declared)) {
      const value = slotValue(intent.slots, name);
      if (value !== undefined) data[slot.serviceKey ?? name] = value;
    }
    const call = home.services.call({ domain: target.domain, service: target.service, data, context: intent.context, returnResponse: false });
    await runThenBackground(call, SERVICE_TIMEOUT_MS, (err) => home.log(`Service call failed for ${state.entity_id}: ${(err as Error).message}`));
  };

  return {
    intentType: options.intentType,
    description: options.description,
    slotSchema,
    async handle(intent: Intent): Promise<IntentResponse> {
      const { constraints, preferences } = targetingOf(intent, {
        domains: options.requiredDomains ?? (slotValue<string[]>(intent.slots, 'domain')?.length ? slotValue<string[]>(intent.slots, 'domain') : null),
        features: options.requiredFeatures ?? null,
        states: options.requiredStates ?? null,
      });
      // the slot's domains, within the handler's own
      const slotDomains = slotValue<string[]>(intent.slots, 'domain');
      if (options.requiredDomains && slotDomains?.length) constraints.domains = options.requiredDomains.filter((d) => slotDomains.includes(d));
      if (!hasConstraints(constraints)) throw new IntentHandleError('Service handler cannot target all devices');
      const result = matchTargets(home, constraints, preferences);
      if (options.targets) result.states = options.targets(intent, result.states, constraints);
      return handleStates(intent, result);
    },
  };

  async function handleStates(intent: Intent, result: MatchResult): Promise<IntentResponse> {
    const response = new IntentResponse(intent.language);
    const success: IntentTarget[] = [];
    let speechName: string;
    if (result.floors.length) {
      success.push(...result.floors.map((f): IntentTarget => ({ name: f.name, type: 'floor', id: f.floor_id })));
      speechName = result.floors[0].name;
    } else if (result.areas.length) {
      success.push(...result.areas.map((a): IntentTarget => ({ name: a.name, type: 'area', id: a.area_id })));
      speechName = result.areas[0].name;
    } else {
      speechName = stateName(result.states[0]);
    }
    let service = options.service ?? '';
    const chosen = result.states.map((state) => {
      const target = options.serviceFor ? options.serviceFor(state, intent) : { domain: options.domain!, service: options.service! };
      service = target.service;
      return target;
    });
    const outcomes = await Promise.allSettled(result.states.map((state, i) => callOne(intent, state, chosen[i])));
    const failed: IntentTarget[] = [];
    outcomes.forEach((outcome, i) => {
      const state = result.states[i];
      const target: IntentTarget = { name: stateName(state), type: 'entity', id: state.entity_id };
      if (outcome.status === 'fulfilled') success.push(target);
      else {
        failed.push(target);
        home.log(`Service call failed for ${state.entity_id}: ${(outcome.reason as Error)?.message ?? outcome.reason}`);
      }
    });
    // floors and areas count as successes here, as in the original
    if (success.length === 0) {
      throw new IntentHandleError(`Failed to call ${service} for: ${pyList(failed.map((t) => t.id!))}`);
    }
    response.setResults(success, failed);
    response.matchedStates = result.states.map((s) => home.entities.get(s.entity_id) ?? s);
    if (options.speech !== undefined) response.setSpeech(options.speech.replace('{}', speechName));
    return response;
  }
}

import { CLIMATE_TARGET_TEMPERATURE } from '../../../machines/climate.machine.ts';
import type { IntentHome } from '../platforms.ts';
import { IntentResponse } from '../response.ts';
import { float, nonEmptyString, slotValue, str } from '../slots.ts';
import { targetingOf } from '../service-intent.ts';
import { matchTargets, stateName, type MatchResult } from '../targeting.ts';
import { MatchFailedError } from '../errors.ts';
import type { IntentHandler } from '../types.ts';

/** The slots that say which climate entity: a name, an area, a floor, and the asking device's place. */
const CLIMATE_TARGET_SLOTS = {
  area: { validator: nonEmptyString },
  name: { validator: nonEmptyString },
  floor: { validator: nonEmptyString },
  preferred_area_id: { validator: str },
  preferred_floor_id: { validator: str },
};

/**
 * CoreClimateGetTemperature: without a name, in an area (asked, or the asking device's), the
 * area's configured temperature sensor; else one climate entity by name, area or floor. Exactly
 * one target: several left after the preferences is MULTIPLE_TARGETS. The answer is a query with
 * the entity in `matchedStates`; it is also listed under `success` (the original lists none, which
 * leaves a REST client nothing to read).
 */
export function climateTemperatureIntent(home: IntentHome): IntentHandler {
  return {
    intentType: 'CoreClimateGetTemperature',
    description: 'Gets the current temperature of a climate device or entity',
    slotSchema: CLIMATE_TARGET_SLOTS,
    async handle(intent) {
      const name = slotValue<string>(intent.slots, 'name') ?? null;
      const area = slotValue<string>(intent.slots, 'area') ?? null;
      const floor = slotValue<string>(intent.slots, 'floor') ?? null;
      const preferences = { areaId: slotValue<string>(intent.slots, 'preferred_area_id') ?? null, floorId: slotValue<string>(intent.slots, 'preferred_floor_id') ?? null };
      const answer = (result: MatchResult) => {
        const response = new IntentResponse(intent.language);
        response.responseType = 'query_answer';
        response.matchedStates = result.states;
        response.setResults(result.states.map((s) => ({ name: stateName(s), type: 'entity' as const, id: s.entity_id })));
        return response;
      };
      if (!name && (area || preferences.areaId)) {
        // an area's temperature sensor is the one its entry names
        const sensorOf = (areaId: string) => home.registries.getArea(areaId)?.temperature_entity_id ?? null;
        try {
          return answer(
            matchTargets(
              home,
              { areaName: area, floorName: floor, domains: ['sensor'], deviceClasses: ['temperature'], assistant: intent.assistant, singleTarget: true },
              preferences,
              { areaCandidateFilter: (state, areaIds) => [...areaIds].some((id) => sensorOf(id) === state.entity_id) },
            ),
          );
        } catch (err) {
          if (!(err instanceof MatchFailedError)) throw err;
          // no sensor: a climate entity answers instead
        }
      }
      return answer(matchTargets(home, { name, areaName: area, floorName: floor, domains: ['climate'], assistant: intent.assistant, singleTarget: true }, preferences));
    },
  };
}

/**
 * CoreClimateSetTemperature (the climate integration's): exactly one climate entity that takes a
 * target temperature, by name, area or floor (several left after the asking device's place is
 * MULTIPLE_TARGETS), gets `climate.set_temperature`, waited for to the end. The answer lists it
 * under `success` and in `matchedStates` as it was found.
 */
export function climateSetTemperatureIntent(home: IntentHome): IntentHandler {
  return {
    intentType: 'CoreClimateSetTemperature',
    description: 'Sets the target temperature of a climate device or entity',
    slotSchema: { temperature: { validator: float, required: true }, ...CLIMATE_TARGET_SLOTS },
    async handle(intent) {
      const { constraints, preferences } = targetingOf(intent, { domains: ['climate'], deviceClasses: null, features: CLIMATE_TARGET_TEMPERATURE, singleTarget: true });
      const [state] = matchTargets(home, constraints, preferences).states;
      await home.services.call({ domain: 'climate', service: 'set_temperature', data: { temperature: slotValue<number>(intent.slots, 'temperature'), entity_id: state.entity_id }, context: intent.context, returnResponse: false });
      const response = new IntentResponse(intent.language);
      response.setResults([{ name: stateName(state), type: 'entity', id: state.entity_id }]);
      response.matchedStates = [state];
      return response;
    },
  };
}

import type { EntityState } from '../../entities/types.ts';
import type { IntentHome } from '../platforms.ts';
import { IntentResponse } from '../response.ts';
import { slotValue, str, stringList } from '../slots.ts';
import { targetingOf } from '../service-intent.ts';
import { isNoEntitiesReason, matchTargets, stateName, TargetsNotMatched, type MatchResult } from '../targeting.ts';
import type { IntentHandler, IntentTarget } from '../types.ts';

/**
 * CoreGetState: a query. Its targets are the areas and floors named, then every matched entity;
 * with a `state` slot the matched states split into those in one of its states and the rest
 * (`matchedStates` / `unmatchedStates`, for response templates). A search that found nothing
 * answers an empty query; an unknown area or floor, or a name several entities share, is an error.
 */
export function getStateIntent(home: IntentHome): IntentHandler {
  return {
    intentType: 'CoreGetState',
    description: 'Gets or checks the state of a device or entity',
    slotSchema: {
      name: { validator: str },
      area: { validator: str },
      floor: { validator: str },
      domain: { validator: stringList() },
      device_class: { validator: stringList() },
      state: { validator: stringList() },
      preferred_area_id: { validator: str },
      preferred_floor_id: { validator: str },
    },
    async handle(intent) {
      // as for actions, a name of "all" is no name filter ("are all the lights off")
      const { constraints, preferences } = targetingOf(intent);
      let result: MatchResult;
      try {
        result = matchTargets(home, constraints, preferences);
      } catch (err) {
        if (!(err instanceof TargetsNotMatched) || !isNoEntitiesReason(err.reason)) throw err;
        result = { states: [], areas: err.areas, floors: err.floors };
      }
      const wanted = slotValue<string[]>(intent.slots, 'state');
      const response = new IntentResponse(intent.language);
      response.responseType = 'query_answer';
      const success: IntentTarget[] = [
        ...result.areas.map((a): IntentTarget => ({ name: a.name, type: 'area', id: a.area_id })),
        ...result.floors.map((f): IntentTarget => ({ name: f.name, type: 'floor', id: f.floor_id })),
      ];
      const matched: EntityState[] = [];
      const unmatched: EntityState[] = [];
      for (const state of result.states) {
        success.push({ name: stateName(state), type: 'entity', id: state.entity_id });
        if (!wanted?.length || wanted.includes(state.state)) matched.push(state);
        else unmatched.push(state);
      }
      response.setResults(success);
      response.matchedStates = matched;
      response.unmatchedStates = unmatched;
      return response;
    },
  };
}

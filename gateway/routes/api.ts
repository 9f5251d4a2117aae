import type { Router } from '../router.ts';
import type { HttpRequest } from '../request.ts';
import { json, message, plainError, type HttpReply } from '../replies.ts';
import { parseJson } from '../body.ts';
import { isObject } from '../body.ts';
import { newContext, eventTypeProblem, type CoreDeps, type ReadDeps } from '../core.ts';
import { validEntityId, stateJson, stateString, MAX_STATE_LENGTH, wireStateFromDict } from '../../actors/entities/state.ts';
import { ServiceError, Unauthorized } from '../../actors/services/types.ts';
import { readableStatesJson } from '../../streams/readable.ts';

/**
 * Reads a JSON body; when it cannot be read, the route's own 400 (`invalid`, the original's
 * wording) — for nesting past the limit with the reason after it.
 */
function readBody(req: HttpRequest, invalid: string): { ok: true; value: unknown } | { ok: false; reply: HttpReply } {
  const read = parseJson(req);
  if (read.ok) return read;
  return { ok: false, reply: message(400, read.problem === 'depth' ? `${invalid} ${read.message}.` : invalid) };
}

/** The REST API of the core (core-api §4.3): states, events, services, config, components. */
export function registerApiRoutes(root: Router, deps: CoreDeps): void {
  registerReadApiRoutes(root, deps);
  const router = root.of('api');
  const user = { access: 'user' as const };
  const admin = { access: 'admin' as const };

  router.post('/api/states/:entity_id', admin, async (req) => {
    const entityId = req.params.entity_id;
    const body = readBody(req, 'Invalid JSON specified.');
    if (!body.ok) return body.reply;
    const data = body.value;
    if (!isObject(data)) return message(400, 'State data should be a JSON object');
    if (data.state === undefined || data.state === null) return message(400, 'No state attribute specified.');
    const id = entityId.toLowerCase();
    if (!validEntityId(id)) return message(400, 'Invalid entity ID specified.');
    const state = stateString(data.state);
    if (state.length > MAX_STATE_LENGTH) return message(400, 'Invalid state specified.');
    const attributes = data.attributes ?? {};
    if (!isObject(attributes)) return message(400, 'Invalid attributes specified.');
    const result = await deps.entities.write(
      id,
      { state, attributes, force_update: data.force_update === true },
      newContext(deps, req.principal!.userId, req.principal!.refreshTokenId),
    );
    return json(result.created ? 201 : 200, stateJson(result.state), { Location: `/api/states/${entityId}` });
  });

  router.delete('/api/states/:entity_id', admin, async (req) => {
    const id = req.params.entity_id.toLowerCase();
    const removed = await deps.entities.remove(id, newContext(deps, req.principal!.userId, req.principal!.refreshTokenId));
    return removed ? message(200, 'Entity removed.') : message(404, 'Entity not found.');
  });


  router.post('/api/events/:event_type', admin, async (req) => {
    const eventType = req.params.event_type;
    const read = readBody(req, 'Event data should be valid JSON.');
    if (!read.ok) return read.reply;
    const body = read.value;
    if (body !== undefined && !isObject(body)) return message(400, 'Event data should be a JSON object');
    const problem = eventTypeProblem(eventType);
    if (problem) return message(400, problem.message);
    let data: Record<string, unknown> = body ?? {};
    if (eventType === 'state_changed' && body) {
      // the original turns posted state dicts into states: they reach listeners as full states
      data = { ...data };
      for (const key of ['old_state', 'new_state'] as const) {
        if (!Object.hasOwn(data, key)) continue;
        const state = wireStateFromDict(data[key], deps.clock.now());
        if (typeof state === 'string') return message(400, `Invalid ${key} in event data: ${state}`);
        if (state) data[key] = state;
      }
    }
    await deps.fireEvent(eventType, data, 'REMOTE', newContext(deps, req.principal!.userId, req.principal!.refreshTokenId));
    return message(200, `Event ${eventType} fired.`);
  });

  router.get('/api/services', user, () =>
    json(200, Object.entries(deps.services.describe()).map(([domain, services]) => ({ domain, services }))),
  );

  router.post('/api/services/:domain/:service', user, async (req): Promise<HttpReply> => {
    const read = readBody(req, 'Data should be valid JSON.');
    if (!read.ok) return read.reply;
    const body = read.value;
    if (body !== undefined && !isObject(body)) return message(400, 'Data should be a JSON object.');
    const { domain, service } = req.params;
    const spec = deps.services.get(domain, service);
    const wantsResponse = req.query.has('return_response');
    if (spec && wantsResponse && spec.supportsResponse === 'none') {
      return message(400, 'Service does not support responses. Remove return_response from request.');
    }
    if (spec && !wantsResponse && spec.supportsResponse === 'only') {
      return message(400, 'Service call requires responses but caller did not ask for responses. Add ?return_response to query parameters.');
    }
    try {
      const result = await deps.services.call({
        domain,
        service,
        data: body ?? {},
        context: newContext(deps, req.principal!.userId, req.principal!.refreshTokenId),
        returnResponse: wantsResponse,
      });
      const changed = `[${result.changedStates.map(stateJson).join(',')}]`;
      if (wantsResponse) return json(200, `{"changed_states":${changed},"service_response":${JSON.stringify(result.response ?? {})}}`);
      return json(200, changed);
    } catch (err) {
      if (err instanceof Unauthorized) return plainError(401);
      if (err instanceof ServiceError) {
        if (err.code === 'not_found' || err.code === 'invalid_format') return plainError(400);
        return message(400, err.message);
      }
      throw err;
    }
  });
}

/** The routes of §4.3 that only read (all a read replica serves of the REST API). */
export function registerReadApiRoutes(root: Router, deps: ReadDeps): void {
  const router = root.of('api');
  const user = { access: 'user' as const };

  router.get('/api/', user, () => message(200, 'API running.'));

  router.get('/api/core/state', user, () =>
    json(200, { state: deps.runState(), recorder_state: { migration_in_progress: false, migration_is_live: false } }),
  );

  router.get('/api/config', user, () => json(200, deps.coreConfig.asDict(deps.runState())));

  router.get('/api/components', user, () => json(200, deps.coreConfig.components.list()));

  router.get('/api/states', user, (req) => json(200, readableStatesJson(deps.entities, req.principal!.permissions)));

  router.get('/api/states/:entity_id', user, (req) => {
    const id = req.params.entity_id;
    // checked before the lookup, as the original does: 401 whether it exists or not, so nobody learns which ids exist
    if (!req.principal!.permissions.canRead(id)) return plainError(401);
    const state = deps.entities.get(id) ?? deps.entities.get(id.toLowerCase());
    return state ? json(200, stateJson(state)) : message(404, 'Entity not found.');
  });

  router.get('/api/events', user, () => json(200, deps.bus.listenerCounts()));
}

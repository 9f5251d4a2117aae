import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Router } from '../router.ts';
import { json } from '../replies.ts';
import type { CoreDeps } from '../core.ts';
import { newContext } from '../core.ts';
import { readJsonBody } from './auth.ts';
import { errorResponse } from '../../actors/intents/error-response.ts';
import type { Slots } from '../../actors/intents/types.ts';

/** POST /api/intent/handle's body, as the original's request validator takes it (no other keys). */
const HandleBody = TypeCompiler.Compile(
  Type.Object(
    {
      name: Type.String(),
      data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { refusal: 'expected a dictionary' })),
      language: Type.Optional(Type.String()),
      assistant: Type.Optional(Type.String()),
      device_id: Type.Optional(Type.String()),
      satellite_id: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
);

/**
 * POST /api/intent/handle (core-wire §5.7): handles one intent and answers its IntentResponse
 * dict with 200. Every failure of the intent itself is an error-type response (the seed's rule;
 * the original answers some with a 500): a failed match `no_valid_targets`, a handler's error,
 * an unknown intent type or invalid slots `failed_to_handle`, anything unexpected `unknown`.
 */
export function registerIntentRoutes(root: Router, deps: Pick<CoreDeps, 'intents' | 'coreConfig' | 'clock' | 'ids'>): void {
  const router = root.of('intent');
  router.post('/api/intent/handle', { access: 'user' }, async (req) => {
    const body = readJsonBody(req, HandleBody);
    if (!body.ok) return body.reply;
    const { name, data, assistant, device_id, satellite_id } = body.value;
    const language = body.value.language ?? String(deps.coreConfig.asDict('RUNNING').language ?? 'en');
    const slots: Slots = {};
    for (const [key, value] of Object.entries(data ?? {})) slots[key] = { value };
    try {
      const response = await deps.intents.handle({
        platform: 'intent',
        intentType: name,
        slots,
        textInput: null,
        context: newContext(deps, req.principal!.userId, req.principal!.refreshTokenId),
        language,
        assistant: assistant ?? null,
        deviceId: device_id ?? null,
        satelliteId: satellite_id ?? null,
        conversationAgentId: null,
      });
      return json(200, response.asDict());
    } catch (err) {
      return json(200, errorResponse(err, language).asDict());
    }
  });
}

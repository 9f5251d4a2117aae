import type { Router } from '../router.ts';
import { json, message } from '../replies.ts';
import { parseJson } from '../body.ts';
import { isObject } from '../body.ts';
import { newContext, type CoreDeps } from '../core.ts';
import { resultDict, type Conversation } from '../../actors/conversation/index.ts';

const FIELDS = ['text', 'conversation_id', 'language', 'agent_id', 'device_id', 'satellite_id'] as const;

/**
 * Checks a conversation/process body as the original's RequestDataValidator words it
 * (`Message format incorrect: ...`); undefined when it is good.
 */
export function processBodyProblem(data: Record<string, unknown>, conversation: Conversation): string | undefined {
  for (const key of Object.keys(data)) if (!(FIELDS as readonly string[]).includes(key)) return `extra keys not allowed @ data['${key}']`;
  if (data.text === undefined) return "required key not provided @ data['text']";
  for (const key of FIELDS) {
    const v = data[key];
    if (v === undefined) continue;
    // conversation_id, device_id and satellite_id may be null
    if (v === null && key !== 'text' && key !== 'language' && key !== 'agent_id') continue;
    if (typeof v !== 'string') return `expected str for dictionary value @ data['${key}']`;
  }
  if (typeof data.agent_id === 'string' && !conversation.agent(data.agent_id)) return "invalid agent ID for dictionary value @ data['agent_id']";
  return undefined;
}

/** POST /api/conversation/process (core-wire §5.6): one turn with an agent, its ConversationResult. */
export function registerConversationRoutes(root: Router, deps: Pick<CoreDeps, 'clock' | 'ids'> & { conversation: Conversation }): void {
  const router = root.of('conversation');
  router.post('/api/conversation/process', { access: 'user' }, async (req) => {
    const read = parseJson(req);
    if (!read.ok) return message(400, 'Invalid JSON.');
    const data = read.value;
    if (!isObject(data)) return message(400, 'Message format incorrect: expected a dictionary');
    const problem = processBodyProblem(data, deps.conversation);
    if (problem) return message(400, `Message format incorrect: ${problem}`);
    const result = await deps.conversation.process({
      text: data.text as string,
      language: (data.language as string | undefined) ?? null,
      conversationId: (data.conversation_id as string | null | undefined) ?? null,
      agentId: (data.agent_id as string | undefined) ?? null,
      deviceId: (data.device_id as string | null | undefined) ?? null,
      satelliteId: (data.satellite_id as string | null | undefined) ?? null,
      context: newContext(deps, req.principal!.userId, req.principal!.refreshTokenId),
    });
    return json(200, resultDict(result));
  });
}

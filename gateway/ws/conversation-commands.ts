import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import { CommandError } from './connection.ts';
import { newContext } from '../core.ts';
import { resultDict, type ChatLogEvent, type Conversation } from '../../actors/conversation/index.ts';
import type { CoreDeps } from '../core.ts';

/** The conversation integration of the instance. */
function conv(deps: CoreDeps): Conversation {
  if (!deps.conversation) throw new CommandError('home_assistant_error', 'Conversation is not set up');
  return deps.conversation;
}

const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * The conversation commands (core-wire §5.6): process a turn, prepare (read the sentence files
 * again), list agents and sentences, the default agent's debug and language scores, and the
 * chat-log subscriptions (admin only, as the original), fed by the log's chat-log records.
 */
export const conversationCommands: Record<string, Command> = {
  'conversation/process': {
    schema: commandSchema({
      text: Type.String(),
      conversation_id: Type.Optional(NullableString),
      language: Type.Optional(Type.String()),
      agent_id: Type.Optional(Type.String()),
      device_id: Type.Optional(NullableString),
      satellite_id: Type.Optional(NullableString),
    }),
    async handle(conn, msg, deps) {
      if (msg.agent_id !== undefined && !conv(deps).agent(msg.agent_id)) {
        throw new CommandError('invalid_format', "invalid agent ID for dictionary value @ data['agent_id']");
      }
      const result = await conv(deps).process({
        text: msg.text,
        language: msg.language ?? null,
        conversationId: msg.conversation_id ?? null,
        agentId: msg.agent_id ?? null,
        deviceId: msg.device_id ?? null,
        satelliteId: msg.satellite_id ?? null,
        context: newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId),
      });
      conn.result(msg.id, JSON.stringify(resultDict(result)));
    },
  },

  'conversation/prepare': {
    schema: commandSchema({ language: Type.Optional(Type.String()), agent_id: Type.Optional(Type.String()) }),
    async handle(conn, msg, deps) {
      if (!conv(deps).agent(msg.agent_id)) throw new CommandError('not_found', 'Agent not found');
      await conv(deps).reload(msg.agent_id);
      conn.result(msg.id, 'null');
    },
  },

  'conversation/agent/list': {
    schema: commandSchema({ language: Type.Optional(Type.String()), country: Type.Optional(Type.String()) }),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify({ agents: conv(deps).agents(msg.language, msg.country) }));
    },
  },

  'conversation/sentences/list': {
    schema: commandSchema(),
    handle(conn, msg) {
      // trigger sentences come from automations' conversation triggers, which Hearth does not have yet
      conn.result(msg.id, JSON.stringify({ trigger_sentences: [] }));
    },
  },

  'conversation/agent/core/debug': {
    schema: commandSchema({ sentences: Type.Array(Type.String()), language: Type.Optional(Type.String()), device_id: Type.Optional(NullableString) }),
    async handle(conn, msg, deps) {
      const language = msg.language ?? String(deps.coreConfig.asDict('RUNNING').language ?? 'en');
      const results = await conv(deps).defaultAgent.debug(msg.sentences, language, msg.device_id ?? null);
      conn.result(msg.id, JSON.stringify({ results }));
    },
  },

  'conversation/agent/core/language_scores': {
    schema: commandSchema({ language: Type.Optional(Type.String()), country: Type.Optional(Type.String()) }),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(conv(deps).languageScores(msg.language, msg.country)));
    },
  },

  'conversation/chat_log/subscribe': {
    schema: commandSchema({ conversation_id: Type.String() }),
    admin: true,
    handle(conn, msg, deps) {
      const logs = conv(deps).chatLogs;
      const chatLog = logs.asDict(msg.conversation_id);
      if (!chatLog) throw new CommandError('not_found', 'Conversation chat log not found');
      const id: number = msg.id;
      const unsubscribe = logs.subscribe(msg.conversation_id, (e: ChatLogEvent) => {
        conn.event(id, JSON.stringify({ event_type: e.event_type, data: e.data }));
      });
      conn.subscribe(id, unsubscribe);
      conn.result(id, 'null');
      conn.event(id, JSON.stringify({ event_type: 'initial_state', data: chatLog }));
    },
  },

  'conversation/chat_log/subscribe_index': {
    schema: commandSchema(),
    admin: true,
    handle(conn, msg, deps) {
      const logs = conv(deps).chatLogs;
      const id: number = msg.id;
      const unsubscribe = logs.subscribeIndex((e: ChatLogEvent) => conn.event(id, JSON.stringify(e)));
      conn.subscribe(id, unsubscribe);
      conn.result(id, 'null');
      conn.event(id, JSON.stringify({ event_type: 'initial_state', data: logs.all() }));
    },
  },
};

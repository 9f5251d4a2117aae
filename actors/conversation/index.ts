import { Type } from '@sinclair/typebox';
import type { ServiceSpec } from '../services/types.ts';
import { ServiceError } from '../services/types.ts';
import { ChatLogs } from './chat-log.ts';
import type { Clock, Ids } from '../clock.ts';
import type { EventLog } from '../../store/types.ts';
import { DEFAULT_AGENT_ID, DefaultAgent, LEGACY_AGENT_ID, resultDict, type AgentDeps, type ConversationInput, type ConversationResult } from './agent.ts';

export { ChatLogs, type ChatLogEvent } from './chat-log.ts';
export { DEFAULT_AGENT_ID, DefaultAgent, resultDict, type ConversationInput, type ConversationResult } from './agent.ts';

/** What the conversation integration is built from: the agent's home, and the log for chat logs. */
export interface ConversationDeps extends Omit<AgentDeps, 'chatLogs' | 'onCommit'> {
  eventLog: EventLog;
  clock: Clock;
  ids: Ids;
}

/** An agent as `conversation/agent/list` shows it. */
export interface AgentInfo {
  id: string;
  name: string;
  supported_languages: string[] | '*';
}

/** Languages of `supported` that serve `language` (its base language), those of `country` first. */
export function matchingLanguages(language: string, supported: string[], country?: string | null): string[] {
  const base = (tag: string) => tag.toLowerCase().split(/[-_]/)[0];
  const region = (tag: string) => tag.toLowerCase().split(/[-_]/)[1];
  const wanted = base(language);
  const wantedRegion = region(language) ?? country?.toLowerCase();
  const hits = supported.filter((l) => base(l) === wanted);
  const rank = (l: string) => (region(l) === wantedRegion ? 0 : region(l) === undefined ? 1 : 2);
  return hits.sort((a, b) => rank(a) - rank(b));
}

/**
 * The conversation integration: its agents (the default agent only; others may be added later),
 * their chat logs, and the `conversation.process` / `conversation.reload` services.
 */
export class Conversation {
  readonly chatLogs: ChatLogs;
  readonly defaultAgent: DefaultAgent;

  constructor(deps: ConversationDeps) {
    this.chatLogs = new ChatLogs({ log: deps.eventLog, clock: deps.clock, ids: deps.ids });
    this.defaultAgent = new DefaultAgent({ ...deps, chatLogs: this.chatLogs, onCommit: (listener) => deps.eventLog.onCommit(listener) });
  }

  /** Reads the sentence files (at start). */
  start(): Promise<void> {
    return this.defaultAgent.reload();
  }

  stop(): void {
    this.chatLogs.stop();
  }

  /** The agent an id names (none: the default), or undefined for an unknown id. */
  agent(agentId: string | null | undefined): DefaultAgent | undefined {
    if (agentId === undefined || agentId === null || agentId === DEFAULT_AGENT_ID || agentId === LEGACY_AGENT_ID) return this.defaultAgent;
    return undefined;
  }

  /** Every agent with the languages it serves (filtered to `language`'s variants when given). */
  agents(language?: string | null, country?: string | null): AgentInfo[] {
    const agent = this.defaultAgent;
    const languages = agent.supportedLanguages();
    return [{ id: agent.id, name: agent.name, supported_languages: language ? matchingLanguages(language, languages, country) : languages }];
  }

  /** Processes one turn with the agent it names; rejects with an unknown-agent error. */
  async process(input: ConversationInput): Promise<ConversationResult> {
    const agent = this.agent(input.agentId);
    if (!agent) throw new UnknownAgent(input.agentId!);
    return agent.process(input);
  }

  /** Reads the sentence files again (conversation/prepare, conversation.reload). */
  async reload(agentId?: string | null): Promise<void> {
    const agent = this.agent(agentId);
    if (!agent) throw new UnknownAgent(agentId!);
    await agent.reload();
  }

  /**
   * How well each language is served (`conversation/agent/core/language_scores`): Hearth's own
   * sentences score 3 locally (full and focused), a language with custom sentences only 1; no
   * cloud agent (0).
   */
  languageScores(language?: string | null, country?: string | null): { languages: Record<string, { cloud: number; focused_local: number; full_local: number }>; preferred_language: string | null } {
    const builtin = new Set(this.defaultAgent.builtinLanguages());
    const languages: Record<string, { cloud: number; focused_local: number; full_local: number }> = {};
    for (const l of this.defaultAgent.supportedLanguages()) {
      const score = builtin.has(l) ? 3 : 1;
      languages[l] = { cloud: 0, focused_local: score, full_local: score };
    }
    const preferred = language ? (matchingLanguages(language, Object.keys(languages), country)[0] ?? null) : null;
    return { languages, preferred_language: preferred };
  }

  /**
   * What a voice timer's `conversation_command` is run with when it finishes (the timers'
   * TimerCommandHook): the command is one more turn with the agent the timer names.
   */
  timerCommandHook(): {
    run(command: string, options: { language: string; agentId: string | null; deviceId: string | null; context: ConversationInput['context'] }): Promise<unknown>;
    recognizes(command: string, options: { language: string; agentId: string | null; deviceId: string | null }): Promise<boolean>;
  } {
    return {
      run: (command, options) => this.process({ text: command, language: options.language, agentId: options.agentId, deviceId: options.deviceId, context: options.context }),
      recognizes: async (command, options) => {
        const agent = this.agent(options.agentId);
        if (!agent) return false;
        const found = await agent.recognize(command, options.language, options.deviceId);
        return found !== undefined && Object.keys(found.recognition.unmatchedSlots).length === 0;
      },
    };
  }

  /** `conversation.process` and `conversation.reload`. */
  services(): ServiceSpec[] {
    const agentIdProblem = (agentId: unknown) => {
      if (agentId !== undefined && this.agent(agentId as string) === undefined) throw new ServiceError('service_validation_error', `Agent ${agentId} not found`);
    };
    return [
      {
        domain: 'conversation',
        service: 'process',
        description: {
          name: 'Process',
          description: 'Launches a conversation from a transcribed text.',
          fields: {
            text: { name: 'Text', description: 'Transcribed text input.', required: true, example: 'Turn all lights on', selector: { text: {} } },
            language: { name: 'Language', description: 'Language of text. Defaults to server language.', example: 'NL', selector: { text: {} } },
            agent_id: { name: 'Agent', description: 'Conversation agent to process your request.', example: DEFAULT_AGENT_ID, selector: { conversation_agent: {} } },
            conversation_id: { name: 'Conversation ID', description: 'ID of the conversation, to be able to continue a previous conversation.', example: 'my_conversation_1', selector: { text: {} } },
          },
        },
        schema: Type.Object(
          {
            text: Type.String(),
            language: Type.Optional(Type.String()),
            agent_id: Type.Optional(Type.String()),
            conversation_id: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        supportsResponse: 'optional',
        handler: async (call) => {
          agentIdProblem(call.data.agent_id);
          const result = await this.process({
            text: call.data.text,
            language: call.data.language,
            agentId: call.data.agent_id,
            conversationId: call.data.conversation_id,
            context: call.context,
          });
          return call.returnResponse ? resultDict(result) : undefined;
        },
      },
      {
        domain: 'conversation',
        service: 'reload',
        description: {
          name: 'Reload',
          description: 'Reloads the intent configuration.',
          fields: {
            language: { name: 'Language', description: 'Language to clear cached intents for. Defaults to server language.', example: 'NL', selector: { text: {} } },
            agent_id: { name: 'Agent', description: 'Conversation agent to reload.', example: DEFAULT_AGENT_ID, selector: { conversation_agent: {} } },
          },
        },
        schema: Type.Object({ language: Type.Optional(Type.String()), agent_id: Type.Optional(Type.String()) }, { additionalProperties: false }),
        supportsResponse: 'none',
        handler: async (call) => {
          agentIdProblem(call.data.agent_id);
          await this.reload(call.data.agent_id);
        },
      },
    ];
  }
}

/** No agent has this id. */
export class UnknownAgent extends Error {
  readonly code = 'HEARTH_UNKNOWN_AGENT';
  constructor(readonly agentId: string) {
    super(`Agent ${agentId} not found`);
  }
}

import { isoformat } from '../../machines/python/isoformat.ts';
import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog } from '../../store/types.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { isIndexableId } from '../../store/keys.ts';

/**
 * Chat logs: what was said in a conversation, turn by turn, as records on
 * `conversation/<conversation_id>` (`chat_log_created`, `chat_log_content_added`,
 * `chat_log_deleted`). The projection here follows the log's commits and feeds the
 * `conversation/chat_log/subscribe*` commands. A conversation idle for `timeoutMs` (5 minutes,
 * as the original) is deleted; chat logs are not restored after a restart (none would still be
 * live by then).
 */

export const CHAT_LOG_PREFIX = 'conversation/';
/** The longest conversation id kept as given (longer ones get a new ULID). */
export const MAX_CONVERSATION_ID = 255;
/** The original's CONVERSATION_TIMEOUT. */
export const CONVERSATION_TIMEOUT_MS = 5 * 60_000;

/** One turn of a chat log, in the original's content shape. */
export interface ChatContent {
  role: 'user' | 'assistant';
  /** assistant turns: the agent that spoke */
  agent_id?: string;
  content: string;
  /** epoch ms */
  created: number;
}

/** A conversation's records on `conversation/<conversation_id>`. */
export type ChatLogRecord =
  | { type: 'chat_log_created'; data: { conversation_id: string; created: number } }
  | { type: 'chat_log_content_added'; data: { conversation_id: string; content: ChatContent } }
  | { type: 'chat_log_deleted'; data: { conversation_id: string } };
const chatLogRecords = typedRecords<ChatLogRecord>(CHAT_LOG_PREFIX, { chat_log_created: true, chat_log_content_added: true, chat_log_deleted: true });

interface ChatLogState {
  conversation_id: string;
  created: number;
  lastActive: number;
  content: ChatContent[];
}

/** A chat log change as subscribers receive it. */
export interface ChatLogEvent {
  conversation_id: string;
  event_type: 'created' | 'content_added' | 'deleted';
  data: Record<string, unknown>;
}

// three digits, as Hearth's chat logs have always shown them (the original's show six)
const iso = (ms: number) => isoformat(ms, 'milliseconds');

const contentJson = (c: ChatContent) => ({ role: c.role, ...(c.agent_id !== undefined ? { agent_id: c.agent_id } : {}), content: c.content, created: iso(c.created) });

/** A ULID as the original checks one (26 Crockford base-32 characters). */
export const isUlid = (text: string) => /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i.test(text);

export class ChatLogs {
  private readonly logs = new Map<string, ChatLogState>();
  private readonly listeners = new Map<string, Set<(e: ChatLogEvent) => void>>();
  private readonly indexListeners = new Set<(e: ChatLogEvent) => void>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly timeoutMs: number;
  private readonly stopListening: () => void;

  constructor(private readonly deps: { log: EventLog; clock: Clock; ids: Ids; timeoutMs?: number }) {
    this.timeoutMs = deps.timeoutMs ?? CONVERSATION_TIMEOUT_MS;
    this.stopListening = deps.log.onCommit((records) => {
      for (const r of records) if (chatLogRecords.owns(r)) this.evolve(r);
    });
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), 30_000);
    this.sweeper.unref();
  }

  /**
   * The conversation a turn belongs to, as the original chooses it: none given, a new ULID; a
   * live one, itself; a ULID no live conversation has (an old one), a new ULID; any other text
   * (the caller's own id, up to 255 characters), itself. Records `chat_log_created` for a new one.
   */
  async open(conversationId: string | null | undefined, context: Context): Promise<string> {
    await this.sweep();
    let id = conversationId ?? null;
    if (id !== null && this.logs.has(id)) return id;
    // an id the store cannot name a stream by (too long, a NUL in it) is no id of the caller's own
    if (id === null || isUlid(id) || id.length > MAX_CONVERSATION_ID || !isIndexableId(CHAT_LOG_PREFIX + id)) id = this.deps.ids.ulid(this.deps.clock.now());
    const time = this.deps.clock.now();
    await this.deps.log.append([chatLogRecords.make(CHAT_LOG_PREFIX + id, { type: 'chat_log_created', data: { conversation_id: id, created: time } }, context, time)]);
    return id;
  }

  /** Records one turn of a live conversation. */
  async add(conversationId: string, content: Omit<ChatContent, 'created'>, context: Context): Promise<void> {
    const time = this.deps.clock.now();
    await this.deps.log.append([
      chatLogRecords.make(CHAT_LOG_PREFIX + conversationId, { type: 'chat_log_content_added', data: { conversation_id: conversationId, content: { ...content, created: time } } }, context, time),
    ]);
  }

  has(conversationId: string): boolean {
    return this.logs.has(conversationId);
  }

  /** The chat log's wire form: `{conversation_id, continue_conversation, content, created}`. */
  asDict(conversationId: string): Record<string, unknown> | undefined {
    const s = this.logs.get(conversationId);
    if (!s) return undefined;
    return { conversation_id: s.conversation_id, continue_conversation: false, content: s.content.map(contentJson), created: iso(s.created) };
  }

  /** Every live chat log's wire form, oldest first. */
  all(): Record<string, unknown>[] {
    return [...this.logs.keys()].map((id) => this.asDict(id)!);
  }

  /** Changes of one chat log; returns the unsubscribe. */
  subscribe(conversationId: string, listener: (e: ChatLogEvent) => void): () => void {
    let set = this.listeners.get(conversationId);
    if (!set) this.listeners.set(conversationId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(conversationId) === set) this.listeners.delete(conversationId);
    };
  }

  /** Changes of every chat log; returns the unsubscribe. */
  subscribeIndex(listener: (e: ChatLogEvent) => void): () => void {
    this.indexListeners.add(listener);
    return () => this.indexListeners.delete(listener);
  }

  /** Deletes the conversations idle for longer than the timeout. */
  async sweep(): Promise<void> {
    const now = this.deps.clock.now();
    const expired = [...this.logs.values()].filter((s) => now - s.lastActive > this.timeoutMs);
    if (expired.length === 0) return;
    // marked first, so two sweeps at once do not delete a log twice
    for (const s of expired) s.lastActive = Infinity;
    await this.deps.log.append(
      expired.map((s) => chatLogRecords.make(CHAT_LOG_PREFIX + s.conversation_id, { type: 'chat_log_deleted', data: { conversation_id: s.conversation_id } }, { id: this.deps.ids.ulid(now), parent_id: null, user_id: null }, now)),
    );
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.stopListening();
  }

  private evolve(r: RecordOf<ChatLogRecord>): void {
    const id = r.data.conversation_id;
    let event: ChatLogEvent;
    if (r.type === 'chat_log_created') {
      this.logs.set(id, { conversation_id: id, created: r.data.created, lastActive: r.time, content: [] });
      event = { conversation_id: id, event_type: 'created', data: { chat_log: this.asDict(id) } };
    } else if (r.type === 'chat_log_content_added') {
      const s = this.logs.get(id);
      if (!s) return;
      s.content.push(r.data.content);
      if (s.lastActive !== Infinity) s.lastActive = r.time;
      event = { conversation_id: id, event_type: 'content_added', data: { content: contentJson(r.data.content) } };
    } else {
      if (!this.logs.delete(id)) return;
      event = { conversation_id: id, event_type: 'deleted', data: {} };
    }
    for (const l of [...(this.listeners.get(id) ?? [])]) l(event);
    for (const l of [...this.indexListeners]) l(event);
    if (event.event_type === 'deleted') this.listeners.delete(id);
  }
}

// Conversation ids and chat logs: a turn opens a conversation (a ULID), a follow-up with its id
// continues it, each turn is a record on conversation/<id>, subscribers see the changes, and an
// idle conversation is deleted after five minutes.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';
import { systemClock } from '../../../actors/clock.ts';
import { HOME_CONFIG, furnish } from './home.ts';

t.test('conversation ids, chat-log records and subscriptions', async (t) => {
  const system = systemClock();
  let offset = 0;
  const clock = { now: () => system.now() + offset };
  const { base, hearth } = await startTestHearth(t, { config: HOME_CONFIG, clock });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const rest = api(base, tokens.access_token);
  const c = await authedClient(base, tokens.access_token);
  const s = sorting(c);

  const index = await s.ask({ type: 'conversation/chat_log/subscribe_index' });
  t.same([index.success, index.result], [true, null]);
  t.same(await s.next(index.id), { event_type: 'initial_state', data: [] }, 'no chat logs yet');

  const first = (await rest('POST', '/api/conversation/process', { text: 'turn on the kitchen light' })).json;
  const id = first.conversation_id;
  const created = await s.next(index.id);
  t.match(created, { conversation_id: id, event_type: 'created', data: { chat_log: { conversation_id: id, continue_conversation: false, content: [] } } });
  t.match(await s.next(index.id), { conversation_id: id, event_type: 'content_added', data: { content: { role: 'user', content: 'turn on the kitchen light' } } });
  t.match(await s.next(index.id), { conversation_id: id, event_type: 'content_added', data: { content: { role: 'assistant', agent_id: 'conversation.core', content: 'Turned on kitchen light' } } });

  // one conversation's subscription: its state first, then each turn
  const sub = await s.ask({ type: 'conversation/chat_log/subscribe', conversation_id: id });
  t.equal(sub.success, true);
  const initial = await s.next(sub.id);
  t.equal(initial.event_type, 'initial_state');
  t.same(initial.data.content.map((x: any) => [x.role, x.content]), [['user', 'turn on the kitchen light'], ['assistant', 'Turned on kitchen light']]);
  t.match(initial.data.content[0].created, /^\d{4}-\d\d-\d\dT/);

  const follow = (await rest('POST', '/api/conversation/process', { text: 'is it on?', conversation_id: id })).json;
  t.equal(follow.conversation_id, id, 'a follow-up keeps the conversation');
  t.match(await s.next(sub.id), { event_type: 'content_added', data: { content: { role: 'user', content: 'is it on?' } } });
  t.match(await s.next(sub.id), { event_type: 'content_added', data: { content: { role: 'assistant' } } });
  t.equal((await s.next(index.id)).event_type, 'content_added');
  t.equal((await s.next(index.id)).event_type, 'content_added');

  // the chat log is in the log: created, then four turns
  const records: { type: string; data: any }[] = [];
  for await (const r of hearth.log.readStreams(`conversation/${id}`)) records.push(r);
  t.same(records.map((r) => r.type), ['chat_log_created', 'chat_log_content_added', 'chat_log_content_added', 'chat_log_content_added', 'chat_log_content_added']);
  t.same(records.slice(1).map((r) => r.data.content.content), ['turn on the kitchen light', 'Turned on kitchen light', 'is it on?', records[4].data.content.content]);

  // ids: an old ULID no live conversation has starts a new one; the caller's own id is kept
  const stale = (await rest('POST', '/api/conversation/process', { text: 'thanks', conversation_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).json;
  t.not(stale.conversation_id, '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'an unknown ULID gets a new conversation');
  t.match(stale.conversation_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  const own = (await rest('POST', '/api/conversation/process', { text: 'thanks', conversation_id: 'my-kitchen-chat' })).json;
  t.equal(own.conversation_id, 'my-kitchen-chat', "the caller's own id is kept");
  const long = (await rest('POST', '/api/conversation/process', { text: 'thanks', conversation_id: 'x'.repeat(256) })).json;
  t.match(long.conversation_id, /^[0-9A-HJKMNP-TV-Z]{26}$/, 'an id too long for a stream name gets a ULID');
  for (let i = 0; i < 9; i++) await s.next(index.id);

  t.same((await s.ask({ type: 'conversation/chat_log/subscribe', conversation_id: 'nobody' })).error, { code: 'not_found', message: 'Conversation chat log not found' });

  // five idle minutes end a conversation: deleted for subscribers, a new id for the next turn
  offset += 5 * 60_000 + 1000;
  const later = (await rest('POST', '/api/conversation/process', { text: 'never mind', conversation_id: id })).json;
  t.not(later.conversation_id, id, 'an expired conversation is not continued');
  t.same(await s.next(sub.id), { event_type: 'deleted', data: {} }, "the conversation's subscriber is told");
  const deletions = [await s.next(index.id), await s.next(index.id), await s.next(index.id), await s.next(index.id)];
  t.same(deletions.map((e) => e.event_type), ['deleted', 'deleted', 'deleted', 'deleted'], 'all four idle conversations');
  t.match(await s.next(index.id), { event_type: 'created', conversation_id: later.conversation_id }, 'then the new one');
  t.ok(deletions.some((e) => e.conversation_id === id));
  const deleted: string[] = [];
  for await (const r of hearth.log.readStreams(`conversation/${id}`)) deleted.push(r.type);
  t.equal(deleted.at(-1), 'chat_log_deleted', 'the deletion is a record too');
  t.equal((await s.ask({ type: 'conversation/chat_log/subscribe', conversation_id: id })).error.code, 'not_found');
  c.ws.close();
});

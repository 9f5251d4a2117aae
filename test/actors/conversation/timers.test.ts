// Timers by voice: start (named, hours and minutes), status, add and remove time, pause, resume,
// cancel one and cancel all, and what is said when there is no such timer.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';

t.test('the timer family through the conversation', async (t) => {
  const { base } = await startTestHearth(t, { config: '' });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  const say = async (text: string) => (await rest('POST', '/api/conversation/process', { text })).json.response;
  const speech = async (text: string) => (await say(text)).speech.plain?.speech;
  const status = async (text: string) => (await say(text)).speech_slots?.timers ?? [];

  t.equal(await speech('how much time is left'), 'There are no timers');
  t.equal(await speech('cancel my timer'), "Sorry, I couldn't find that timer", 'no timer to cancel');
  const missing = await say('pause my timer');
  t.same([missing.response_type, missing.data], ['error', { code: 'failed_to_handle' }]);

  t.equal(await speech('set a timer for 5 minutes'), 'Timer started');
  let timers = await status('how much time is left on my timer');
  t.equal(timers.length, 1);
  t.match(timers[0], { name: '', start_hours: 0, start_minutes: 5, start_seconds: 0, is_active: true });
  t.equal(await speech('how much time is left'), '5 minutes left');

  // over the WebSocket too: a named timer of an hour and a half
  const ws = await ask({ type: 'conversation/process', text: 'set a 1 hour and 30 minutes timer called roast' });
  t.equal(ws.result.response.speech.plain.speech, 'Timer started');
  t.equal(await speech('how much time is left on the roast timer'), '1 hour and 30 minutes left on the roast timer');
  t.equal(await speech('how much time is left'), 'There are 2 timers');

  t.equal(await speech('add 2 minutes to my roast timer'), 'Timer updated');
  timers = await status('how much time is left on the roast timer');
  t.equal(timers[0].start_minutes, 30, 'the spoken start stays');
  t.ok(timers[0].total_seconds_left > 90 * 60 + 60 && timers[0].total_seconds_left <= 92 * 60, `two minutes more: ${timers[0].total_seconds_left}`);
  t.equal(await speech('remove 10 minutes from the roast timer'), 'Timer updated');
  timers = await status('how much time is left on the roast timer');
  t.ok(timers[0].total_seconds_left <= 82 * 60, `ten minutes less: ${timers[0].total_seconds_left}`);

  t.equal(await speech('pause the roast timer'), 'Timer paused');
  t.equal((await status('how much time is left on the roast timer'))[0].is_active, false);
  t.match(await speech('how much time is left on the roast timer'), /\(paused\)$/);
  t.equal(await speech('resume the roast timer'), 'Timer resumed');
  t.equal((await status('how much time is left on the roast timer'))[0].is_active, true);

  t.equal(await speech('set a 3 minute timer'), 'Timer started');
  t.equal(await speech('cancel the 3 minute timer'), 'Timer cancelled', 'a timer by its spoken start');
  t.equal((await status('how much time is left')).length, 2);
  t.equal(await speech('cancel the roast timer'), 'Timer cancelled');
  t.equal((await status('how much time is left')).length, 1, 'the other timer is left');
  await speech('start a timer for 90 seconds');
  t.equal(await speech('cancel all timers'), 'Cancelled 2 timers');
  t.equal(await speech('how much time is left'), 'There are no timers');
  t.equal(await speech('cancel all my timers'), 'No timers to cancel');
  c.ws.close();
});

t.test('a command to run when a timer ends', async (t) => {
  const { base } = await startTestHearth(t, { config: 'switch:\n  - { platform: virtual, name: Kettle, initial: false }\n' });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const say = async (text: string) => (await rest('POST', '/api/conversation/process', { text })).json.response;

  const refused = await say('frobnicate the widgets in 5 minutes');
  t.same([refused.data, refused.speech.plain.speech], [{ code: 'failed_to_handle' }, 'Sorry, I would not know what to do when that timer ends'], 'a command nobody understands is refused at once');
  t.equal((await say('how much time is left')).speech.plain.speech, 'There are no timers', 'and no timer is started');

  t.equal((await say('turn on the kettle in 1 second')).speech.plain.speech, 'Will do in 1 second');
  t.equal((await rest('GET', '/api/states/switch.kettle')).json.state, 'off', 'not yet');
  // the timer ends a second later and runs the command as a turn of its own
  let state = 'off';
  for (let i = 0; i < 100 && state !== 'on'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = (await rest('GET', '/api/states/switch.kettle')).json.state;
  }
  t.equal(state, 'on', 'the command ran when the timer ended');
});

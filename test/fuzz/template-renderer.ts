// The template fuzz's renderer, run in a worker thread: a render that never ended would hold
// only this thread, which the test can end, not the test itself.
import { parentPort } from 'node:worker_threads';
import { systemClock } from '../../actors/clock.ts';
import { Templates } from '../../actors/templates/index.ts';
import { RenderFault, RenderLimitError } from '../../actors/templates/errors.ts';

export interface RenderAnswer {
  ok: boolean;
  /** characters of the output, when it rendered */
  length?: number;
  /** 'limit' (a bound stopped it), 'error' (a template error), 'fault' (a JavaScript exception) */
  kind?: 'limit' | 'error' | 'fault';
  error?: string;
  ms: number;
}

const templates = new Templates({
  entities: { get: () => undefined, states: () => [] },
  coreConfig: { asDict: () => ({ time_zone: 'Europe/Amsterdam', latitude: 52.37, longitude: 4.89, unit_system: { length: 'km' } }) },
  clock: systemClock(),
});

parentPort!.on('message', (template: string) => {
  const started = performance.now();
  const outcome = templates.render(template, {});
  const ms = performance.now() - started;
  let answer: RenderAnswer;
  if (outcome.ok) answer = { ok: true, length: outcome.text.length, ms };
  else {
    const e = outcome.error;
    const kind = e instanceof RenderFault ? 'fault' : e instanceof RenderLimitError ? 'limit' : 'error';
    answer = { ok: false, kind, error: e.toString().slice(0, 300), ms };
  }
  parentPort!.postMessage(answer);
});

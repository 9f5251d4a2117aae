import { assign, enqueueActions, setup } from 'xstate';
import { pyRound } from '../color.ts';
import { COVER_STOP } from '../cover.machine.ts';
import { percentageToRanged } from './cover.machine.ts';
import type { MqttPublishRequest } from './switch.machine.ts';

/** What an MQTT valve is built to do, from its options. */
export interface MqttValveSpec {
  /** no state topic, or optimistic: true */
  optimistic: boolean;
  /** reports_position: its state is a position, open and close go to 100 and 0 */
  reportsPosition: boolean;
  positionOpen: number;
  positionClosed: number;
  features: number;
}

/** What an MQTT valve shows: null is unknown. */
export interface MqttValveState {
  closed: boolean | null;
  opening: boolean;
  closing: boolean;
  position: number | null;
  /** the direction toggle goes next (the original's last toggle direction) */
  lastOpen: boolean;
}

export interface MqttValveInput {
  spec: MqttValveSpec;
  valve?: MqttValveState;
}

export interface MqttValveContext {
  spec: MqttValveSpec;
  valve: MqttValveState;
}

/** A state message as the platform read it: a state word, a position, or the opening/closing reset of a position at an end. */
export type MqttValveEvent =
  | { type: 'message'; state?: 'open' | 'closed' | 'opening' | 'closing' | 'reset'; position?: number }
  | { type: 'open_cover' }
  | { type: 'close_cover' }
  | { type: 'stop_cover' }
  | { type: 'toggle' }
  | { type: 'set_cover_position'; position: number };

/** ValveEntity.state: opening and closing first; then the position (reports_position) or open/closed. */
export function valveStateOf(spec: MqttValveSpec, v: MqttValveState): string | null {
  if (v.opening) return 'opening';
  if (v.closing) return 'closing';
  if (spec.reportsPosition) return v.position === null ? null : v.position === 0 ? 'closed' : 'open';
  if (v.closed === null) return null;
  return v.closed ? 'closed' : 'open';
}

/** _update_state: opening and closing; open or closed only for a valve without a position. */
function withState(spec: MqttValveSpec, v: MqttValveState, state: string): MqttValveState {
  const next = { ...v, opening: state === 'opening', closing: state === 'closing' };
  if (!spec.reportsPosition) next.closed = state === 'closed';
  if (next.opening) next.lastOpen = true;
  if (next.closing) next.lastOpen = false;
  return next;
}

/**
 * An MQTT valve: open, closed, opening or closing from its state topic (a word, or a position
 * when it reports one, or JSON with both). Open, close and stop publish their payloads through
 * the command template; a valve that reports its position is opened and closed by position.
 */
export const mqttValveMachine = setup({
  types: {
    context: {} as MqttValveContext,
    events: {} as MqttValveEvent,
    input: {} as MqttValveInput,
    emitted: {} as MqttPublishRequest,
  },
  actions: {
    take: assign(({ context, event }) => {
      if (event.type !== 'message') return {};
      let valve = { ...context.valve };
      if (event.position !== undefined) valve.position = event.position;
      if (event.state !== undefined) valve = withState(context.spec, valve, event.state);
      return { valve };
    }),
    command: enqueueActions(({ context, event, enqueue }) => {
      const { spec } = context;
      let valve = context.valve;
      const move = (kind: 'open' | 'close') => {
        enqueue.emit({ type: 'publish', topic: 'command_topic', payload: kind === 'open' ? 'payload_open' : 'payload_close', template: 'command_template' });
        if (spec.optimistic) valve = withState(spec, valve, kind === 'open' ? 'open' : 'closed');
      };
      const setPosition = (percentage: number) => {
        enqueue.emit({
          type: 'publish',
          topic: 'command_topic',
          value: pyRound(percentageToRanged([spec.positionClosed + 1, spec.positionOpen], percentage)),
          template: 'command_template',
          variables: { position: percentage, position_open: spec.positionOpen, position_closed: spec.positionClosed },
        });
        if (spec.optimistic) valve = { ...withState(spec, valve, percentage === spec.positionClosed ? 'closed' : 'open'), position: percentage };
      };
      const open = () => (spec.reportsPosition ? setPosition(100) : move('open'));
      const close = () => (spec.reportsPosition ? setPosition(0) : move('close'));
      switch (event.type) {
        case 'open_cover':
          open();
          break;
        case 'close_cover':
          close();
          break;
        case 'stop_cover':
          enqueue.emit({ type: 'publish', topic: 'command_topic', payload: 'payload_stop', template: 'command_template' });
          break;
        case 'set_cover_position':
          setPosition(event.position);
          break;
        case 'toggle':
          if (spec.features & COVER_STOP && (valve.opening || valve.closing)) enqueue.emit({ type: 'publish', topic: 'command_topic', payload: 'payload_stop', template: 'command_template' });
          else if (valve.closed === true) open();
          else if (valve.lastOpen) close();
          else open();
          break;
      }
      enqueue.assign({ valve });
    }),
  },
}).createMachine({
  id: 'mqtt_valve',
  context: ({ input }) => ({ spec: input.spec, valve: input.valve ?? { closed: null, opening: false, closing: false, position: null, lastOpen: true } }),
  initial: 'running',
  states: {
    running: {
      on: {
        message: { actions: 'take' },
        open_cover: { actions: 'command' },
        close_cover: { actions: 'command' },
        stop_cover: { actions: 'command' },
        set_cover_position: { actions: 'command' },
        toggle: { actions: 'command' },
      },
    },
  },
});

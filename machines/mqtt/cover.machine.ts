import { assign, enqueueActions, setup } from 'xstate';
import { pyRound } from '../color.ts';
import type { MqttPublishRequest } from './switch.machine.ts';

/** What an MQTT cover is built to do, from its options. */
export interface MqttCoverSpec {
  entityId: string;
  /** commands set the state (the original's _optimistic) */
  optimistic: boolean;
  /** commands set the tilt (tilt_optimistic, or no tilt status topic) */
  tiltOptimistic: boolean;
  /** a position topic: open and close assume 100 and 0, `stopped` reads the position */
  hasPosition: boolean;
  /** a state topic: a position says nothing of open or closed */
  hasState: boolean;
  positionOpen: number;
  positionClosed: number;
  tiltMin: number;
  tiltMax: number;
  tiltOpened: number;
  tiltClosed: number;
}

/** What an MQTT cover shows: null is unknown. */
export interface MqttCoverState {
  closed: boolean | null;
  opening: boolean;
  closing: boolean;
  position: number | null;
  tilt: number | null;
  /** the direction toggle goes next while at rest half open (the original's last toggle direction) */
  lastOpen: boolean;
}

export interface MqttCoverInput {
  spec: MqttCoverSpec;
  /** what it showed before its config changed (kept), else unknown */
  cover?: MqttCoverState;
}

export interface MqttCoverContext {
  spec: MqttCoverSpec;
  cover: MqttCoverState;
}

export type CoverReport = 'open' | 'closed' | 'opening' | 'closing' | 'stopped' | null;

export type MqttCoverEvent =
  | { type: 'state'; state: CoverReport }
  | { type: 'position'; position: number; tilt?: number; tiltReported?: boolean }
  | { type: 'tilt'; tilt: number }
  | { type: 'open_cover' }
  | { type: 'close_cover' }
  | { type: 'stop_cover' }
  | { type: 'toggle' }
  | { type: 'set_cover_position'; position: number }
  | { type: 'open_cover_tilt' }
  | { type: 'close_cover_tilt' }
  | { type: 'stop_cover_tilt' }
  | { type: 'toggle_cover_tilt' }
  | { type: 'set_cover_tilt_position'; tilt_position: number };

// ---- the original's percentage scaling (util/percentage.py) ----

const statesIn = ([lo, hi]: [number, number]) => hi - lo + 1;

/** ranged_value_to_percentage: a device value in `range` as a whole percentage. */
export function rangedToPercentage(range: [number, number], value: number): number {
  return Math.floor(((value - (range[0] - 1)) * 100) / statesIn(range));
}

/** percentage_to_ranged_value: a percentage as a device value in `range`. */
export function percentageToRanged(range: [number, number], percentage: number): number {
  return (percentage * statesIn(range)) / 100 + (range[0] - 1);
}

export const positionRange = (s: MqttCoverSpec): [number, number] => [s.positionClosed + 1, s.positionOpen];
export const tiltRange = (s: MqttCoverSpec): [number, number] => [s.tiltMin + 1, s.tiltMax];

/** The cover's state word: opening and closing first, then open or closed, else unknown (null). */
export function coverStateOf(c: MqttCoverState): string | null {
  if (c.opening) return 'opening';
  if (c.closing) return 'closing';
  if (c.closed === null) return null;
  return c.closed ? 'closed' : 'open';
}

/** _update_state: open, closed, opening, closing, or unknown. */
function withState(c: MqttCoverState, state: 'open' | 'closed' | 'opening' | 'closing' | null): MqttCoverState {
  const next = { ...c, closed: state === null ? null : state === 'closed', opening: state === 'opening', closing: state === 'closing' };
  if (next.opening) next.lastOpen = true;
  if (next.closing) next.lastOpen = false;
  return next;
}

/** The variables the position and tilt command templates see besides `value`. */
const templateVariables = (spec: MqttCoverSpec) => ({
  entity_id: spec.entityId,
  position_open: spec.positionOpen,
  position_closed: spec.positionClosed,
  tilt_min: spec.tiltMin,
  tilt_max: spec.tiltMax,
});

const command = (payload: string): MqttPublishRequest => ({ type: 'publish', topic: 'command_topic', payload });

/**
 * An MQTT cover: open, closed, opening or closing as its state topic says (or its position, when
 * it has no state topic), its position and tilt as percentages of their device ranges. Commands
 * publish payload_open, payload_close, payload_stop, a position or a tilt; in optimistic mode
 * they set what the cover shows.
 */
export const mqttCoverMachine = setup({
  types: {
    context: {} as MqttCoverContext,
    events: {} as MqttCoverEvent,
    input: {} as MqttCoverInput,
    emitted: {} as MqttPublishRequest,
  },
  actions: {
    takeState: assign(({ context, event }) => {
      if (event.type !== 'state') return {};
      const { spec, cover } = context;
      let state = event.state;
      // stopped: open or closed by the position (or by where it was heading)
      if (state === 'stopped') {
        const now = coverStateOf(cover);
        state = spec.hasPosition ? (cover.position === 0 ? 'closed' : 'open') : now === 'closed' || now === 'closing' ? 'closed' : 'open';
      }
      return { cover: withState(cover, state) };
    }),
    takePosition: assign(({ context, event }) => {
      if (event.type !== 'position') return {};
      const { spec } = context;
      let cover: MqttCoverState = { ...context.cover, position: Math.min(100, Math.max(0, event.position)) };
      if (event.tilt !== undefined) cover.tilt = event.tilt;
      if (!spec.hasState) cover = withState(cover, cover.position === 0 ? 'closed' : 'open');
      // a position message with a tilt makes the tilt reported (unless tilt_optimistic is set)
      const tiltOptimistic = event.tiltReported ? false : spec.tiltOptimistic;
      return { cover, spec: event.tiltReported && tiltOptimistic !== spec.tiltOptimistic ? { ...spec, tiltOptimistic } : spec };
    }),
    takeTilt: assign(({ context, event }) => (event.type === 'tilt' ? { cover: { ...context.cover, tilt: event.tilt } } : {})),
    open: enqueueActions(({ context, enqueue }) => {
      enqueue.emit(command('payload_open'));
      const { spec } = context;
      if (!spec.optimistic) return;
      const cover = withState(context.cover, 'open');
      if (spec.hasPosition) cover.position = 100;
      enqueue.assign({ cover });
    }),
    close: enqueueActions(({ context, enqueue }) => {
      enqueue.emit(command('payload_close'));
      const { spec } = context;
      if (!spec.optimistic) return;
      const cover = withState(context.cover, 'closed');
      if (spec.hasPosition) cover.position = 0;
      enqueue.assign({ cover });
    }),
    stop: enqueueActions(({ enqueue }) => enqueue.emit(command('payload_stop'))),
    setPosition: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'set_cover_position') return;
      const { spec } = context;
      const percentage = event.position;
      enqueue.emit({
        type: 'publish',
        topic: 'set_position_topic',
        value: pyRound(percentageToRanged(positionRange(spec), percentage)),
        template: 'set_position_template',
        variables: { position: percentage, ...templateVariables(spec) },
      });
      if (!spec.optimistic) return;
      const cover = withState(context.cover, percentage <= spec.positionClosed ? 'closed' : 'open');
      cover.position = percentage;
      enqueue.assign({ cover });
    }),
    tiltTo: enqueueActions(({ context, event, enqueue }) => {
      const { spec } = context;
      let value: number;
      let variable: number;
      let shown: number;
      if (event.type === 'set_cover_tilt_position') {
        value = pyRound(percentageToRanged(tiltRange(spec), event.tilt_position));
        variable = event.tilt_position;
        shown = event.tilt_position;
      } else {
        const opening = event.type === 'open_cover_tilt' || (event.type === 'toggle_cover_tilt' && context.cover.tilt !== null && context.cover.tilt <= rangedToPercentage(tiltRange(spec), spec.tiltClosed));
        value = opening ? spec.tiltOpened : spec.tiltClosed;
        variable = value;
        shown = rangedToPercentage(tiltRange(spec), value);
      }
      enqueue.emit({ type: 'publish', topic: 'tilt_command_topic', value, template: 'tilt_command_template', variables: { tilt_position: variable, ...templateVariables(spec) } });
      if (spec.tiltOptimistic) enqueue.assign({ cover: { ...context.cover, tilt: shown } });
    }),
    raiseToggle: enqueueActions(({ context, enqueue }) => {
      const c = context.cover;
      // the original's toggle: a moving cover stops, a closed one opens, else the other way from last time
      if (c.opening || c.closing) enqueue.raise({ type: 'stop_cover' });
      else if (c.closed === true) enqueue.raise({ type: 'open_cover' });
      else if (c.lastOpen) enqueue.raise({ type: 'close_cover' });
      else enqueue.raise({ type: 'open_cover' });
    }),
  },
}).createMachine({
  id: 'mqtt_cover',
  context: ({ input }) => ({ spec: input.spec, cover: input.cover ?? { closed: null, opening: false, closing: false, position: null, tilt: null, lastOpen: true } }),
  initial: 'running',
  states: {
    running: {
      on: {
        state: { actions: 'takeState' },
        position: { actions: 'takePosition' },
        tilt: { actions: 'takeTilt' },
        open_cover: { actions: 'open' },
        close_cover: { actions: 'close' },
        stop_cover: { actions: 'stop' },
        toggle: { actions: 'raiseToggle' },
        set_cover_position: { actions: 'setPosition' },
        open_cover_tilt: { actions: 'tiltTo' },
        close_cover_tilt: { actions: 'tiltTo' },
        toggle_cover_tilt: { actions: 'tiltTo' },
        set_cover_tilt_position: { actions: 'tiltTo' },
      },
    },
  },
});

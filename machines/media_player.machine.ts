import { assign, emit, setup } from 'xstate';

/** MediaPlayerEntityFeature (the bits a virtual player can have). */
export const MEDIA_PAUSE = 1;
export const MEDIA_VOLUME_SET = 4;
export const MEDIA_VOLUME_MUTE = 8;
export const MEDIA_PREVIOUS_TRACK = 16;
export const MEDIA_NEXT_TRACK = 32;
export const MEDIA_TURN_ON = 128;
export const MEDIA_TURN_OFF = 256;
export const MEDIA_VOLUME_STEP = 1024;
export const MEDIA_SELECT_SOURCE = 2048;
export const MEDIA_STOP = 4096;
export const MEDIA_PLAY = 16384;

export interface MediaPlayerConfig {
  features: number;
  source_list: string[];
  volume_step: number;
}

export interface MediaPlayerSettings {
  volume_level: number;
  is_volume_muted: boolean;
  source: string | null;
  /** counts next/previous track presses, shown as media_track */
  track: number;
}

export type MediaPlayerRest = 'off' | 'on' | 'playing' | 'paused';

export interface MediaPlayerInput {
  config: MediaPlayerConfig;
  state: MediaPlayerRest;
  settings: MediaPlayerSettings;
}

export type MediaPlayerContext = MediaPlayerInput;

export type MediaPlayerEvent =
  | { type: 'turn_on' }
  | { type: 'turn_off' }
  | { type: 'toggle' }
  | { type: 'media_play' }
  | { type: 'media_pause' }
  | { type: 'media_play_pause' }
  | { type: 'media_stop' }
  | { type: 'media_next_track' }
  | { type: 'media_previous_track' }
  | { type: 'volume_set'; volume_level: number }
  | { type: 'volume_up' }
  | { type: 'volume_down' }
  | { type: 'volume_mute'; is_volume_muted: boolean }
  | { type: 'select_source'; source: string };

export type MediaPlayerEmitted = { type: 'rejected'; code: 'service_validation_error'; message: string };

const clampVolume = (v: number) => Math.min(1, Math.max(0, v));
const withSettings = (context: MediaPlayerContext, change: Partial<MediaPlayerSettings>) => ({ settings: { ...context.settings, ...change } });

/**
 * A media player: off, on, playing, paused; its volume, mute and source. Play and pause turn
 * an off player on; stop leaves it on.
 */
export const mediaPlayerMachine = setup({
  types: {
    context: {} as MediaPlayerContext,
    events: {} as MediaPlayerEvent,
    emitted: {} as MediaPlayerEmitted,
    input: {} as MediaPlayerInput,
  },
  actions: {
    setVolume: assign(({ context, event }) => (event.type === 'volume_set' ? withSettings(context, { volume_level: clampVolume(event.volume_level) }) : {})),
    volumeUp: assign(({ context }) => withSettings(context, { volume_level: clampVolume(context.settings.volume_level + context.config.volume_step) })),
    volumeDown: assign(({ context }) => withSettings(context, { volume_level: clampVolume(context.settings.volume_level - context.config.volume_step) })),
    mute: assign(({ context, event }) => (event.type === 'volume_mute' ? withSettings(context, { is_volume_muted: event.is_volume_muted }) : {})),
    selectSource: assign(({ context, event }) => (event.type === 'select_source' ? withSettings(context, { source: event.source }) : {})),
    nextTrack: assign(({ context }) => withSettings(context, { track: context.settings.track + 1 })),
    previousTrack: assign(({ context }) => withSettings(context, { track: Math.max(1, context.settings.track - 1) })),
    rejectSource: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'service_validation_error' as const,
      message: `Source ${event.type === 'select_source' ? event.source : ''} is not one of the source_list: ${context.config.source_list.join(', ')}`,
    })),
  },
  guards: {
    startsOff: ({ context }) => context.state === 'off',
    startsPlaying: ({ context }) => context.state === 'playing',
    startsPaused: ({ context }) => context.state === 'paused',
    unknownSource: ({ context, event }) => event.type === 'select_source' && !context.config.source_list.includes(event.source),
  },
}).createMachine({
  id: 'media_player',
  context: ({ input }) => input,
  initial: 'starting',
  on: {
    volume_set: { actions: 'setVolume' },
    volume_up: { actions: 'volumeUp' },
    volume_down: { actions: 'volumeDown' },
    volume_mute: { actions: 'mute' },
    select_source: [{ guard: 'unknownSource', actions: 'rejectSource' }, { actions: 'selectSource' }],
    media_next_track: { actions: 'nextTrack' },
    media_previous_track: { actions: 'previousTrack' },
    media_play: '.playing',
    media_pause: '.paused',
    turn_off: '.off',
  },
  states: {
    starting: {
      always: [{ guard: 'startsOff', target: 'off' }, { guard: 'startsPlaying', target: 'playing' }, { guard: 'startsPaused', target: 'paused' }, { target: 'on' }],
    },
    off: {
      on: { turn_on: 'on', toggle: 'on', media_play_pause: 'playing' },
    },
    on: {
      on: { toggle: 'off', media_play_pause: 'playing', media_stop: 'on' },
    },
    playing: {
      on: { toggle: 'off', media_play_pause: 'paused', media_stop: 'on' },
    },
    paused: {
      on: { toggle: 'off', media_play_pause: 'playing', media_stop: 'on' },
    },
  },
});

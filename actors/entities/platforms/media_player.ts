import { Type } from '@sinclair/typebox';
import {
  MEDIA_NEXT_TRACK,
  MEDIA_PAUSE,
  MEDIA_PLAY,
  MEDIA_PREVIOUS_TRACK,
  MEDIA_SELECT_SOURCE,
  MEDIA_STOP,
  MEDIA_TURN_OFF,
  MEDIA_TURN_ON,
  MEDIA_VOLUME_MUTE,
  MEDIA_VOLUME_SET,
  MEDIA_VOLUME_STEP,
  mediaPlayerMachine,
  type MediaPlayerConfig,
  type MediaPlayerRest,
  type MediaPlayerSettings,
} from '../../../machines/media_player.machine.ts';
import { supportedFeatures, type EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown, numberAttribute, stringAttribute } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'media_player';

const FEATURES = {
  pause: MEDIA_PAUSE,
  volume_set: MEDIA_VOLUME_SET,
  volume_mute: MEDIA_VOLUME_MUTE,
  previous_track: MEDIA_PREVIOUS_TRACK,
  next_track: MEDIA_NEXT_TRACK,
  turn_on: MEDIA_TURN_ON,
  turn_off: MEDIA_TURN_OFF,
  volume_step: MEDIA_VOLUME_STEP,
  select_source: MEDIA_SELECT_SOURCE,
  stop: MEDIA_STOP,
  play: MEDIA_PLAY,
};

/** Options of a virtual media player. */
export interface MediaPlayerOptions {
  initial: MediaPlayerRest;
  config: MediaPlayerConfig;
  volume: number;
  source: string | null;
}

const toVolume = refine(cv.coerceFloat, (v) => {
  if (!(v >= 0 && v <= 1)) throw new Refusal('value must be between 0 and 1');
  return v;
});

function parseOptions(entry: EntryReader): MediaPlayerOptions {
  const sources = entry.optional('source_list', cv.stringList, []);
  const defaults =
    MEDIA_TURN_ON | MEDIA_TURN_OFF | MEDIA_VOLUME_SET | MEDIA_VOLUME_MUTE | MEDIA_VOLUME_STEP | MEDIA_PLAY | MEDIA_PAUSE | MEDIA_STOP |
    MEDIA_NEXT_TRACK | MEDIA_PREVIOUS_TRACK | (sources.length ? MEDIA_SELECT_SOURCE : 0);
  const source = entry.optional('source', cv.string, sources[0] ?? '');
  if (sources.length && !sources.includes(source)) throw entry.error('source', `must be one of ${sources.join(', ')}`);
  return {
    initial: entry.optional('initial', cv.oneOf(['off', 'on', 'playing', 'paused'] as const), 'off'),
    config: { features: entry.optional('supported_features', supportedFeatures(FEATURES), defaults), source_list: sources, volume_step: entry.optional('volume_step', toVolume, 0.1) },
    volume: entry.optional('volume_level', toVolume, 0.5),
    source: sources.length ? source : null,
  };
}

const target = { entity: [{ domain: [DOMAIN] }] };
const noData = Type.Object({}, { additionalProperties: false });

function simple(service: string, name: string, description: string, features: number[]): PlatformService {
  return { service, description: { name, description, fields: {}, target }, schema: noData, requiredFeatures: features, toEvent: () => ({ type: service }) };
}

const services: PlatformService[] = [
  simple('turn_on', 'Turn on', 'Turns on the power of the media player.', [MEDIA_TURN_ON]),
  simple('turn_off', 'Turn off', 'Turns off the power of the media player.', [MEDIA_TURN_OFF]),
  simple('toggle', 'Toggle', 'Toggles a media player on/off.', [MEDIA_TURN_OFF | MEDIA_TURN_ON]),
  simple('volume_up', 'Turn up volume', 'Turns up the volume.', [MEDIA_VOLUME_SET, MEDIA_VOLUME_STEP]),
  simple('volume_down', 'Turn down volume', 'Turns down the volume.', [MEDIA_VOLUME_SET, MEDIA_VOLUME_STEP]),
  simple('media_play_pause', 'Play/Pause', 'Toggles play/pause.', [MEDIA_PLAY | MEDIA_PAUSE]),
  simple('media_play', 'Play', 'Starts playing.', [MEDIA_PLAY]),
  simple('media_pause', 'Pause', 'Pauses.', [MEDIA_PAUSE]),
  simple('media_stop', 'Stop', 'Stops playing.', [MEDIA_STOP]),
  simple('media_next_track', 'Next', 'Selects the next track.', [MEDIA_NEXT_TRACK]),
  simple('media_previous_track', 'Previous', 'Selects the previous track.', [MEDIA_PREVIOUS_TRACK]),
  {
    service: 'volume_set',
    description: { name: 'Set volume', description: 'Sets the volume level.', fields: { volume_level: { required: true, name: 'Level', description: 'The volume. 0 is inaudible, 1 is the maximum volume.', selector: { number: { min: 0, max: 1, step: 0.01 } } } }, target },
    // cv.small_float
    schema: Type.Object({ volume_level: Type.Number({ minimum: 0, maximum: 1 }) }, { additionalProperties: false }),
    requiredFeatures: [MEDIA_VOLUME_SET],
    toEvent: (d) => ({ type: 'volume_set', volume_level: d.volume_level }),
  },
  {
    service: 'volume_mute',
    description: { name: 'Mute/unmute volume', description: 'Mutes or unmutes the media player.', fields: { is_volume_muted: { required: true, name: 'Muted', description: 'Defines whether or not it is muted.', selector: { boolean: null } } }, target },
    schema: Type.Object({ is_volume_muted: Type.Union([Type.Boolean(), Type.Number(), Type.String()]) }, { additionalProperties: false }),
    requiredFeatures: [MEDIA_VOLUME_MUTE],
    refine: (d) => {
      try {
        cv.convert(cv.boolean, d.is_volume_muted);
        return undefined;
      } catch (err) {
        if (err instanceof Refusal) return `${err.message} for dictionary value @ data['is_volume_muted']`;
        throw err;
      }
    },
    toEvent: (d) => ({ type: 'volume_mute', is_volume_muted: cv.convert(cv.boolean, d.is_volume_muted) }),
  },
  {
    service: 'select_source',
    description: { name: 'Select source', description: 'Sends the media player the command to change input source.', fields: { source: { required: true, name: 'Source', description: 'Name of the source to switch to. Platform dependent.', example: 'video1', selector: { text: null } } }, target },
    schema: Type.Object({ source: Type.String() }, { additionalProperties: false }),
    requiredFeatures: [MEDIA_SELECT_SOURCE],
    toEvent: (d) => ({ type: 'select_source', source: d.source }),
  },
];

/** media_player: off, on, playing, paused; volume, mute and source. */
export const mediaPlayerDomain: PlatformDomain<MediaPlayerOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial', 'source_list', 'source', 'volume_level', 'volume_step', 'supported_features'],
  deviceClasses: ['tv', 'speaker', 'receiver'],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: mediaPlayerMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const { config, initial, volume, source } = entry.options;
    const settings: MediaPlayerSettings = { volume_level: volume, is_volume_muted: false, source, track: 1 };
    let state: MediaPlayerRest = initial;
    if (last) {
      if (['off', 'on', 'playing', 'paused'].includes(last.state)) state = last.state as MediaPlayerRest;
      settings.volume_level = numberAttribute(last, 'volume_level') ?? settings.volume_level;
      settings.is_volume_muted = last.attributes.is_volume_muted === true;
      const restoredSource = stringAttribute(last, 'source');
      if (restoredSource !== undefined && config.source_list.includes(restoredSource)) settings.source = restoredSource;
      settings.track = numberAttribute(last, 'media_track') ?? settings.track;
    }
    return { config, state, settings };
  },
  render: (snapshot, entry) => {
    const s: MediaPlayerSettings = snapshot.context.settings;
    const a: Record<string, unknown> = {};
    if (entry.options.config.source_list.length) a.source_list = entry.options.config.source_list;
    const state = String(snapshot.value);
    if (state !== 'off') {
      Object.assign(a, { volume_level: s.volume_level, is_volume_muted: s.is_volume_muted, media_track: s.track });
      if (s.source !== null) a.source = s.source;
    }
    return { state, attributes: a };
  },
  services,
};

import type { Clock } from '../../clock.ts';
import type { EntityState } from '../../entities/types.ts';
import type { RecordContext } from '../../../machines/entity-state.ts';
import { MEDIA_NEXT_TRACK, MEDIA_PAUSE, MEDIA_PREVIOUS_TRACK, MEDIA_VOLUME_SET } from '../../../machines/media_player.machine.ts';
import type { IntentHome } from '../platforms.ts';
import { serviceIntentHandler } from '../service-intent.ts';
import { intRange } from '../slots.ts';
import type { IntentHandler } from '../types.ts';

/** MediaPlayerDeviceClass: the device classes the media intents' `device_class` slot may name. */
const MEDIA_DEVICE_CLASSES = ['tv', 'speaker', 'receiver'];

/** The players the last spoken pause reached, and when, so "resume" resumes those. */
class LastPaused {
  at: number | null = null;
  context: RecordContext | null = null;
  entityIds = new Set<string>();

  constructor(private readonly clock: Clock) {}

  remember(context: RecordContext, states: EntityState[]): void {
    this.context = context;
    this.entityIds = new Set(states.map((s) => s.entity_id));
    if (this.entityIds.size) this.at = this.clock.now();
  }

  /**
   * Which of the paused players a resume without a name means: one paused since by other means
   * (the latest), else those the spoken pause reached, else all of them. Either way it is used up.
   */
  resumeTargets(states: EntityState[]): EntityState[] {
    const at = this.at;
    if (at === null) return states;
    let recent: EntityState | undefined;
    for (const s of states) {
      if (s.last_changed <= at || s.context.id === this.context?.id) continue;
      if (!recent || s.last_changed > recent.last_changed) recent = s;
    }
    const paused = states.filter((s) => this.entityIds.has(s.entity_id));
    this.at = null;
    this.context = null;
    this.entityIds = new Set();
    if (recent) return [recent];
    return paused.length ? paused : states;
  }
}

/** vol.All(vol.Coerce(int), vol.Range(0, 100)) as a volume_level of 0..1. */
const volumePercent = (v: unknown) => (intRange(0, 100)(v) as number) / 100;

/**
 * The media_player integration's intents: CoreMediaPause (playing players), CoreMediaUnpause
 * (paused ones; without a name, what the last spoken pause reached), CoreMediaNext,
 * CoreMediaPrevious and CoreSetVolume (`volume_level` 0–100, called as 0..1), each a service
 * call on the media players its slots reach in the state and with the feature it needs.
 */
export function mediaPlayerIntents(home: IntentHome): IntentHandler[] {
  const lastPaused = new LastPaused(home.clock);
  const player = { requiredDomains: ['media_player'], deviceClasses: MEDIA_DEVICE_CLASSES, domain: 'media_player' };
  return [
    serviceIntentHandler(home, {
      ...player,
      intentType: 'CoreMediaUnpause',
      description: 'Resumes a media player',
      service: 'media_play',
      requiredStates: ['paused'],
      targets: (_intent, states, constraints) => (constraints.name ? states : lastPaused.resumeTargets(states)),
    }),
    serviceIntentHandler(home, {
      ...player,
      intentType: 'CoreMediaPause',
      description: 'Pauses a media player',
      service: 'media_pause',
      requiredFeatures: MEDIA_PAUSE,
      requiredStates: ['playing'],
      targets: (intent, states) => {
        lastPaused.remember(intent.context, states);
        return states;
      },
    }),
    serviceIntentHandler(home, {
      ...player,
      intentType: 'CoreMediaNext',
      description: 'Skips a media player to the next item',
      service: 'media_next_track',
      requiredFeatures: MEDIA_NEXT_TRACK,
      requiredStates: ['playing'],
    }),
    serviceIntentHandler(home, {
      ...player,
      intentType: 'CoreMediaPrevious',
      description: 'Replays the previous item for a media player',
      service: 'media_previous_track',
      requiredFeatures: MEDIA_PREVIOUS_TRACK,
      requiredStates: ['playing'],
    }),
    serviceIntentHandler(home, {
      ...player,
      intentType: 'CoreSetVolume',
      description: 'Sets the volume of a media player',
      service: 'volume_set',
      requiredFeatures: MEDIA_VOLUME_SET,
      requiredStates: ['playing'],
      requiredSlots: { volume_level: { validator: volumePercent } },
    }),
  ];
}

import { Type } from '@sinclair/typebox';
import { COVER_CLOSE, COVER_OPEN, COVER_SET_POSITION, COVER_STOP, coverMachine } from '../../../machines/cover.machine.ts';
import { initialPosition, supportedFeatures, type EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown } from './restore.ts';
import { restoredPosition, wholePercent } from './cover.ts';
import type { CoverConfig } from '../../../machines/cover.machine.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'valve';

/** ValveEntityFeature has the bits of the cover's first four. */
const FEATURES = { open: COVER_OPEN, close: COVER_CLOSE, set_position: COVER_SET_POSITION, stop: COVER_STOP };

/** Options of a virtual valve. */
export interface ValveOptions {
  initial: number;
  reports_position: boolean;
  config: CoverConfig;
}

function parseOptions(entry: EntryReader): ValveOptions {
  const reportsPosition = entry.optional('reports_position', cv.boolean, false);
  const travel = entry.optional('travel_seconds', cv.coerceFloat, 0);
  if (!(travel >= 0 && travel <= 3600)) throw entry.error('travel_seconds', 'value must be between 0 and 3600');
  const features = entry.optional('supported_features', supportedFeatures(FEATURES), COVER_OPEN | COVER_CLOSE | COVER_STOP | (reportsPosition ? COVER_SET_POSITION : 0));
  if (features & COVER_SET_POSITION && !reportsPosition) throw entry.error('supported_features', 'set_position needs reports_position: true');
  const initial = entry.optional('initial', initialPosition, 0);
  if (!reportsPosition && initial !== 0 && initial !== 100) throw entry.error('initial', 'a valve without reports_position is open or closed');
  return { initial, reports_position: reportsPosition, config: { features, travel_seconds: travel, tilt: false } };
}

const target = { entity: [{ domain: [DOMAIN] }] };
const noData = Type.Object({}, { additionalProperties: false });

/** A valve's services drive the cover machine: a valve moves as a cover does. */
function simple(service: string, event: string, name: string, description: string, features: number[]): PlatformService {
  return { service, description: { name, description, fields: {}, target }, schema: noData, requiredFeatures: features, toEvent: () => ({ type: event }) };
}

/**
 * valve: open, closed, opening, closing, and a position when it reports one. It moves as a
 * cover does (the cover's machine), `travel_seconds` from closed to open.
 */
export const valveDomain: PlatformDomain<ValveOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial', 'reports_position', 'travel_seconds', 'supported_features'],
  deviceClasses: ['water', 'gas'],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: coverMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    let position = restoredPosition(last, entry.options.initial);
    // a valve that cannot stand part-way rests where it was heading
    if (!entry.options.reports_position && position !== 0) position = last?.state === 'closing' ? 0 : 100;
    return { config: entry.options.config, position: wholePercent(position), tilt: 0 };
  },
  render: (snapshot, entry) => {
    const { position } = snapshot.context;
    const moving = snapshot.value === 'opening' || snapshot.value === 'closing';
    return {
      state: moving ? snapshot.value : position === 0 ? 'closed' : 'open',
      attributes: entry.options.reports_position ? { current_position: position } : {},
    };
  },
  services: [
    simple('open_valve', 'open_cover', 'Open', 'Opens a valve.', [COVER_OPEN]),
    simple('close_valve', 'close_cover', 'Close', 'Closes a valve.', [COVER_CLOSE]),
    {
      service: 'set_valve_position',
      description: {
        name: 'Set position',
        description: 'Moves a valve to a specific position.',
        fields: { position: { required: true, name: 'Position', description: 'Target position.', selector: { number: { min: 0, max: 100, unit_of_measurement: '%' } } } },
        target,
      },
      schema: Type.Object({ position: Type.Number({ minimum: 0, maximum: 100 }) }, { additionalProperties: false }),
      requiredFeatures: [COVER_SET_POSITION],
      toEvent: (d) => ({ type: 'set_cover_position', position: Math.trunc(d.position) }),
    },
    simple('stop_valve', 'stop_cover', 'Stop', 'Stops the valve movement.', [COVER_STOP]),
    simple('toggle', 'toggle', 'Toggle', 'Toggles a valve open/closed.', [COVER_OPEN | COVER_CLOSE]),
  ],
};

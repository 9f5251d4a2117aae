import { Type } from '@sinclair/typebox';
import {
  COVER_CLOSE,
  COVER_CLOSE_TILT,
  COVER_OPEN,
  COVER_OPEN_TILT,
  COVER_SET_POSITION,
  COVER_SET_TILT_POSITION,
  COVER_STOP,
  COVER_STOP_TILT,
  coverMachine,
  type CoverConfig,
} from '../../../machines/cover.machine.ts';
import { initialPosition, supportedFeatures, type EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown, numberAttribute } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'cover';

const FEATURES = {
  open: COVER_OPEN,
  close: COVER_CLOSE,
  set_position: COVER_SET_POSITION,
  stop: COVER_STOP,
  open_tilt: COVER_OPEN_TILT,
  close_tilt: COVER_CLOSE_TILT,
  stop_tilt: COVER_STOP_TILT,
  set_tilt_position: COVER_SET_TILT_POSITION,
};
const TILT = COVER_OPEN_TILT | COVER_CLOSE_TILT | COVER_STOP_TILT | COVER_SET_TILT_POSITION;

/** Options of a virtual cover. */
export interface CoverOptions {
  /** the position of the first start */
  initial: number;
  config: CoverConfig;
}

function parseOptions(entry: EntryReader): CoverOptions {
  const tilt = entry.optional('tilt', cv.boolean, false);
  const travel = entry.optional('travel_seconds', cv.coerceFloat, 0);
  if (!(travel >= 0 && travel <= 3600)) throw entry.error('travel_seconds', 'value must be between 0 and 3600');
  const features = entry.optional('supported_features', supportedFeatures(FEATURES), COVER_OPEN | COVER_CLOSE | COVER_STOP | COVER_SET_POSITION | (tilt ? TILT : 0));
  if (features & TILT && !tilt) throw entry.error('supported_features', 'tilt features need tilt: true');
  return { initial: entry.optional('initial', initialPosition, 0), config: { features, travel_seconds: travel, tilt } };
}

const target = { entity: [{ domain: [DOMAIN] }] };
const noData = Type.Object({}, { additionalProperties: false });
const percent = Type.Number({ minimum: 0, maximum: 100 });

function simple(service: string, name: string, description: string, feature: number): PlatformService {
  return { service, description: { name, description, fields: {}, target }, schema: noData, requiredFeatures: [feature], toEvent: () => ({ type: service }) };
}

function positionService(service: string, key: string, name: string, description: string, fieldName: string, fieldDescription: string, feature: number): PlatformService {
  return {
    service,
    description: {
      name,
      description,
      fields: { [key]: { required: true, name: fieldName, description: fieldDescription, selector: { number: { min: 0, max: 100, unit_of_measurement: '%' } } } },
      target,
    },
    schema: Type.Object({ [key]: percent }, { additionalProperties: false }),
    requiredFeatures: [feature],
    // vol.Coerce(int)
    toEvent: (d) => ({ type: service, [key]: Math.trunc(d[key]) }),
  };
}

/**
 * cover: open, closed, opening, closing; a position, and a tilt when it has one. With
 * `travel_seconds` a move takes that long from closed to open. A cover moving when Hearth stops
 * stays where its last written position was: it starts again at rest there.
 */
/** The position a cover or valve had in its last state: its attribute, else what open or closed means. */
export function restoredPosition(last: ReturnType<typeof lastKnown>, initial: number): number {
  if (!last) return initial;
  return numberAttribute(last, 'current_position') ?? (last.state === 'closed' ? 0 : last.state === 'open' ? 100 : initial);
}

/** A whole percentage, 0 to 100. */
export const wholePercent = (n: number) => Math.min(Math.max(Math.round(n), 0), 100);

export const coverDomain: PlatformDomain<CoverOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial', 'travel_seconds', 'tilt', 'supported_features'],
  deviceClasses: ['awning', 'blind', 'curtain', 'damper', 'door', 'garage', 'gate', 'shade', 'shutter', 'window'],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: coverMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const tilt = numberAttribute(last, 'current_tilt_position') ?? 0;
    return { config: entry.options.config, position: wholePercent(restoredPosition(last, entry.options.initial)), tilt: wholePercent(tilt) };
  },
  render: (snapshot, entry) => {
    const { position, tilt } = snapshot.context;
    const moving = snapshot.value === 'opening' || snapshot.value === 'closing';
    const a: Record<string, unknown> = { current_position: position };
    if (entry.options.config.tilt) a.current_tilt_position = tilt;
    return { state: moving ? snapshot.value : position === 0 ? 'closed' : 'open', attributes: a };
  },
  services: [
    simple('open_cover', 'Open', 'Opens a cover.', COVER_OPEN),
    simple('close_cover', 'Close', 'Closes a cover.', COVER_CLOSE),
    positionService('set_cover_position', 'position', 'Set position', 'Moves a cover to a specific position.', 'Position', 'Target position.', COVER_SET_POSITION),
    simple('stop_cover', 'Stop', 'Stops the cover movement.', COVER_STOP),
    { ...simple('toggle', 'Toggle', 'Toggles a cover open/closed.', COVER_OPEN), requiredFeatures: [COVER_OPEN | COVER_CLOSE] },
    simple('open_cover_tilt', 'Open tilt', 'Tilts a cover open.', COVER_OPEN_TILT),
    simple('close_cover_tilt', 'Close tilt', 'Tilts a cover to close.', COVER_CLOSE_TILT),
    simple('stop_cover_tilt', 'Stop tilt', 'Stops a tilting cover movement.', COVER_STOP_TILT),
    positionService('set_cover_tilt_position', 'tilt_position', 'Set tilt position', 'Moves a cover tilt to a specific position.', 'Tilt position', 'Target tilt positition.', COVER_SET_TILT_POSITION),
    { ...simple('toggle_cover_tilt', 'Toggle tilt', 'Toggles a cover tilt open/closed.', COVER_OPEN_TILT), requiredFeatures: [COVER_OPEN_TILT | COVER_CLOSE_TILT] },
  ],
};

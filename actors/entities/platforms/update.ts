import { Type } from '@sinclair/typebox';
import type { PlatformService } from './types.ts';

/** The original's UpdateEntityFeature bits. */
export const UPDATE_INSTALL = 1;
export const UPDATE_SPECIFIC_VERSION = 2;
export const UPDATE_PROGRESS = 4;
export const UPDATE_BACKUP = 8;
export const UPDATE_RELEASE_NOTES = 16;

const target = { entity: [{ domain: ['update'] }] };
const NO_DATA = Type.Object({}, { additionalProperties: false });

/**
 * update: the domain's services (the original's update component): install (for entities that
 * can), skip and clear_skipped. Hearth has no virtual update platform; the platforms that make
 * update entities (MQTT) take these, their machines checking what the original checks.
 */
export const updateServices: PlatformService[] = [
  {
    service: 'install',
    description: {
      name: 'Install update',
      description: 'Installs an update for a device or service.',
      fields: {
        version: { required: false, example: '1.0.0', selector: { text: {} }, name: 'Version', description: 'The version to install. If omitted, the latest version will be installed.' },
        backup: { required: false, selector: { boolean: {} }, name: 'Backup', description: 'If supported by the integration, this creates a backup before starting the update.' },
      },
      target,
    },
    // cv.string, cv.boolean (default False)
    schema: Type.Object(
      { version: Type.Optional(Type.Union([Type.String(), Type.Number()])), backup: Type.Optional(Type.Union([Type.Boolean(), Type.String(), Type.Number()])) },
      { additionalProperties: false },
    ),
    requiredFeatures: [UPDATE_INSTALL],
    toEvent: (data) => ({
      type: 'install',
      version: data.version === undefined ? null : String(data.version),
      backup: data.backup === true || data.backup === 1 || (typeof data.backup === 'string' && ['1', 'true', 'yes', 'on', 'enable'].includes(data.backup.toLowerCase())),
    }),
  },
  {
    service: 'skip',
    description: { name: 'Skip update', description: 'Marks currently available update as skipped.', fields: {}, target },
    schema: NO_DATA,
    toEvent: () => ({ type: 'skip' }),
  },
  {
    service: 'clear_skipped',
    description: { name: 'Clear skipped update', description: 'Removes the skipped version marker from an update.', fields: {}, target },
    schema: NO_DATA,
    toEvent: () => ({ type: 'clear_skipped' }),
  },
];

import { Type } from '@sinclair/typebox';
import { LOCK_OPEN, lockMachine, type LockConfig, type LockRest } from '../../../machines/lock.machine.ts';
import type { EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'lock';

/** Options of a virtual lock. */
export interface LockOptions {
  initial: LockRest;
  config: LockConfig;
}

const toPattern = refine(cv.string, (pattern) => {
  try {
    new RegExp(pattern);
  } catch {
    throw new Refusal(`invalid regular expression ${pattern}`);
  }
  return pattern;
});

function parseOptions(entry: EntryReader): LockOptions {
  const seconds = entry.optional('operation_seconds', cv.coerceFloat, 0);
  if (!(seconds >= 0 && seconds <= 600)) throw entry.error('operation_seconds', 'value must be between 0 and 600');
  return {
    initial: entry.optional('initial', cv.oneOf(['locked', 'unlocked', 'open', 'jammed'] as const), 'locked'),
    config: {
      features: entry.optional('supports_open', cv.boolean, false) ? LOCK_OPEN : 0,
      operation_seconds: seconds,
      jam: entry.optional('jam', cv.boolean, false),
      code_format: entry.optional('code_format', toPattern, null),
    },
  };
}

/** A lock that was moving when Hearth stopped comes back where it was going. */
const SETTLED: Record<string, LockRest> = { locked: 'locked', unlocked: 'unlocked', open: 'open', jammed: 'jammed', locking: 'locked', unlocking: 'unlocked', opening: 'open' };

const target = { entity: [{ domain: [DOMAIN] }] };
const CODE = Type.Object({ code: Type.Optional(Type.Union([Type.String(), Type.Number()])) }, { additionalProperties: false });
const codeField = { code: { name: 'Code', description: 'Code used to lock the lock.', example: 1234, selector: { text: null } } };

function codeService(service: 'lock' | 'unlock' | 'open', name: string, description: string, features?: number[]): PlatformService {
  return {
    service,
    description: { name, description, fields: codeField, target },
    schema: CODE,
    requiredFeatures: features,
    // cv.string: a number is its str()
    toEvent: (d) => ({ type: service, ...(d.code !== undefined && d.code !== '' ? { code: String(d.code) } : {}) }),
  };
}

/** lock: locked, unlocked, locking, unlocking, open, opening, jammed; an optional code format; a simulated jam. */
export const lockDomain: PlatformDomain<LockOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial', 'supports_open', 'operation_seconds', 'jam', 'code_format'],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: lockMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const state = last && Object.hasOwn(SETTLED, last.state) ? SETTLED[last.state] : entry.options.initial;
    return { entityId: entry.entityId, config: entry.options.config, state };
  },
  render: (snapshot, entry) => {
    const { code_format } = entry.options.config;
    return { state: String(snapshot.value), attributes: code_format !== null ? { code_format } : {} };
  },
  services: [
    codeService('unlock', 'Unlock', 'Unlocks a lock.'),
    codeService('lock', 'Lock', 'Locks a lock.'),
    codeService('open', 'Open', 'Opens a lock.', [LOCK_OPEN]),
  ],
};

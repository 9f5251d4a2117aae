import { assign, emit, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';

/** What an update entity knows of its software (JSON values as they came). */
export interface UpdateInfo {
  installed_version: unknown;
  latest_version: unknown;
  title: unknown;
  release_summary: unknown;
  release_url: unknown;
  /** from the state JSON; undefined: the config's (or the brand icon) */
  entity_picture?: unknown;
}

/** What an MQTT update starts from. */
export interface MqttUpdateInput {
  info: UpdateInfo;
  /** the version the user skipped (restored) */
  skipped: string | null;
  entityId: string;
}

export interface MqttUpdateContext extends MqttUpdateInput {}

export type MqttUpdateEvent =
  /** the state topic's keys, or the latest version topic's */
  | { type: 'message'; info: Partial<UpdateInfo> }
  | { type: 'install'; version: string | null; backup: boolean }
  | { type: 'skip' }
  | { type: 'clear_skipped' };

export type MqttUpdateEmitted = MqttPublishRequest | { type: 'rejected'; message: string; code: 'home_assistant_error' };

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** Why install cannot run, in the original's words (MQTT updates install neither a given version nor with a backup). */
function installProblem(context: MqttUpdateContext, version: string | null, backup: boolean): string | undefined {
  const installed = text(context.info.installed_version);
  const latest = text(context.info.latest_version);
  if (version === null && (installed === latest || latest === null)) return `No update available for ${context.entityId}`;
  if (version !== null) return `Installing a specific version is not supported for ${context.entityId}`;
  if (backup) return `Backup is not supported for ${context.entityId}`;
  return undefined;
}

function skipProblem(context: MqttUpdateContext): string | undefined {
  const latest = text(context.info.latest_version);
  if (latest === null) return `Cannot skip an unknown version for ${context.entityId}`;
  if (text(context.info.installed_version) === latest) return `No update available to skip for ${context.entityId}`;
  return undefined;
}

/** The skipped version still stands: not the installed one, and the latest has not moved on. */
export function standingSkip(info: UpdateInfo, skipped: string | null): string | null {
  const installed = text(info.installed_version);
  const latest = text(info.latest_version);
  if ((installed !== null && skipped === installed) || (latest !== null && skipped !== latest)) return null;
  return skipped;
}

/**
 * An MQTT update entity: the installed and latest versions (and title, release summary and url)
 * from its topics; install publishes payload_install, skip marks the latest version skipped
 * until it changes.
 */
export const mqttUpdateMachine = setup({
  types: {
    context: {} as MqttUpdateContext,
    events: {} as MqttUpdateEvent,
    input: {} as MqttUpdateInput,
    emitted: {} as MqttUpdateEmitted,
  },
  actions: {
    take: assign(({ context, event }) => {
      if (event.type !== 'message') return {};
      const info = { ...context.info, ...event.info };
      return { info, skipped: standingSkip(info, context.skipped) };
    }),
    refuseInstall: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'home_assistant_error' as const,
      message: installProblem(context, event.type === 'install' ? event.version : null, event.type === 'install' && event.backup)!,
    })),
    refuseSkip: emit(({ context }) => ({ type: 'rejected' as const, code: 'home_assistant_error' as const, message: skipProblem(context)! })),
    publishInstall: emit({ type: 'publish', topic: 'command_topic', payload: 'payload_install' } as const),
    skip: assign(({ context }) => ({ skipped: text(context.info.latest_version) })),
    clearSkipped: assign({ skipped: null }),
  },
  guards: {
    cannotInstall: ({ context, event }) => event.type === 'install' && installProblem(context, event.version, event.backup) !== undefined,
    cannotSkip: ({ context }) => skipProblem(context) !== undefined,
  },
}).createMachine({
  id: 'mqtt_update',
  context: ({ input }) => ({ ...input }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        message: { actions: 'take' },
        install: [{ guard: 'cannotInstall', actions: 'refuseInstall' }, { actions: 'publishInstall' }],
        skip: [{ guard: 'cannotSkip', actions: 'refuseSkip' }, { actions: 'skip' }],
        clear_skipped: { actions: 'clearSkipped' },
      },
    },
  },
});

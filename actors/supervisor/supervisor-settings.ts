import type { Settings, SettingsSection } from './settings.ts';

/** The feature flags the original knows; `/supervisor/options` refuses any other name. */
export const FEATURE_FLAGS = ['supervisor_v2_api', 'supervisor_websocket_v2_api'] as const;

/** The supervisor's settings section of its own (`/supervisor/options`). */
export const SUPERVISOR_DEFAULTS = {
  channel: 'stable' as 'stable' | 'beta' | 'dev',
  logging: 'info' as string,
  timezone: 'Etc/UTC' as string,
  debug: false,
  debug_block: false,
  diagnostics: null as boolean | null,
  auto_update: true,
  /** true: the blocking-I/O detector is switched on at every start (`on-at-startup`) */
  detect_blocking_io: false,
  country: null as string | null,
  wait_boot: 5,
  feature_flags: { supervisor_v2_api: false, supervisor_websocket_v2_api: false } as Record<string, boolean>,
};

export type SupervisorSettings = typeof SUPERVISOR_DEFAULTS;

export function supervisorSettings(settings: Settings): SettingsSection<SupervisorSettings> {
  return settings.section('supervisor', SUPERVISOR_DEFAULTS);
}

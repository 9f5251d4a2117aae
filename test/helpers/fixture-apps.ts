// Installed apps as plain data, standing in for the app actors (AppsView) in tests of the areas
// that only read them: services, discovery, the auth helper, the core's API proxy.
import type { AppsView, AppState, InstalledApp } from '../../actors/supervisor/apps/types.ts';
import type { AppConfig } from '../../actors/supervisor/apps/repository.ts';
import type { Supervisor } from '../../bin/supervisor-instance.ts';

export interface FixtureApp {
  slug: string;
  state?: AppState;
  services?: string[];
  discovery?: string[];
  auth_api?: boolean;
  homeassistant_api?: boolean;
  name?: string;
}

/** An AppsView over `apps`; change an app's `state` on the returned array's entries to stop or start it. */
export function fixtureApps(apps: FixtureApp[]): AppsView & { apps: InstalledApp[] } {
  const installed: InstalledApp[] = apps.map((a) => ({
    slug: a.slug,
    repository: 'local',
    config: { name: a.name ?? a.slug, slug: a.slug, version: '1.0.0', services: a.services ?? [], discovery: a.discovery ?? [], auth_api: a.auth_api ?? false, homeassistant_api: a.homeassistant_api ?? false, hassio_api: false } as unknown as AppConfig,
    user: {} as InstalledApp['user'],
    state: a.state ?? 'started',
  }));
  return {
    apps: installed,
    list: () => installed,
    get: (slug) => installed.find((a) => a.slug === slug),
    byIngressToken: () => undefined,
    ingressTarget: async () => null,
  };
}

/** Installs the fixture on a supervisor and issues each app its token (role `default`, carrying its slug). */
export async function withFixtureApps(supervisor: Supervisor, apps: FixtureApp[]): Promise<{ view: ReturnType<typeof fixtureApps>; tokens: Record<string, string> }> {
  const view = fixtureApps(apps);
  supervisor.deps.apps = view;
  const tokens: Record<string, string> = {};
  for (const a of apps) tokens[a.slug] = (await supervisor.tokens.issue({ name: a.slug, kind: 'app', role: 'default', slug: a.slug }, { id: 'fixture', parent_id: null, user_id: null })).token;
  return { view, tokens };
}

/** Turns the `/v2` tree on; it is served from the next start. */
export async function enableV2(supervisor: Supervisor): Promise<void> {
  const section = supervisor.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> });
  await section.set({ feature_flags: { ...section.get().feature_flags, supervisor_v2_api: true } }, { id: 'v2', parent_id: null, user_id: null });
}

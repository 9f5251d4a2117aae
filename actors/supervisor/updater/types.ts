/**
 * What the rest of the supervisor needs of the updater (actors/supervisor/updater/): the latest
 * versions from the channel file (stable/beta/dev), which the operator may point at a local JSON
 * document.
 */
export type UpdateComponent = 'core' | 'supervisor' | 'os' | 'cli' | 'dns' | 'audio' | 'observer' | 'multicast';

export interface UpdaterView {
  /** the latest version of a component on the configured channel, null when unknown */
  latest(component: UpdateComponent): string | null;
  channel(): 'stable' | 'beta' | 'dev';
}

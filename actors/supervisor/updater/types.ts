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
  /**
   * Reads the channel document again (at most once per 30 s unless `force`); rejects with the
   * reason when the document is unusable (the last good versions stay).
   */
  reload(options?: { force?: boolean }): Promise<unknown>;
}

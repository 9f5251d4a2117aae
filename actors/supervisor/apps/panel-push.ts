import type { Logger } from '../../logging/logs.ts';

/** Tells the core to show (POST) or drop (DELETE) an app's ingress panel. */
export type PanelPush = (slug: string, enabled: boolean) => Promise<void>;

/**
 * The push as the original makes it: only when the core's API answers, and whatever goes wrong is
 * a warning line, never a failure of the change that caused it (the core reads every enabled
 * panel again when it starts).
 */
export function corePanelPush(api: { up(): Promise<boolean>; request(method: string, path: string, body?: unknown): Promise<Response> }, logger: Logger): PanelPush {
  return async (slug, enabled) => {
    try {
      if (!(await api.up())) {
        logger.debug(`the core's API is not up: the panel of app ${slug} waits for the core's start`);
        return;
      }
      const res = await api.request(enabled ? 'POST' : 'DELETE', `/api/hassio_push/panel/${encodeURIComponent(slug)}`);
      if (res.ok) logger.info(`ingress panel of app ${slug} ${enabled ? 'shown in' : 'removed from'} the core`);
      else logger.warning(`the core answered ${res.status} to the ingress panel of app ${slug}`);
    } catch (err) {
      logger.warning(`the ingress panel of app ${slug} was not pushed to the core: ${(err as Error).message}`);
    }
  };
}

import type Docker from 'dockerode';
import { APP_BASE_IMAGE, ensureBaseImage } from './busybox-base.ts';
import { MOSQUITTO_BASE_IMAGE, ensureMosquittoBase } from './mosquitto-base.ts';

/**
 * The bases locally built apps start from, made on this engine since nothing can be pulled: the
 * default one and those an app's `build.yaml` names (`build_from`) that Hearth makes from this
 * host's packages.
 */

// the bases made here, by the name an app's build.yaml gives them
const LOCAL_BASES = new Map<string, (docker: Docker, logLine: (line: string) => void) => Promise<void>>([
  [APP_BASE_IMAGE, ensureBaseImage],
  [MOSQUITTO_BASE_IMAGE, ensureMosquittoBase],
]);

/**
 * Makes sure the base an app builds from is on the engine when it is one made here; any other
 * name is left to the engine's builder (which finds it loaded by hand, or fails the build).
 */
export async function ensureLocalBase(docker: Docker, ref: string, logLine: (line: string) => void): Promise<void> {
  await LOCAL_BASES.get(ref)?.(docker, logLine);
}

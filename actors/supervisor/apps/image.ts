import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { keyedError } from '../errors.ts';
import { imageExists } from '../core/image.ts';
import { buildFolder } from '../docker/gnu-tar-stream.ts';
import { ensureLocalBase } from './base-images.ts';
import { readBuildConfig } from './build-config.ts';
import { APP_BASE_IMAGE, ensureBaseImage } from './busybox-base.ts';
import type { RepositoryApp } from './repository.ts';

export { imageExists, APP_BASE_IMAGE, ensureBaseImage };

/**
 * Apps' images, built on this engine: nothing can be pulled, so a locally built app's
 * `FROM $BUILD_FROM` is a base made here — the host's static busybox with every applet linked in
 * /bin, or another base its build.yaml names (base-images.ts) — and its Dockerfile is built by
 * the engine's own builder from the app's folder. Images are named as the original names them
 * (`<repository>/<arch>-addon-<slug>:<version>`).
 */

/** The image name without tag: the config's `image` with `{arch}` filled in, else the local build's name. */
export function appImageName(app: RepositoryApp, arch: string): string {
  if (app.config.image) return app.config.image.replace(/\{arch\}/g, arch);
  return `${app.repository}/${arch}-addon-${app.config.slug}`;
}

/** Whether the app is built here (it names no image to pull). */
export const builtLocally = (app: RepositoryApp) => app.config.image === null;

/** The original's answer to a build that failed (what failed goes to the supervisor's log). */
const buildFailed = (app: RepositoryApp) =>
  keyedError(500, 'app_build_failed_unknown_error', 'An unknown error occurred while trying to build the image for app {app}. Check Supervisor logs for details', { app: app.key });

/** The Dockerfile to build for an arch: `Dockerfile.<arch>` when the app has one. */
async function dockerfileOf(app: RepositoryApp, arch: string): Promise<string | null> {
  for (const name of [`Dockerfile.${arch}`, 'Dockerfile']) {
    if ((await stat(join(app.path, name)).catch(() => null))?.isFile()) return name;
  }
  return null;
}

// one build of an image at a time in this process
const building = new Map<string, Promise<{ ref: string; built: boolean }>>();

/**
 * Builds `<name>:<version>` from the app's folder with the engine's builder (or makes sure an
 * image-based app's image is on the engine), unless it exists and `rebuild` is not asked.
 * Labels and build arguments as the original gives them. Failures are the original's errors;
 * the builder's output goes to `logLine`.
 */
export function buildAppImage(docker: Docker, app: RepositoryApp, options: { arch: string; logLine?: (line: string) => void; rebuild?: boolean }): Promise<{ ref: string; built: boolean }> {
  const ref = `${appImageName(app, options.arch)}:${app.config.version}`;
  const pending = building.get(ref);
  if (pending) return pending;
  const logLine = options.logLine ?? (() => {});
  const work = (async () => {
    if (!options.rebuild && (await imageExists(docker, ref))) return { ref, built: false };
    if (!builtLocally(app)) {
      // nothing can be pulled here: an image-based app runs only when its image was loaded by hand
      throw keyedError(500, 'app_unknown_error', 'An unknown error occurred with app {app}. Check Supervisor logs for details', { app: app.key });
    }
    if (!app.config.arch.includes(options.arch)) {
      throw keyedError(400, 'app_build_architecture_not_supported_error', "Cannot build app '{app}' because its supported architectures ({app_arches}) do not match the system supported architectures ({system_arches})", {
        app: app.key,
        app_arches: app.config.arch.join(', '),
        system_arches: options.arch,
      });
    }
    const dockerfile = await dockerfileOf(app, options.arch);
    if (!dockerfile) {
      throw keyedError(400, 'app_build_dockerfile_missing_error', "Cannot build app '{app}' because dockerfile is missing. A repair using '{repair_command}' will fix this if the cause is data corruption. Otherwise please report this to the app developer.", {
        app: app.key,
        repair_command: 'ha supervisor repair',
      });
    }
    const build = await readBuildConfig(app.path, options.arch, APP_BASE_IMAGE).catch((err) => {
      logLine(`building ${ref} failed: ${(err as Error).message}`);
      throw buildFailed(app);
    });
    await ensureLocalBase(docker, build.buildFrom, logLine);
    const started = Date.now();
    logLine(`building ${ref} from ${join(app.path, dockerfile)} on ${build.buildFrom}`);
    let built: { lines: string[]; error: string | null };
    try {
      built = await buildFolder(docker, app.path, {
        t: ref,
        dockerfile,
        buildargs: { ...build.args, BUILD_FROM: build.buildFrom, BUILD_VERSION: app.config.version, BUILD_ARCH: options.arch },
        labels: {
          'io.hass.version': app.config.version,
          'io.hass.arch': options.arch,
          'io.hass.type': 'app',
          'io.hass.name': app.config.name,
          'io.hass.description': app.config.description,
          ...(app.config.url ? { 'io.hass.url': app.config.url } : {}),
        },
      });
    } catch (err) {
      logLine(`building ${ref} failed: ${(err as Error).message}`);
      throw buildFailed(app);
    }
    const { lines, error } = built;
    for (const line of lines) logLine(line);
    if (error || !(await imageExists(docker, ref))) {
      logLine(`building ${ref} failed: ${error ?? 'the engine kept no image'}`);
      throw buildFailed(app);
    }
    logLine(`built ${ref} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { ref, built: true };
  })();
  building.set(ref, work);
  work.then(
    () => building.delete(ref),
    () => building.delete(ref),
  );
  return work;
}

/** Removes an app's image (uninstall); an image still used or already gone is left as it is. */
export async function removeAppImage(docker: Docker, ref: string): Promise<void> {
  await docker.getImage(ref).remove({ force: false }).catch(() => {});
}

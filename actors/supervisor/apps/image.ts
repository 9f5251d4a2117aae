import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, rm, symlink, writeFile, chmod, copyFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { keyedError } from '../errors.ts';
import { imageExists } from '../core/image.ts';
import { readProgress, streamToText, tarOf } from '../docker/gnu-tar-stream.ts';
import type { RepositoryApp } from './repository.ts';

export { imageExists };

/**
 * Apps' images, built on this engine: nothing can be pulled, so a locally built app's
 * `FROM $BUILD_FROM` is a base made here — the host's static busybox with every applet linked in
 * /bin — and its Dockerfile is built by the engine's own builder from the app's folder. Images
 * are named as the original names them (`<repository>/<arch>-addon-<slug>:<version>`).
 */

const run = promisify(execFile);

/** The base locally built apps start from (`BUILD_FROM`). */
export const APP_BASE_IMAGE = 'hearth/busybox:stable';
const BUSYBOX = '/usr/bin/busybox';

/** The image name without tag: the config's `image` with `{arch}` filled in, else the local build's name. */
export function appImageName(app: RepositoryApp, arch: string): string {
  if (app.config.image) return app.config.image.replace(/\{arch\}/g, arch);
  return `${app.repository}/${arch}-addon-${app.config.slug}`;
}

/** Whether the app is built here (it names no image to pull). */
export const builtLocally = (app: RepositoryApp) => app.config.image === null;

let basePending: Promise<void> | undefined;

/**
 * Makes sure the base image exists: the host's static busybox (Debian's `busybox-static`) in an
 * otherwise empty root, each applet a link to it, with /etc/passwd, /tmp and a shell.
 */
export function ensureBaseImage(docker: Docker, logLine: (line: string) => void = () => {}): Promise<void> {
  return (basePending ??= (async () => {
    if (await imageExists(docker, APP_BASE_IMAGE)) return;
    try {
      await access(BUSYBOX);
    } catch {
      throw new Error(`the apps' base image ${APP_BASE_IMAGE} is made from ${BUSYBOX}, which is missing: apt-get install -y busybox-static`);
    }
    const root = await mkdtemp(join(tmpdir(), 'hearth-app-base-'));
    try {
      for (const d of ['bin', 'tmp', 'etc', 'root', 'data', 'usr/bin', 'var/run']) await mkdir(join(root, d), { recursive: true });
      await chmod(join(root, 'tmp'), 0o1777);
      await copyFile(BUSYBOX, join(root, 'bin/busybox'));
      await chmod(join(root, 'bin/busybox'), 0o755);
      const applets = (await run(BUSYBOX, ['--list'])).stdout.split('\n').filter((a) => /^[\w.[-]+$/.test(a) && a !== 'busybox');
      for (const applet of applets) await symlink('busybox', join(root, 'bin', applet)).catch(() => {});
      await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
      await writeFile(join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
      await writeFile(join(root, 'etc/nsswitch.conf'), 'hosts: files dns\n');
      const { stream, done } = tarOf(root);
      const changes = ['ENV PATH=/usr/local/bin:/usr/bin:/bin', 'CMD ["/bin/sh"]', 'LABEL io.hass.type=base hearth.base=busybox'];
      const [name, tag] = APP_BASE_IMAGE.split(':');
      const progress = (await docker.importImage(stream as any, { repo: name, tag, changes } as any)) as unknown as NodeJS.ReadableStream;
      const answer = await streamToText(progress);
      await done;
      const { error } = readProgress(answer);
      if (error) throw new Error(`the engine refused the apps' base image: ${error}`);
      logLine(`made the apps' base image ${APP_BASE_IMAGE} from ${BUSYBOX} (${applets.length} applets)`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  })().finally(() => (basePending = undefined)));
}

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
 * the builder's output goes to `say`.
 */
export function buildAppImage(docker: Docker, app: RepositoryApp, options: { arch: string; say?: (line: string) => void; rebuild?: boolean }): Promise<{ ref: string; built: boolean }> {
  const ref = `${appImageName(app, options.arch)}:${app.config.version}`;
  const pending = building.get(ref);
  if (pending) return pending;
  const logLine = options.say ?? (() => {});
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
    await ensureBaseImage(docker, logLine);
    const started = Date.now();
    logLine(`building ${ref} from ${join(app.path, dockerfile)}`);
    const { stream, done } = tarOf(app.path);
    let answer: string;
    try {
      const progress = (await docker.buildImage(stream as any, {
        t: ref,
        dockerfile,
        rm: true,
        forcerm: true,
        buildargs: { BUILD_FROM: APP_BASE_IMAGE, BUILD_VERSION: app.config.version, BUILD_ARCH: options.arch },
        labels: {
          'io.hass.version': app.config.version,
          'io.hass.arch': options.arch,
          'io.hass.type': 'app',
          'io.hass.name': app.config.name,
          'io.hass.description': app.config.description,
          ...(app.config.url ? { 'io.hass.url': app.config.url } : {}),
        },
      } as any)) as unknown as NodeJS.ReadableStream;
      answer = await streamToText(progress);
      await done;
    } catch (err) {
      logLine(`building ${ref} failed: ${(err as Error).message}`);
      throw keyedError(500, 'app_build_failed_unknown_error', 'An unknown error occurred while trying to build the image for app {app}. Check Supervisor logs for details', { app: app.key });
    }
    const { lines, error } = readProgress(answer);
    for (const line of lines) logLine(line);
    if (error || !(await imageExists(docker, ref))) {
      logLine(`building ${ref} failed: ${error ?? 'the engine kept no image'}`);
      throw keyedError(500, 'app_build_failed_unknown_error', 'An unknown error occurred while trying to build the image for app {app}. Check Supervisor logs for details', { app: app.key });
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

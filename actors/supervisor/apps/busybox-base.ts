import { execFile } from 'node:child_process';
import { access, chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { imageExists } from '../core/image.ts';
import { readProgress, streamToText, tarOf } from '../docker/gnu-tar-stream.ts';

/**
 * The apps' default base, made on this engine since nothing can be pulled: the host's static
 * busybox with every applet linked in /bin. Other bases made here start from it.
 */

const run = promisify(execFile);

/** The base locally built apps start from (`BUILD_FROM`) unless their build.yaml names another. */
export const APP_BASE_IMAGE = 'hearth/busybox:stable';
const BUSYBOX = '/usr/bin/busybox';

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

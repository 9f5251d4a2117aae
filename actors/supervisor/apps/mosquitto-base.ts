import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { imageExists, sourceLabel } from '../core/image.ts';
import { addHostPrograms, type HostProgram } from '../docker/host-files.ts';
import { buildFolder } from '../docker/gnu-tar-stream.ts';
import { APP_BASE_IMAGE, ensureBaseImage } from './busybox-base.ts';

/**
 * The base of the Mosquitto app (`hearth_mqtt`): the apps' busybox base with Debian's Mosquitto
 * broker and its `mosquitto_passwd` copied from this host (the package Debian maintains and
 * patches, where nothing can be pulled), and jq, with which the app's shell script reads its
 * options and writes JSON (a maintained parser rather than sed over JSON holding passwords).
 */

/** The name an app's build.yaml gives this base. */
export const MOSQUITTO_BASE_IMAGE = 'hearth/mosquitto-base:stable';

const PROGRAMS: HostProgram[] = [
  { path: '/usr/sbin/mosquitto', package: 'mosquitto' },
  { path: '/usr/bin/mosquitto_passwd', package: 'mosquitto' },
  { path: '/usr/bin/jq', package: 'jq' },
];

// the broker drops root for its own user, as Debian's package runs it
const DOCKERFILE = [
  `FROM ${APP_BASE_IMAGE}`,
  'COPY rootfs/ /',
  // (Debian's busybox has no adduser)
  "RUN echo 'mosquitto:x:100:101:mosquitto:/var/empty:/bin/false' >>/etc/passwd && echo 'mosquitto:x:101:' >>/etc/group",
  'ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/bin',
].join('\n');

/** What the base is made from: a changed recipe or a changed host program makes it again. */
async function recipeDigest(): Promise<string> {
  const hash = createHash('sha256').update(DOCKERFILE);
  for (const p of PROGRAMS) hash.update(p.path).update(await readFile(p.path).catch(() => Buffer.alloc(0)));
  return hash.digest('hex').slice(0, 16);
}

let pending: Promise<void> | undefined;

/** Makes sure the Mosquitto base is on the engine, made from this host's programs; a missing one names its package. */
export function ensureMosquittoBase(docker: Docker, logLine: (line: string) => void = () => {}): Promise<void> {
  return (pending ??= (async () => {
    const digest = await recipeDigest();
    if ((await sourceLabel(docker, MOSQUITTO_BASE_IMAGE)) === digest) return;
    await ensureBaseImage(docker, logLine);
    const dir = await mkdtemp(join(tmpdir(), 'hearth-mosquitto-base-'));
    try {
      const libraries = await addHostPrograms(join(dir, 'rootfs'), PROGRAMS, `the Mosquitto app's base image ${MOSQUITTO_BASE_IMAGE}`);
      await writeFile(join(dir, 'Dockerfile'), `${DOCKERFILE}\n`);
      const { error } = await buildFolder(docker, dir, { t: MOSQUITTO_BASE_IMAGE, labels: { 'io.hass.type': 'base', 'hearth.base': 'mosquitto', 'hearth.source': digest } });
      if (error || !(await imageExists(docker, MOSQUITTO_BASE_IMAGE))) throw new Error(`the engine could not make the Mosquitto app's base image ${MOSQUITTO_BASE_IMAGE}: ${error ?? 'it kept no image'}`);
      logLine(`made the Mosquitto app's base image ${MOSQUITTO_BASE_IMAGE} from this host's ${PROGRAMS.map((p) => p.path).join(', ')} (${libraries} libraries)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })().finally(() => (pending = undefined)));
}

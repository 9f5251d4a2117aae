/**
 * The core's container on the engine: its spec (data directory at `/config`, the port published
 * on the host, the environment the runtime gives it), the engine's start (a host port in use is
 * the original's port conflict), the wait until the core answers HTTP, and the configuration check
 * in a throwaway container. The lifecycle around
 * them (records, jobs, watchdog) is the CoreRuntime's (runtime.ts).
 */
import type Docker from 'dockerode';
import { SupervisorError, keyedError } from '../errors.ts';
import { CORE_CONTAINER_PORT } from './image.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
/** Text without terminal colours. */
export const stripAnsi = (s: string) => s.replace(ANSI, '');
const PORT_CONFLICT = /0\.0\.0\.0:(\d+).*(?:address already in use|port is already allocated)/;

/** What the core's container is made of. */
export interface CoreContainerInput {
  name: string;
  /** `image:version` */
  image: string;
  env: string[];
  /** the core's data directory on the host, mounted at `/config` */
  dataDir: string;
  /** the host port the core's HTTP port is published on */
  port: number;
}

export function coreContainerSpec({ name, image, env, dataDir, port: hostPort }: CoreContainerInput): Docker.ContainerCreateOptions {
  const port = `${CORE_CONTAINER_PORT}/tcp`;
  return {
    name,
    Hostname: 'hearth-core',
    Image: image,
    Env: env,
    Labels: { supervisor_managed: '' },
    ExposedPorts: { [port]: {} },
    StopTimeout: 20,
    HostConfig: {
      Binds: [`${dataDir}:/config`],
      PortBindings: { [port]: [{ HostIp: '', HostPort: String(hostPort) }] },
      ExtraHosts: ['supervisor:host-gateway', 'host.docker.internal:host-gateway'],
      Tmpfs: { '/tmp': '' },
      Init: false,
      RestartPolicy: { Name: 'no' },
    },
  };
}

/** The engine's start of the container `name`; a host port in use is the original's port conflict. */
export async function startCoreContainer(docker: Docker, name: string): Promise<void> {
  try {
    await docker.getContainer(name).start();
  } catch (err: any) {
    const m = PORT_CONFLICT.exec(String(err?.json?.message ?? err?.message ?? ''));
    if (m) throw keyedError(400, 'docker_container_port_conflict', 'Cannot start container {name} because port {port} is already in use', { name, port: Number(m[1]) });
    throw err;
  }
}

/**
 * Waits until the core answers HTTP at `baseUrl` (its published port); fails when its container
 * `name` ends, with the last lines it wrote. It asks a path that needs no token
 * (`/auth/providers`): a call to `/api/` without one would count as a failed login against the
 * supervisor's address in the core's ban keeper.
 */
export async function waitUntilCoreAnswers(
  docker: Docker,
  name: string,
  baseUrl: string,
  timeoutMs: number,
  inspect: () => Promise<Docker.ContainerInspectInfo | null>,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  const url = `${baseUrl}/auth/providers`;
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {}
    const info = await inspect();
    if (!info?.State?.Running) {
      const logs = info ? stripAnsi((await docker.getContainer(name).logs({ stdout: true, stderr: true, tail: 5 })).toString('utf8')) : '';
      throw new SupervisorError(`The core container ${name} ended while starting (exit code ${info?.State?.ExitCode ?? 'unknown'})${logs ? `: ${logs.replace(/[\x00-\x08]/g, '').trim()}` : ''}`);
    }
    if (Date.now() > until) throw new SupervisorError(`The core did not answer on ${url} in time`);
    await sleep(250);
  }
}

/**
 * Checks the configuration in `dataDir` in a throwaway container of the image `ref`; an invalid
 * one is a 400 whose message is the check's output without colours.
 */
export async function checkCoreConfig(docker: Docker, ref: string, dataDir: string): Promise<void> {
  const container = await docker.createContainer({
    Image: ref,
    Cmd: ['node', 'bin/hearth.js', 'check-config', '--data', '/config'],
    Tty: true,
    Labels: { supervisor_managed: '' },
    HostConfig: { Binds: [`${dataDir}:/config:ro`], Tmpfs: { '/tmp': '' } },
  });
  try {
    await container.start();
    const result = (await container.wait()) as { StatusCode: number };
    const output = stripAnsi((await container.logs({ stdout: true, stderr: true, follow: false })).toString('utf8')).replace(/\r\n/g, '\n');
    if (result.StatusCode !== 0) throw new SupervisorError(output || `the configuration check ended with ${result.StatusCode}`);
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}

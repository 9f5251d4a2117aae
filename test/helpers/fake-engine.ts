// A container engine in memory, for logic tests of the supervisor's areas (jobs, apps, mounts,
// resolution, the container lifecycle) without Docker. It answers the part of dockerode the
// supervisor uses, as the engine does (404 for what is missing, 304 for a start of a running
// container, a `die` event whenever a running container ends), and writes every operation to
// `calls`. The real-engine tests (test/actors/supervisor/apps/lifecycle, core/, plugins/...) stay
// for what only the engine can show.
import { PassThrough, Readable } from 'node:stream';
import type Docker from 'dockerode';
import { Engine } from '../../actors/supervisor/docker/engine.ts';
import { APP_BASE_IMAGE } from '../../actors/supervisor/apps/busybox-base.ts';

/** A container as the fake engine keeps it. */
export interface FakeContainer {
  name: string;
  /** the create request as the supervisor sent it */
  spec: Record<string, any>;
  running: boolean;
  exitCode: number;
  startedAt: string;
  /** the image healthcheck's status while running (none: no healthcheck) */
  health?: 'starting' | 'healthy' | 'unhealthy';
}

/** An engine error as dockerode throws it. */
export function engineError(statusCode: number, message: string): Error & { statusCode: number; json: { message: string } } {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), { statusCode, json: { message } });
}

const noSuchContainer = (name: string) => engineError(404, `No such container: ${name}`);

/**
 * The engine. Controls for a test: `addImage`, `crash` (a running container dies on its own),
 * `failNext` (the next call of that operation fails), `reachable`. Operations are written to
 * `calls` as `<operation> <name>` (`create app_x`, `start app_x`, `stop app_x`, `die app_x 1`...).
 */
export class FakeDocker {
  readonly calls: string[] = [];
  readonly containers = new Map<string, FakeContainer>();
  readonly images = new Map<string, Record<string, string>>([[APP_BASE_IMAGE, { 'io.hass.type': 'base' }]]);
  /** false: every call fails as a socket nobody listens on */
  reachable = true;
  private readonly failures: Array<{ call: string; error: Error }> = [];
  private readonly listeners = new Set<{ filters: Record<string, string[]>; stream: PassThrough }>();
  private nextId = 1;

  constructor(private readonly now: () => number = () => Date.now()) {}

  // ---- controls ----

  /** An image on the engine (an app's image built or loaded before). */
  addImage(ref: string, labels: Record<string, string> = {}): void {
    this.images.set(ref, labels);
  }

  /** The next `operation` (`create`, `start`, `stop`, `restart`, `remove`, `build`...) on `name` fails with `error`. */
  failNext(operation: string, name: string, error: Error = engineError(500, `${operation} failed`)): void {
    this.failures.push({ call: `${operation} ${name}`, error });
  }

  /** A container already on the engine (made before the test): running, or exited with `exitCode`. */
  addContainer(name: string, state: { running: boolean; exitCode?: number; health?: FakeContainer['health']; labels?: Record<string, string>; image?: string }): void {
    this.containers.set(name, {
      name,
      spec: { name, Image: state.image ?? 'busybox:latest', Labels: state.labels ?? {} },
      running: state.running,
      exitCode: state.exitCode ?? 0,
      startedAt: new Date(this.now()).toISOString(),
      health: state.health,
    });
  }

  /** A running container ends on its own with `exitCode` (its process crashed). */
  crash(name: string, exitCode = 1): void {
    const c = this.containers.get(name);
    if (!c?.running) throw new Error(`fake engine: ${name} does not run`);
    this.end(c, exitCode);
  }

  /** The containers there are now, by name, with whether each runs. */
  state(): Record<string, 'running' | 'stopped'> {
    return Object.fromEntries([...this.containers.values()].map((c) => [c.name, c.running ? 'running' : 'stopped']));
  }

  /** The engine as the supervisor holds it. */
  engine(): Engine {
    return new Engine('/fake/docker.sock', this as unknown as Docker);
  }

  // ---- what dockerode answers ----

  readonly modem = {
    followProgress: (stream: NodeJS.ReadableStream, done: (err: Error | null, out: unknown[]) => void) => {
      stream.resume();
      stream.on('end', () => done(null, []));
      stream.on('error', (err: Error) => done(err, []));
    },
    demuxStream: (stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream) => stream.pipe(stdout),
  };

  async ping(): Promise<string> {
    this.check('ping', 'engine');
    return 'OK';
  }

  async version(): Promise<Record<string, string>> {
    this.check('version', 'engine');
    return { Version: '27.5.1', ApiVersion: '1.47' };
  }

  async info(): Promise<Record<string, unknown>> {
    this.check('info', 'engine');
    return { Driver: 'overlay2', LoggingDriver: 'journald', CgroupVersion: '2' };
  }

  async createContainer(spec: Record<string, any>): Promise<{ id: string }> {
    const name = String(spec.name);
    this.op('create', name);
    if (this.containers.has(name)) throw engineError(409, `Conflict. The container name "/${name}" is already in use`);
    if (spec.Image && !this.images.has(spec.Image)) throw engineError(404, `No such image: ${spec.Image}`);
    this.containers.set(name, { name, spec, running: false, exitCode: 0, startedAt: '0001-01-01T00:00:00Z' });
    return { id: name };
  }

  getContainer(name: string) {
    const found = () => {
      const c = this.containers.get(name);
      if (!c) throw noSuchContainer(name);
      return c;
    };
    return {
      id: name,
      inspect: async () => {
        this.check('inspect', name);
        return this.inspectInfo(found());
      },
      start: async () => {
        this.op('start', name);
        const c = found();
        if (c.running) throw engineError(304, 'container already started');
        c.running = true;
        c.startedAt = new Date(this.now()).toISOString();
      },
      stop: async (_options?: { t?: number }) => {
        this.op('stop', name);
        const c = found();
        if (!c.running) throw engineError(304, 'container already stopped');
        this.end(c, 0);
      },
      restart: async (_options?: { t?: number }) => {
        this.op('restart', name);
        const c = found();
        if (c.running) this.end(c, 0);
        c.running = true;
        c.startedAt = new Date(this.now()).toISOString();
      },
      remove: async (options: { force?: boolean } = {}) => {
        this.op('remove', name);
        const c = found();
        if (c.running && !options.force) throw engineError(409, `You cannot remove a running container ${name}`);
        if (c.running) this.end(c, 137);
        this.containers.delete(name);
      },
      stats: async () => {
        this.check('stats', name);
        found();
        return { memory_stats: { usage: 1024, limit: 4096, stats: {} }, cpu_stats: { cpu_usage: { total_usage: 0 } }, precpu_stats: { cpu_usage: { total_usage: 0 } } };
      },
      logs: async () => {
        this.check('logs', name);
        found();
        return Buffer.alloc(0);
      },
    };
  }

  getImage(ref: string) {
    return {
      inspect: async () => {
        this.check('inspect', ref);
        const labels = this.images.get(ref);
        if (!labels) throw engineError(404, `No such image: ${ref}`);
        return { Id: `sha256:${ref}`, RepoTags: [ref], Config: { Labels: labels } };
      },
      remove: async () => {
        this.op('remove-image', ref);
        if (!this.images.delete(ref)) throw engineError(404, `No such image: ${ref}`);
      },
    };
  }

  /** The builder: takes the context, keeps an image tagged `t` with its labels. */
  async buildImage(context: NodeJS.ReadableStream, options: { t: string; labels?: Record<string, string> }): Promise<NodeJS.ReadableStream> {
    this.op('build', options.t);
    context.resume();
    await new Promise((ok) => context.once('end', ok));
    this.images.set(options.t, options.labels ?? {});
    return Readable.from([`${JSON.stringify({ stream: `Successfully tagged ${options.t}\n` })}\n`]);
  }

  async importImage(context: NodeJS.ReadableStream, options: { repo: string; tag: string }): Promise<NodeJS.ReadableStream> {
    this.op('import', `${options.repo}:${options.tag}`);
    context.resume();
    await new Promise((ok) => context.once('end', ok));
    this.images.set(`${options.repo}:${options.tag}`, {});
    return Readable.from([`${JSON.stringify({ status: 'sha256:imported' })}\n`]);
  }

  /** The engine's event stream; only `die` events of containers are ever sent. */
  async getEvents(options: { filters?: Record<string, string[]> } = {}): Promise<NodeJS.ReadableStream> {
    this.check('events', 'engine');
    const stream = new PassThrough();
    const listener = { filters: options.filters ?? {}, stream };
    this.listeners.add(listener);
    stream.on('close', () => this.listeners.delete(listener));
    return stream;
  }

  // ---- inside ----

  private inspectInfo(c: FakeContainer): Docker.ContainerInspectInfo {
    const status = c.running ? 'running' : 'exited';
    return {
      Id: c.name,
      Name: `/${c.name}`,
      Created: new Date(this.now()).toISOString(),
      State: { Status: status, Running: c.running, ExitCode: c.exitCode, StartedAt: c.startedAt, ...(c.running && c.health ? { Health: { Status: c.health } } : {}) },
      Config: { Image: c.spec.Image, Labels: c.spec.Labels ?? {}, Env: c.spec.Env ?? [] },
      HostConfig: c.spec.HostConfig ?? {},
      NetworkSettings: { IPAddress: c.running ? '172.17.0.2' : '', Networks: c.running ? { bridge: { IPAddress: '172.17.0.2' } } : {} },
    } as unknown as Docker.ContainerInspectInfo;
  }

  /** A running container ends: stopped, and a `die` event to whoever follows it. */
  private end(c: FakeContainer, exitCode: number): void {
    c.running = false;
    c.exitCode = exitCode;
    this.calls.push(`die ${c.name} ${exitCode}`);
    const line = `${JSON.stringify({ Type: 'container', Action: 'die', Actor: { ID: c.name, Attributes: { ...(c.spec.Labels ?? {}), name: c.name, exitCode: String(exitCode) } } })}\n`;
    const labels: Record<string, string> = c.spec.Labels ?? {};
    for (const { filters, stream } of this.listeners) {
      if (filters.container && !filters.container.includes(c.name)) continue;
      if (filters.label && !filters.label.every((l) => (l.includes('=') ? labels[l.slice(0, l.indexOf('='))] === l.slice(l.indexOf('=') + 1) : l in labels))) continue;
      // the engine tells of it after the call that caused it has answered
      setImmediate(() => stream.write(line));
    }
  }

  /** An operation that changes something: written down, then failed when a test asked. */
  private op(operation: string, name: string): void {
    this.calls.push(`${operation} ${name}`);
    this.check(operation, name);
  }

  private check(operation: string, name: string): void {
    if (!this.reachable) throw Object.assign(new Error('connect ENOENT /fake/docker.sock'), { syscall: 'connect', code: 'ENOENT', address: '/fake/docker.sock' });
    const i = this.failures.findIndex((f) => f.call === `${operation} ${name}`);
    if (i >= 0) throw this.failures.splice(i, 1)[0].error;
  }
}

import { createActor, fromPromise, waitFor, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { loginFlowMachine, type CredentialCheck, type FlowErrors, type VerifiedCredential } from '../../machines/login-flow.machine.ts';
import type { Clock, Ids } from '../clock.ts';

/** A provider key as clients send it: `[type, id]`. */
export type ProviderKey = [string, string | null];

/** One field of a serialised form schema (the original's voluptuous-serialize shape). */
export interface SchemaField {
  type: string;
  name: string;
  required?: true;
  optional?: true;
  /** `select` fields: [value, label] pairs */
  options?: Array<[string, string]>;
}

/** The steps a login flow shows a form for. */
export type StepId = 'init' | 'select_mfa_module' | 'mfa';

/** The form of the MFA step (the init form is the provider's). */
export const MFA_SCHEMA: SchemaField[] = [{ type: 'string', name: 'code', required: true }];

/** What a login flow needs of the provider it logs in with. */
export interface FlowProvider {
  /** shown as the create_entry title */
  name: string;
  /** the init form for a client at `ip`, fields to submit at once (a bypass), or an abort */
  open(ip: string): { kind: 'abort'; reason: string } | { kind: 'form'; schema: SchemaField[]; bypass?: Record<string, string> };
  /** checks the init form's fields for a client at `ip` */
  check(fields: Record<string, string>, ip: string): Promise<CredentialCheck>;
}

/** Flows nobody finished are dropped after this long. */
export const FLOW_TTL_MS = 10 * 60 * 1000;
/** Open flows kept at most; creating one costs a client nothing, so the oldest make room. */
export const MAX_OPEN_FLOWS = 1000;
// The line about dropped flows is said at most this often, so a flood does not flood the log too.
const DROP_LINE_MS = 60 * 1000;

/** A login flow in progress. */
export interface FlowInfo {
  flowId: string;
  handler: ProviderKey;
  clientId: string;
  redirectUri: string;
  ip: string;
  /** the `type` the client started the flow with (`authorize`, `link_user`) */
  flowType: string;
  /** `link_user` flows yield a credential to attach, not a login */
  credentialOnly: boolean;
  createdAt: number;
}

/** What a submission led to. */
export type StepOutcome =
  | { kind: 'form'; flow: FlowInfo; stepId: StepId; body: Record<string, unknown>; username: string | null }
  | { kind: 'abort'; flow: FlowInfo; reason: string; body: Record<string, unknown> }
  | { kind: 'finished'; flow: FlowInfo; credential: VerifiedCredential; body: Record<string, unknown> }
  | { kind: 'malformed' }
  | { kind: 'unknown_flow' }
  | { kind: 'ip_changed' };

/** The effects a login flow needs, supplied by createAuth. */
export interface LoginFlowDeps {
  clock: Clock;
  ids: Ids;
  /** the name of an MFA module, shown in the MFA steps (default: its id) */
  mfaModuleName?(moduleId: string): string;
  verifyMfaCode(userId: string | null, module: string, code: string): Promise<boolean>;
  /** where dropped flows are reported (default: stdout) */
  log?: (line: string) => void;
  /** open flows kept at most (default MAX_OPEN_FLOWS) */
  maxOpenFlows?: number;
}

type FlowActor = ActorRefFrom<typeof loginFlowMachine>;
type FlowSnapshot = SnapshotFrom<typeof loginFlowMachine>;

interface Flow extends FlowInfo {
  provider: FlowProvider;
  initSchema: SchemaField[];
  actor: FlowActor;
  /** submissions of one flow run one after another */
  queue: Promise<unknown>;
}

/** Login flows in memory: each one an actor of the login-flow machine with its checks supplied. */
export class LoginFlows {
  private readonly flows = new Map<string, Flow>();
  private readonly machine: typeof loginFlowMachine;
  private readonly maxOpen: number;
  private dropped = 0;
  private droppedSaidAt = -Infinity;

  constructor(private readonly deps: LoginFlowDeps) {
    this.maxOpen = Math.max(1, deps.maxOpenFlows ?? MAX_OPEN_FLOWS);
    this.machine = loginFlowMachine.provide({
      actors: {
        verifyCredentials: fromPromise(async ({ input }: { input: { flowId: string; fields: Record<string, string> } }) => {
          const flow = this.flows.get(input.flowId);
          return flow ? flow.provider.check(input.fields, flow.ip) : { abortReason: 'unknown_error' };
        }),
        verifyMfaCode: fromPromise(({ input }: { input: { userId: string | null; module: string; code: string } }) =>
          deps.verifyMfaCode(input.userId, input.module, input.code),
        ),
      },
    });
  }

  /**
   * Starts a flow with `provider` and returns its first step: the `init` form, or, when the
   * provider says so, an abort or the outcome of submitting its bypass fields at once.
   */
  async start(info: Omit<FlowInfo, 'flowId' | 'createdAt'>, provider: FlowProvider): Promise<StepOutcome> {
    const now = this.deps.clock.now();
    this.prune(now);
    const flowId = this.deps.ids.uuidHex();
    const opening = provider.open(info.ip);
    if (opening.kind === 'abort') {
      const flow = { ...info, flowId, createdAt: now };
      const body = { type: 'abort', flow_id: flowId, handler: info.handler, reason: opening.reason, description_placeholders: null };
      return { kind: 'abort', flow, reason: opening.reason, body };
    }
    if (this.flows.size >= this.maxOpen) this.dropOldest(now);
    const actor = createActor(this.machine, { input: { flowId, startedAt: now, credentialOnly: info.credentialOnly } });
    const flow: Flow = { ...info, flowId, createdAt: now, provider, initSchema: opening.schema, actor, queue: Promise.resolve() };
    this.flows.set(flowId, flow);
    actor.start();
    if (opening.bypass) return this.step(flowId, opening.bypass, info.ip);
    return this.outcome(flow, actor.getSnapshot());
  }

  get(flowId: string): FlowInfo | undefined {
    const flow = this.live(flowId);
    return flow && publicInfo(flow);
  }

  /** How many flows are open. */
  get size(): number {
    return this.flows.size;
  }

  /** Feeds one submission to the flow's current step. */
  step(flowId: string, input: unknown, ip: string): Promise<StepOutcome> {
    const flow = this.live(flowId);
    if (!flow) return Promise.resolve({ kind: 'unknown_flow' });
    if (flow.ip !== ip) return Promise.resolve({ kind: 'ip_changed' });
    const run = () => this.submit(flow, input);
    const result = flow.queue.then(run, run);
    flow.queue = result;
    return result;
  }

  /** Drops a flow; false when there was none. */
  abort(flowId: string): boolean {
    if (!this.live(flowId)) return false;
    this.drop(flowId);
    return true;
  }

  private async submit(flow: Flow, input: unknown): Promise<StepOutcome> {
    if (!this.flows.has(flow.flowId)) return { kind: 'unknown_flow' };
    const stepId = stepIdOf(flow.actor.getSnapshot());
    if (!stepId) return { kind: 'unknown_flow' };
    const fields = checkInput(this.schemaOf(flow, stepId, flow.actor.getSnapshot()), input);
    if (!fields) return { kind: 'malformed' };
    flow.actor.send({ type: 'submit', input: fields, at: this.deps.clock.now() });
    const settled = await waitFor(flow.actor, (s) => s.status !== 'active' || s.hasTag('form'));
    // dropped (expired, or pushed out by newer flows) while its check ran
    if (settled.status === 'stopped' || !this.flows.has(flow.flowId)) return { kind: 'unknown_flow' };
    const outcome = this.outcome(flow, settled);
    if (outcome.kind !== 'form') this.drop(flow.flowId);
    return outcome;
  }

  private outcome(flow: Flow, snapshot: FlowSnapshot): StepOutcome {
    const head = { flow_id: flow.flowId, handler: flow.handler };
    if (snapshot.status === 'done') {
      const output = snapshot.output!;
      if ('credential' in output) {
        const body = {
          version: 1,
          minor_version: 1,
          type: 'create_entry',
          ...head,
          title: flow.provider.name,
          description: null,
          description_placeholders: null,
        };
        return { kind: 'finished', flow: publicInfo(flow), credential: output.credential, body };
      }
      return { kind: 'abort', flow: publicInfo(flow), reason: output.abortReason, body: { type: 'abort', ...head, reason: output.abortReason, description_placeholders: null } };
    }
    const stepId = stepIdOf(snapshot) ?? 'init';
    const ctx = snapshot.context;
    const placeholders =
      stepId === 'mfa' && ctx.mfaModule !== null ? { mfa_module_name: this.moduleName(ctx.mfaModule), mfa_module_id: ctx.mfaModule } : null;
    const body = {
      type: 'form',
      ...head,
      step_id: stepId,
      data_schema: this.schemaOf(flow, stepId, snapshot),
      errors: { ...ctx.errors } as FlowErrors,
      description_placeholders: placeholders,
      last_step: null,
      preview: null,
    };
    return { kind: 'form', flow: publicInfo(flow), stepId, body, username: ctx.username };
  }

  private moduleName(id: string): string {
    return this.deps.mfaModuleName?.(id) ?? id;
  }

  private schemaOf(flow: Flow, stepId: StepId, snapshot: FlowSnapshot): SchemaField[] {
    if (stepId === 'init') return flow.initSchema;
    if (stepId === 'mfa') return MFA_SCHEMA;
    const modules = snapshot.context.credential?.mfaModules ?? [];
    // the original's vol.In({id: name}) under a plain key: neither required nor optional
    return [{ type: 'select', options: modules.map((id) => [id, this.moduleName(id)]), name: 'multi_factor_auth_module' }];
  }

  /** The flow, unless it is missing or expired (an expired one is dropped here). */
  private live(flowId: string): Flow | undefined {
    const flow = this.flows.get(flowId);
    if (flow && this.deps.clock.now() - flow.createdAt >= FLOW_TTL_MS) {
      this.drop(flowId);
      return undefined;
    }
    return flow;
  }

  private prune(now: number): void {
    for (const [id, flow] of this.flows) {
      if (now - flow.createdAt < FLOW_TTL_MS) break; // insertion order is creation order
      this.drop(id);
    }
  }

  private drop(flowId: string): void {
    this.flows.get(flowId)?.actor.stop();
    this.flows.delete(flowId);
  }

  private dropOldest(now: number): void {
    for (const id of this.flows.keys()) {
      if (this.flows.size < this.maxOpen) break;
      this.drop(id);
      this.dropped++;
    }
    if (now - this.droppedSaidAt < DROP_LINE_MS) return;
    const logLine = this.deps.log ?? ((line: string) => console.log(line));
    logLine(`Login flows: more than ${this.maxOpen} open; dropped ${this.dropped} unfinished, oldest first`);
    this.dropped = 0;
    this.droppedSaidAt = now;
  }
}

function stepIdOf(snapshot: FlowSnapshot): StepId | undefined {
  if (snapshot.matches('init')) return 'init';
  if (snapshot.matches('selectMfaModule')) return 'select_mfa_module';
  if (snapshot.matches('mfa')) return 'mfa';
  return undefined;
}

function publicInfo(flow: Flow): FlowInfo {
  const { actor: _actor, queue: _queue, provider: _provider, initSchema: _schema, ...info } = flow;
  return info;
}

/**
 * The submitted fields when they fit the step's form exactly (strings, required ones present,
 * nothing else, a required choice one of its options: the original's vol.In).
 */
function checkInput(schema: SchemaField[], input: unknown): Record<string, string> | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const known = new Map(schema.map((f) => [f.name, f]));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    const field = known.get(key);
    if (!field || typeof value !== 'string') return undefined;
    if (field.required && field.options && !field.options.some(([option]) => option === value)) return undefined;
    out[key] = value;
  }
  for (const field of schema) if (field.required && !(field.name in out)) return undefined;
  return out;
}

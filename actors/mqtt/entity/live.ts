import { createActor, transition, type AnyActor, type EventObject } from 'xstate';
import type { Context } from '../../../store/types.ts';
import { jsonEqual } from '../../entities/state.ts';
import type { EntityState } from '../../entities/types.ts';
import { ServiceError } from '../../services/types.ts';
import type { MqttPublishRequest } from '../../../machines/mqtt/switch.machine.ts';
import { PyFloat } from '../../../machines/mqtt/py-float.ts';
import { Float } from '../../templates/values.ts';
import type { MqttEntityConfig, MqttPlatform, PlatformSubscription } from '../platforms/types.ts';
import type { RawMessage } from '../subscriptions.ts';
import { Availability } from './availability.ts';
import { platformFor } from './config.ts';
import type { MqttEntityHost } from './host.ts';
import { friendlyName } from './naming.ts';
import { floatRepr } from '../../../machines/python/float.ts';
import { pyStr } from '../../../machines/python/repr.ts';

/** Keys JSON attributes may never set (the original's MQTT_ATTRIBUTES_BLOCKED). */
const BLOCKED_ATTRIBUTES = new Set([
  'assumed_state', 'available', 'device_class', 'device_info', 'entity_category', 'entity_picture', 'entity_registry_enabled_default',
  'extra_state_attributes', 'force_update', 'icon', 'friendly_name', 'should_poll', 'state', 'supported_features', 'unique_id', 'unit_of_measurement',
]);

/** A strict decoder per encoding (made once: every message of every entity decodes). */
const decoders = new Map<string, TextDecoder | null>();

/** A payload as text in the entity's encoding; undefined when it is not valid in it. */
function decode(payload: Buffer, encoding: string): string | undefined {
  if (encoding === '') return payload.toString('latin1');
  let decoder = decoders.get(encoding);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(encoding, { fatal: true });
    } catch {
      decoder = null;
    }
    decoders.set(encoding, decoder);
  }
  if (decoder === null) return undefined;
  try {
    return decoder.decode(payload);
  } catch {
    return undefined;
  }
}

/**
 * One MQTT entity while it runs: its platform's machine, its subscriptions (the platform's
 * topics, availability, JSON attributes), and its state written after each message that
 * changed what it shows (every message with force_update), with a context naming the topic.
 */
export class LiveEntity {
  readonly availability: Availability;
  private actor: AnyActor | undefined;
  private unsubscribe: Array<() => void> = [];
  private jsonAttributes: Record<string, unknown> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private quiet = false;
  private stopped = true;
  /** per subscription: the last payload taken and the machine's snapshot it left (the same payload again changes nothing) */
  private readonly lastTaken = new Map<PlatformSubscription<MqttEntityConfig>, { topic: string; text: string; snapshot: unknown }>();
  /** whether a repeated state message may be skipped (the platform says so, and the templates read only the payload) */
  private readonly repeatIsNoop: boolean;

  /** the platform that runs the config (the domain's, or the variant its options name) */
  readonly platform: MqttPlatform;

  constructor(
    private readonly host: MqttEntityHost,
    domainPlatform: MqttPlatform,
    readonly config: MqttEntityConfig,
    public entityId: string,
    readonly name: string | null,
    readonly deviceId: string | undefined,
  ) {
    this.platform = platformFor(domainPlatform, config);
    this.availability = new Availability(config);
    this.repeatIsNoop =
      this.platform.repeatIsNoop?.(config) === true && Object.keys(config).every((key) => !key.endsWith('_template') || host.templates.readsOnlyPayload(config[key]));
  }

  /** Starts the machine (from `carried`, a previous machine's context, or the recorded state) and subscribes. */
  start(carried?: Record<string, unknown>): void {
    const { host, platform, config } = this;
    const restored = host.entities.get(this.entityId);
    let input = platform.input(config, restored, host.clock.now(), this.entityId) as Record<string, unknown>;
    if (carried) for (const key of platform.keptOnUpdate ?? []) if (key in carried) input = { ...input, [key]: carried[key] };
    const actor = createActor(platform.machine, { input });
    actor.subscribe(() => {
      // the machine moved by itself (expire_after, off_delay): written with a context of its own
      if (!this.quiet && !this.stopped) this.schedule(host.newContext(), false);
    });
    this.stopped = false;
    this.quiet = true;
    actor.start();
    this.quiet = false;
    this.actor = actor;
    for (const sub of platform.subscriptions(config)) this.listen(config[sub.topicKey], (m, text) => this.stateMessage(sub, m, text));
    for (const a of this.availability.topics) this.listen(a.topic, (m, text) => this.availabilityMessage(a.topic, a.template, m, text));
    this.listen(config.json_attributes_topic, (m, text) => this.attributesMessage(m, text));
  }

  /** The machine's context (what a config update carries over to the next machine). */
  context(): Record<string, unknown> | undefined {
    return this.actor?.getSnapshot().context;
  }

  /** Unsubscribes and stops the machine once its writes are done; nothing is written after. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unsubscribe.splice(0)) u();
    this.actor?.stop();
    await this.chain;
  }

  private listen(topic: unknown, handle: (m: RawMessage, text: string) => void): void {
    if (typeof topic !== 'string') return;
    const { host, config } = this;
    host.debug.subscribed(this.entityId, topic);
    this.unsubscribe.push(
      host.broker.subscribe(topic, config.qos, (m) => {
        if (this.stopped) return;
        const text = decode(m.payload, config.encoding);
        if (text === undefined) {
          host.log.warning(`Can't decode payload ${JSON.stringify(m.payload.toString('latin1'))} on ${m.topic} with encoding ${config.encoding} (for ${this.entityId})`);
          return;
        }
        host.debug.received(this.entityId, topic, m, text, host.clock.now());
        handle(m, text);
      }),
    );
  }

  private readonly env = { states: () => this.host.entities.states() };

  private templateEntity() {
    return { entityId: this.entityId, name: this.name, state: this.host.entities.get(this.entityId) };
  }

  /** A payload through one of the entity's templates; undefined without it, null when it failed (logged). */
  private render(templateKey: string | undefined, payload: string): string | null | undefined {
    const template = templateKey === undefined ? undefined : this.config[templateKey];
    if (typeof template !== 'string') return undefined;
    const out = this.host.templates.value(template, payload, this.templateEntity());
    if (out.ok) return out.text;
    this.host.log.warning(out.warning);
    return null;
  }

  private stateMessage(sub: PlatformSubscription<MqttEntityConfig>, m: RawMessage, text: string): void {
    // the payload it took last, the machine untouched since: taking it again changes nothing
    const last = this.lastTaken.get(sub);
    if (last && last.text === text && last.topic === m.topic && last.snapshot === this.actor?.getSnapshot()) return;
    let warned = false;
    const rendered = this.render(sub.templateKey, text);
    const event = sub.read({
      payload: rendered === undefined ? text : rendered,
      raw: text,
      topic: m.topic,
      retain: m.retain,
      now: this.host.clock.now(),
      config: this.config,
      entityId: this.entityId,
      warn: (line) => {
        warned = true;
        this.host.log.warning(line);
      },
      render: (key) => this.render(key, text),
    });
    if (!event) return void this.lastTaken.delete(sub);
    this.send(event);
    this.host.batch.mark(this, this.host.newContext({ via: 'mqtt', topic: m.topic }), this.forced());
    // a refused payload is refused (and logged) again each time it comes
    if (this.repeatIsNoop && !warned && rendered !== null && this.actor) this.lastTaken.set(sub, { topic: m.topic, text, snapshot: this.actor.getSnapshot() });
    else this.lastTaken.delete(sub);
  }

  private availabilityMessage(topic: string, template: string | undefined, m: RawMessage, text: string): void {
    let payload = text;
    if (template !== undefined) {
      const out = this.host.templates.value(template, text, this.templateEntity());
      if (!out.ok) return this.host.log.warning(out.warning);
      payload = out.text;
    }
    this.availability.heard(topic, payload);
    this.host.batch.mark(this, this.host.newContext({ via: 'mqtt', topic: m.topic }), false);
  }

  private attributesMessage(m: RawMessage, text: string): void {
    const payload = this.render('json_attributes_template', text);
    if (payload === null) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload ?? text);
    } catch {
      return this.host.log.warning(`Erroneous JSON: ${payload ?? text}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return this.host.log.warning('JSON result was not a dictionary');
    const blocked = new Set(this.platform.blockedAttributes ?? []);
    let attributes = Object.fromEntries(Object.entries(parsed).filter(([k]) => !BLOCKED_ATTRIBUTES.has(k) && !blocked.has(k)));
    if (this.platform.readAttributes) {
      const read = this.platform.readAttributes(attributes, this.config, (line) => this.host.log.warning(line));
      if (read.event) this.send(read.event);
      attributes = read.attributes;
    }
    this.jsonAttributes = attributes;
    this.host.batch.mark(this, this.host.newContext({ via: 'mqtt', topic: m.topic }), false);
  }

  private send(event: EventObject): void {
    this.quiet = true;
    try {
      this.actor?.send(event);
    } finally {
      this.quiet = false;
    }
  }

  /**
   * Whether the entity supports every feature of at least one of the masks (a service's
   * required_features). A platform whose view names no supported_features is not checked.
   */
  supports(masks: number[]): boolean {
    if (!this.actor) return true;
    const features = this.platform.render(this.actor.getSnapshot(), this.config, this.env).supported_features;
    return features === undefined || masks.some((mask) => (features & mask) === mask);
  }

  /** Whether the entity is available: connected, its availability topics agreeing, its value not expired. */
  available(): boolean {
    if (!this.host.broker.connected || !this.availability.available()) return false;
    return this.actor ? this.platform.render(this.actor.getSnapshot(), this.config, this.env).available !== false : false;
  }

  /** Whether the entity writes even an unchanged state now (force_update). */
  private forced(): boolean {
    return this.actor ? this.platform.render(this.actor.getSnapshot(), this.config, this.env).force_update === true : false;
  }

  /** What the entity shows now, in the original's attribute order, with its registry entry's overrides. */
  show(): { state: string; attributes: Record<string, unknown>; force: boolean } {
    const { host, config } = this;
    const view = this.platform.render(this.actor!.getSnapshot(), config, this.env);
    const o = host.registries.entityOverrides(this.entityId);
    const available = this.available();
    const attributes: Record<string, unknown> = { ...view.capabilities };
    if (available) Object.assign(attributes, view.attributes, this.jsonAttributes);
    if (view.unit_of_measurement !== undefined && view.unit_of_measurement !== null) attributes.unit_of_measurement = view.unit_of_measurement;
    if (view.assumed_state) attributes.assumed_state = true;
    const deviceClass = o?.device_class ?? config.device_class;
    if (deviceClass) attributes.device_class = deviceClass;
    if (view.supported_features !== undefined) attributes.supported_features = view.supported_features;
    const picture = view.entity_picture !== undefined ? view.entity_picture : config.entity_picture;
    if (picture !== undefined && picture !== null) attributes.entity_picture = picture;
    const icon = o?.icon ?? config.icon;
    if (icon) attributes.icon = icon;
    const device = this.deviceId === undefined ? undefined : host.registries.getDevice(this.deviceId);
    const friendly = o?.name ?? friendlyName(this.name, device ? (device.name_by_user ?? device.name) : undefined);
    if (friendly !== undefined) attributes.friendly_name = friendly;
    if (view.supported_features !== undefined) attributes.supported_features = view.supported_features;
    return { state: available ? (view.state ?? 'unknown') : 'unavailable', attributes, force: view.force_update === true };
  }

  /**
   * Writes what the entity shows now, after its earlier writes, when it changed (or `force`). The
   * view is taken at once: each message writes the state it made, even when the next message
   * reaches the machine before this write has run.
   */
  schedule(context: Context, force: boolean): Promise<void> {
    const shown = this.stopped || !this.actor ? undefined : this.show();
    const run = this.chain.then(async () => {
      if (this.stopped || !shown) return;
      const current: EntityState | undefined = this.host.entities.get(this.entityId);
      if (!force && current && current.state === shown.state && jsonEqual(current.attributes, shown.attributes)) return;
      await this.host.entities.write(this.entityId, { state: shown.state, attributes: shown.attributes, force_update: force }, context);
    });
    this.chain = run.catch((err) => this.host.log.warning(`${this.entityId}: state not written: ${(err as Error).message}`));
    return this.chain;
  }

  /**
   * A service call: the machine is asked first (a pure transition), what it asks to publish is
   * published, and only then does the machine move and its new state get written, so a publish
   * that fails changes nothing. An unavailable entity is left alone, as the original skips it.
   */
  async command(event: EventObject, context: Context): Promise<void> {
    if (!this.actor || this.stopped || !this.available()) return;
    const [, actions] = transition(this.platform.machine, this.actor.getSnapshot(), event);
    // the machine refuses the command (a value out of range): nothing is published
    const refusal = actions.find((a: any) => a.type === 'xstate.emit' && a.params?.event?.type === 'rejected') as any;
    if (refusal) {
      const { message, code, translation } = refusal.params.event;
      throw new ServiceError(code ?? 'service_validation_error', String(message), translation);
    }
    const publishes = actions.filter((a: any) => a.type === 'xstate.emit' && a.params?.event?.type === 'publish').map((a: any) => a.params.event as MqttPublishRequest);
    for (const p of publishes) await this.publish(p);
    this.send(event);
    await this.schedule(context, false);
  }

  private async publish(p: MqttPublishRequest): Promise<void> {
    const { host, config } = this;
    const topic = config[p.topic] as string;
    const raw = 'value' in p ? p.value : config[p.payload!];
    // a Python float: `22.0` as text, a float to the template
    const value = raw instanceof PyFloat ? new Float(raw.n) : raw;
    let payload = p.json ? JSON.stringify(p.variables ?? {}) : raw === null || raw === undefined ? '' : raw instanceof PyFloat ? floatRepr(raw.n) : pyStr(raw);
    const template = p.template === undefined ? undefined : config[p.template];
    if (typeof template === 'string') {
      const variables = p.variables && Object.fromEntries(Object.entries(p.variables).map(([k, v]) => [k, v instanceof PyFloat ? new Float(v.n) : v]));
      const out = host.templates.command(template, value ?? null, this.templateEntity(), variables);
      if (!out.ok) throw new ServiceError('service_validation_error', out.warning);
      payload = out.text;
    }
    // a siren's command that renders to nothing is not sent
    if (p.skipEmpty && (payload === '' || payload === 'None')) return;
    const retain = config.retain === true;
    try {
      await host.broker.publish(topic, Buffer.from(payload, config.encoding === 'latin1' ? 'latin1' : 'utf8'), { qos: config.qos, retain });
    } catch (err) {
      throw new ServiceError('home_assistant_error', (err as Error).message);
    }
    host.debug.transmitted(this.entityId, topic, payload, config.qos, retain, host.clock.now());
  }
}

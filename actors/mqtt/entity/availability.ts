import type { MqttEntityConfig } from '../platforms/types.ts';

/** One availability topic: its payloads and template. */
export interface AvailabilityTopic {
  topic: string;
  payloadAvailable: string;
  payloadNotAvailable: string;
  template?: string;
}

/**
 * An entity's availability as its availability topics say (the original's availability mixin):
 * each topic starts unavailable; `all` needs every topic available, `any` one of them, `latest`
 * (the default) follows the last payload heard on any of them. An entity without availability
 * topics is available (the connection to the broker aside, which the framework adds).
 */
export class Availability {
  readonly topics: AvailabilityTopic[];
  private readonly byTopic = new Map<string, boolean>();
  private latest = false;

  constructor(private readonly config: MqttEntityConfig) {
    const topics: AvailabilityTopic[] = [];
    if (config.availability_topic !== undefined) {
      topics.push({ topic: config.availability_topic, payloadAvailable: config.payload_available, payloadNotAvailable: config.payload_not_available, template: config.availability_template });
    }
    for (const a of config.availability ?? []) {
      topics.push({ topic: a.topic, payloadAvailable: a.payload_available, payloadNotAvailable: a.payload_not_available, template: a.value_template });
    }
    this.topics = topics;
    for (const t of topics) this.byTopic.set(t.topic, false);
  }

  /** Takes a payload (after the topic's template) heard on one of the topics. */
  heard(topic: string, payload: string): void {
    const t = this.topics.find((x) => x.topic === topic);
    if (!t) return;
    if (payload === t.payloadAvailable) {
      this.byTopic.set(topic, true);
      this.latest = true;
    } else if (payload === t.payloadNotAvailable) {
      this.byTopic.set(topic, false);
      this.latest = false;
    }
  }

  /** Whether the entity is available as far as its topics say. */
  available(): boolean {
    if (this.topics.length === 0) return true;
    const values = [...this.byTopic.values()];
    if (this.config.availability_mode === 'all') return values.every(Boolean);
    if (this.config.availability_mode === 'any') return values.some(Boolean);
    return this.latest;
  }
}

import type { Context } from '../../../store/types.ts';

/** What a batch writes: an entity that shows itself anew. */
export interface Writable {
  schedule(context: Context, force: boolean): Promise<void>;
}

/**
 * The writes one MQTT message causes, made once the message has reached every listener: an
 * entity whose state topic and JSON attributes topic are the same topic writes one state holding
 * both, as the original writes each entity once per message.
 */
export class MessageBatch {
  private readonly marked = new Map<Writable, { context: Context; force: boolean }>();

  /** The entity writes after this message (forced when any of its listeners asks). */
  mark(entity: Writable, context: Context, force: boolean): void {
    const already = this.marked.get(entity);
    this.marked.set(entity, { context: already?.context ?? context, force: force || (already?.force ?? false) });
  }

  /** The message reached every listener: each marked entity writes once. */
  flush(): void {
    const marked = [...this.marked];
    this.marked.clear();
    for (const [entity, { context, force }] of marked) void entity.schedule(context, force);
  }
}

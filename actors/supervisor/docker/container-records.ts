import type { Context, NewEvent } from '../../../store/types.ts';

/** One kind of record a container's owner (an app, a plugin, the core) writes, less the container's name. */
export interface ContainerRecordKind {
  type: string;
  data: object;
}

/** As the log holds the kinds of `K`: each one's data starts with `container`, the container's name. */
export type ContainerRecord<K extends ContainerRecordKind> = K extends ContainerRecordKind ? { type: K['type']; data: { container: string } & K['data'] } : never;

/** The record of `kind` on `stream`, its data led by the container's name. */
export function containerRecord<K extends ContainerRecordKind>(stream: string, container: string, kind: K, context: Context, time: number): NewEvent {
  return { time, stream, type: kind.type, data: { container, ...kind.data }, context };
}

// One WebSocket command: its TypeBox schema (with `id` and `type`) beside its handler, the table
// a server looks commands up in, and the check of a message against its command's schema.
import { Type, type TSchema } from '@sinclair/typebox';
import type { CoreDeps } from '../core.ts';
import type { Connection } from './connection.ts';
import { validate } from '../../actors/services/validate.ts';

/** One command: its schema (with id and type) and its handler. */
export interface Command<D = CoreDeps> {
  schema: TSchema;
  admin?: boolean;
  handle(conn: Connection, msg: any, deps: D): void | Promise<void>;
}

/** The commands a WebSocket server answers: each found by its type, and all of them listed. */
export interface CommandTable<D = CoreDeps> {
  get(type: string): Command<D> | undefined;
  types(): Iterable<string>;
}

/** A command's schema: `id` and `type`, then `props`, and nothing else. */
export const commandSchema = (props: Record<string, TSchema> = {}) =>
  Type.Object({ id: Type.Integer({ minimum: 1 }), type: Type.String(), ...props }, { additionalProperties: false });

/**
 * Validates a command message against its schema as it is, without converting anything, so the
 * handler runs on exactly what was checked; the message of the original's format error otherwise.
 */
export function checkCommand(command: Pick<Command, 'schema'>, msg: unknown): string | undefined {
  const result = validate(command.schema, msg, { convert: false });
  return result.ok ? undefined : result.message;
}

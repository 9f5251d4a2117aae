import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import { CommandError } from './connection.ts';
import { newContext, type CoreDeps } from '../core.ts';
import type { MobilePush } from '../../actors/mobile/push.ts';


function push(deps: CoreDeps): MobilePush {
  if (!deps.mobilePush) throw new CommandError('not_found', 'Webhook ID not found');
  return deps.mobilePush;
}

/**
 * The companion apps' local push channel (core-wire §6.9): a subscription whose events are the
 * notifications, and the confirmation of each one.
 */
export const mobileCommands: Record<string, Command> = {
  'mobile_app/push_notification_channel': {
    schema: commandSchema({ webhook_id: Type.String(), support_confirm: Type.Optional(Type.Boolean()) }),
    handle(conn, msg, deps) {
      const opened = push(deps).openChannel(
        msg.webhook_id,
        conn.principal!.userId,
        msg.support_confirm ?? false,
        (event) => conn.event(msg.id, JSON.stringify(event)),
        () => conn.subscriptions.delete(msg.id),
      );
      if (Array.isArray(opened)) throw new CommandError(opened[0], opened[1]);
      const handle = opened as { close(): void };
      conn.subscribe(msg.id, () => handle.close());
      conn.result(msg.id, 'null');
    },
  },

  'mobile_app/push_notification_confirm': {
    schema: commandSchema({ webhook_id: Type.String(), confirm_id: Type.String() }),
    async handle(conn, msg, deps) {
      const refused = await push(deps).confirm(msg.webhook_id, conn.principal!.userId, msg.confirm_id, newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId));
      if (refused) throw new CommandError(refused[0], refused[1]);
      conn.result(msg.id, 'null');
    },
  },
};

import { Type } from '@sinclair/typebox';
import type { Command } from './command.ts';
import { CommandError } from './connection.ts';
import { RenderLimitError, TemplateError } from '../../actors/templates/index.ts';
import { floatRepr } from '../../actors/templates/values.ts';

const base = { id: Type.Integer({ minimum: 1 }), type: Type.String() };

/**
 * render_template (core-wire §4.7): result null, then an event per new result
 * `{result, listeners}`; with report_errors, render warnings and errors as events
 * `{error, level}`. Open to every user, as in the original (dashboards' Markdown cards use it),
 * but a user who may not read every entity sees only those they may read.
 */
export const templateCommands: Record<string, Command> = {
  render_template: {
    schema: Type.Object(
      {
        ...base,
        template: Type.String(),
        entity_ids: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
        variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        timeout: Type.Optional(Type.Number()),
        strict: Type.Optional(Type.Boolean()),
        report_errors: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    handle(conn, msg, deps) {
      const id: number = msg.id;
      const permissions = conn.principal!.permissions;
      const canRead = permissions.readAll ? undefined : (entityId: string) => permissions.canRead(entityId);
      const strict = msg.strict === true;
      const reportErrors = msg.report_errors === true;
      const onError = (message: string, level: 'WARNING' | 'ERROR') => conn.event(id, JSON.stringify({ error: message, level }));
      const timeout: number | undefined = msg.timeout;
      let trial: ReturnType<typeof deps.templates.render> | undefined;
      if (timeout) {
        // the original's async_render_will_timeout: a render bounded by the caller's timeout first
        // (or by Hearth's render limit when that is shorter: the time it was cut at is named)
        let exceeded: TemplateError | undefined;
        const exceed = (boundMs: number) => (exceeded ??= new RenderLimitError('', `Exceeded maximum execution time of ${floatRepr(boundMs / 1000)}s`));
        trial = deps.templates.render(msg.template, msg.variables, {
          strict,
          canRead,
          timeout: { ms: Math.max(0, timeout * 1000), error: exceed },
          log: reportErrors ? (level, message) => onError(message, level) : undefined,
        });
        if (!trial.ok && exceeded && trial.error === exceeded) throw new CommandError('template_error', exceeded.message);
      }
      const tracked = deps.templates.track(msg.template, msg.variables, {
        strict,
        canRead,
        reportErrors,
        onResult: (result, listeners) => conn.event(id, `{"result":${result},"listeners":${JSON.stringify(listeners)}}`),
        onError,
        log: (line) => deps.log(`render_template of ${conn.ip}: ${line}`),
      }, trial);
      conn.subscribe(id, () => tracked.stop());
      conn.result(id, 'null');
      tracked.refresh();
    },
  },
};

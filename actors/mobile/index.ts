import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog } from '../../store/types.ts';
import type { Registries } from '../registries/index.ts';
import { Registrations } from './registrations.ts';
import { Webhook, type WebhookDeps } from './webhook.ts';
import { registerCoreActions, type CoreActionDeps } from './actions.ts';
import type { Registration } from './types.ts';

export { Registrations, registrationInputOf, type RegistrationEntry, type RegistrationInput, REGISTRATION_PREFIX } from './registrations.ts';
export { Webhook, type WebhookAnswer } from './webhook.ts';

/**
 * The companion apps (the original's mobile_app): registrations (an area restored at start) and
 * the webhook channel with its action table. Other parts plug in: `actions.register(type, fn)`
 * for their webhook types, `entitiesOf` for get_config's `entities`.
 */
export class Mobile {
  readonly registrations: Registrations;
  readonly actions: Webhook;
  /** get_config's `entities` of a registration (the sensors part replaces it); `{}` by default */
  entitiesOf: (registration: Registration) => Record<string, { disabled: boolean }> = () => ({});

  constructor(deps: { log: EventLog; clock: Clock; ids: Ids; registries: Registries } & Pick<WebhookDeps, 'readJson' | 'warn' | 'newContext'>) {
    this.registrations = new Registrations(deps);
    this.actions = new Webhook({ registrations: this.registrations, newContext: deps.newContext, readJson: deps.readJson, warn: deps.warn });
  }

  /** After the restore: config entries made known, the core actions in the table. */
  start(deps: Omit<CoreActionDeps, 'registrations' | 'entitiesOf'>): void {
    this.registrations.start();
    registerCoreActions(this.actions, { ...deps, registrations: this.registrations, entitiesOf: (r) => this.entitiesOf(r) });
  }

  /** Deletes a registration as removing its config entry does; false when unknown. */
  delete(webhookId: string, context: Context): Promise<boolean> {
    return this.registrations.delete(webhookId, context);
  }
}

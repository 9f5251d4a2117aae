// frontend/get_translations over a real WebSocket: the original's answer shape, its choice of
// domains (named, config-flow, loaded), English for every language, services made from the
// services' descriptions, and exception texts that are the messages Hearth's refusals carry.
import t from 'tap';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';

const CONFIG = `input_boolean:
  porch:
    name: Porch
light:
  - platform: virtual
    name: Desk
fan:
  - platform: virtual
    name: Ceiling
    preset_modes: [auto, sleep]
    supported_features: [preset_mode, turn_on, turn_off]
climate:
  - platform: virtual
    name: Hall
    hvac_modes: ['off', heat]
`;

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>) {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id);
}

t.test('frontend/get_translations', async (t) => {
  const { base } = await startTestHearth(t, { config: CONFIG });
  const { access_token } = await onboard(base);
  const c = await authedClient(base, access_token);
  t.teardown(() => c.ws.close());
  const resources = async (msg: Record<string, unknown>) => {
    const answer = await ask(c, { type: 'frontend/get_translations', ...msg });
    t.equal(answer.success, true, JSON.stringify(answer.error));
    return answer.result.resources as Record<string, string>;
  };

  const automation = await resources({ language: 'en', category: 'device_automation' });
  t.equal(automation['component.light.device_automation.action_type.flash'], 'Flash {entity_name}');
  t.equal(automation['component.fan.device_automation.condition_type.is_on'], '{entity_name} is on');
  t.notOk(Object.keys(automation).some((k) => k.startsWith('component.lock.')), 'a domain not loaded is left out');
  t.ok(Object.keys(automation).every((k) => k.startsWith('component.') && k.includes('.device_automation.')), 'only the category asked');

  t.same(await resources({ language: 'en', category: 'title', integration: 'light' }), { 'component.light.title': 'Light' }, 'one integration named');
  const lock = await resources({ language: 'en', category: 'device_automation', integration: ['lock', 'nothing_here'] });
  t.equal(lock['component.lock.device_automation.trigger_type.jammed'], '{entity_name} jammed', 'a list of integrations, loaded or not');
  t.same(await resources({ language: 'en', category: 'config', config_flow: true }), {}, 'no integration here has a config flow');

  const german = await resources({ language: 'de', category: 'entity_component', integration: 'input_boolean' });
  t.same(german, {
    'component.input_boolean.entity_component._.name': 'Input boolean',
    'component.input_boolean.entity_component._.state.off': 'Off',
    'component.input_boolean.entity_component._.state.on': 'On',
    'component.input_boolean.entity_component._.state_attributes.editable.name': 'Managed via UI',
    'component.input_boolean.entity_component._.state_attributes.editable.state.false': 'No',
    'component.input_boolean.entity_component._.state_attributes.editable.state.true': 'Yes',
  }, 'a language Hearth does not have falls back to English');

  const services = await resources({ language: 'en', category: 'services', integration: ['input_boolean', 'light'] });
  t.equal(services['component.input_boolean.services.toggle.name'], 'Toggle');
  t.equal(services['component.input_boolean.services.toggle.description'], 'Toggles an input boolean on/off.');
  t.equal(services['component.input_boolean.services.reload.name'], 'Reload');
  t.ok(services['component.light.services.turn_on.fields.brightness_pct.name'], "a field's name");

  t.equal((await ask(c, { type: 'frontend/get_translations', category: 'title' })).error.code, 'invalid_format', 'language is required');

  await t.test("each translated refusal's message is its exception text with the placeholders in it", async (t) => {
    const exceptions = await resources({ language: 'en', category: 'exceptions' });
    const refusals = [
      { domain: 'fan', service: 'set_preset_mode', service_data: { entity_id: 'fan.ceiling', preset_mode: 'turbo' } },
      { domain: 'climate', service: 'set_hvac_mode', service_data: { entity_id: 'climate.hall', hvac_mode: 'cool' } },
    ];
    for (const call of refusals) {
      const { error } = await ask(c, { type: 'call_service', ...call });
      const text = exceptions[`component.${error.translation_domain}.exceptions.${error.translation_key}.message`];
      t.ok(text, `${error.translation_domain}.${error.translation_key} has a text`);
      const filled = text.replace(/\{(\w+)\}/g, (_: string, key: string) => error.translation_placeholders[key]);
      // the WebSocket words a validation error as the original does, after a prefix
      t.equal(`Validation error: ${filled}`, error.message, `${call.domain}.${call.service}`);
    }
  });
});

// Template functions that read the registries (area_entities, area_name, floor_areas,
// label_entities, device_entities) on a real Hearth whose areas, floors and labels are made
// over the WebSocket as a client makes them.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient, type RawClient } from '../helpers/ws.ts';

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  const answer = await c.until((m) => m.id === id && m.type === 'result');
  if (!answer.success) throw new Error(`${msg.type}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

t.test('area, floor and label functions answer from the registries, by id or by name', async (t) => {
  const { base } = await startTestHearth(t, { config: 'input_boolean:\n  porch: { name: Porch }\n  hall: { name: Hall }\n  attic: { name: Attic }\n' });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  const floor = await ask(c, { type: 'config/floor_registry/create', name: 'Ground Floor', level: 0 });
  const area = await ask(c, { type: 'config/area_registry/create', name: 'Entrance', floor_id: floor.floor_id });
  const label = await ask(c, { type: 'config/label_registry/create', name: 'Night lights' });
  await ask(c, { type: 'config/entity_registry/update', entity_id: 'input_boolean.porch', area_id: area.area_id, labels: [label.label_id] });
  await ask(c, { type: 'config/entity_registry/update', entity_id: 'input_boolean.hall', area_id: area.area_id });
  c.ws.close();

  const rest = api(base, tokens.access_token);
  const render = async (template: string) => {
    const res = await rest('POST', '/api/template', { template });
    t.equal(res.status, 200, template);
    return res.text;
  };
  t.equal(await render(`{{ area_entities('${area.area_id}') | sort }}`), "['input_boolean.hall', 'input_boolean.porch']");
  t.equal(await render("{{ area_entities('Entrance') | count }}"), '2', 'an area by its name');
  t.equal(await render("{{ area_name('input_boolean.porch') }}"), 'Entrance');
  t.equal(await render(`{{ area_name('${area.area_id}') }}`), 'Entrance');
  t.equal(await render("{{ area_name('input_boolean.attic') }}"), 'None', 'no area');
  t.equal(await render("{{ floor_areas('Ground Floor') }}"), `['${area.area_id}']`);
  t.equal(await render("{{ label_entities('Night lights') }}"), "['input_boolean.porch']");
  t.equal(await render("{{ area_entities('Nowhere') }}"), '[]');
  t.equal(await render("{{ expand(area_entities('Entrance')) | map(attribute='name') | sort | join(', ') }}"), 'Hall, Porch');
});

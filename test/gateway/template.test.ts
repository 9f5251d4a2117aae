// POST /api/template and the render_template subscription on a real Hearth with helpers.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient, type RawClient } from '../helpers/ws.ts';
import { exchange, login } from '../actors/auth/harness.ts';

const CONFIG = `
core:
  name: Home
  latitude: 52.3731339
  longitude: 4.8903147
  time_zone: Europe/Amsterdam
  auth_groups:
    - id: porch_only
      policy:
        entities:
          entity_ids:
            input_boolean.porch: true
input_boolean:
  porch: { name: Porch }
  hall: { name: Hall, initial: true }
input_number:
  level: { min: 0, max: 100, initial: 50 }
`;

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

t.test('templates on a real Hearth', async (t) => {
  const { base } = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const render = async (template: string, variables?: Record<string, unknown>) => {
    const res = await rest('POST', '/api/template', variables ? { template, variables } : { template });
    if (res.status !== 200) throw new Error(`${template}: ${res.status} ${res.text}`);
    return res.text;
  };
  await rest('POST', '/api/states/sensor.temp', { state: '21.5', attributes: { unit_of_measurement: '°C', friendly_name: 'Temperature' } });
  await rest('POST', '/api/states/device_tracker.phone', { state: 'home', attributes: { latitude: 52.3731339, longitude: 4.8903147 } });
  await rest('POST', '/api/states/device_tracker.paris', { state: 'away', attributes: { latitude: 48.8566, longitude: 2.3522 } });
  await rest('POST', '/api/states/group.downstairs', { state: 'on', attributes: { entity_id: ['input_boolean.hall', 'sensor.temp', 'input_boolean.porch'] } });

  t.test('POST /api/template answers the rendered text as text/plain', async (t) => {
    const res = await rest('POST', '/api/template', { template: '  Hall is {{ states("input_boolean.hall") }}  ' });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain/);
    t.equal(res.text, 'Hall is on', 'surrounding whitespace stripped');
    t.equal(await render('no template here'), 'no template here');
    t.equal(await render('{{ x + 1 }} {{ who.name }}', { x: 41, who: { name: 'Ann' } }), '42 Ann', 'variables');
    t.equal(await render('{{ 10 / 4 }} {{ 10 // 4 }} {{ 2 ** 10 }} {{ 7 % 3 }} {{ "a" ~ 1 }} {{ [1, 2] }} {{ {"a": none} }}'), "2.5 2 1024 1 a1 [1, 2] {'a': None}");
  });

  t.test('states, state objects and the state functions', async (t) => {
    t.equal(await render("{{ states('input_boolean.hall') }} {{ states('input_boolean.nope') }}"), 'on unknown');
    t.equal(await render('{{ states.input_boolean.porch.state }} {{ states.input_boolean.porch.name }} {{ states.sensor.temp.name }}'), 'off Porch Temperature');
    t.equal(await render('{{ states.input_boolean.porch.entity_id }} {{ states.input_boolean.porch.domain }} {{ states.input_boolean.porch.object_id }}'), 'input_boolean.porch input_boolean porch');
    t.match(await render('{{ states.input_boolean.porch.last_changed }}|{{ states.input_boolean.porch.last_updated.isoformat() }}'), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?\+00:00\|\d{4}-\d\d-\d\dT/);
    t.match(await render('{{ states.input_boolean.porch.context.id }}'), /^[0-9A-Z]{26}$/);
    t.equal(await render("{{ states.input_number.level.attributes.max }} {{ states.sensor.temp.attributes['unit_of_measurement'] }}"), '100 °C');
    t.equal(await render('{{ states.input_boolean | count }} {{ states | count }}'), '2 8', 'zone.home counts too');
    t.equal(await render("{{ states.input_boolean | map(attribute='entity_id') | join(',') }}"), 'input_boolean.porch,input_boolean.hall');
    t.equal(await render("{{ states.input_boolean | selectattr('state', 'eq', 'on') | map(attribute='name') | list }}"), "['Hall']");
    t.equal(await render('{{ states.sensor.missing }}|{{ states.sensor.missing.state }}'), 'None|');
    t.equal(await render("{{ states('sensor.temp', with_unit=True) }}"), '21.5 °C');
    t.equal(await render("{{ is_state('input_boolean.hall', 'on') }} {{ is_state('input_boolean.hall', ['off', 'on']) }} {{ is_state('input_boolean.porch', 'on') }}"), 'True True False');
    t.equal(await render("{{ 'input_boolean.hall' is is_state('on') }} {{ 'input_boolean.hall' is not is_state('on') }}"), 'True False');
    t.equal(await render("{{ state_attr('input_number.level', 'min') }} {{ state_attr('input_number.level', 'nope') }} {{ state_attr('x.y', 'min') }}"), '0 None None');
    t.equal(await render("{{ is_state_attr('sensor.temp', 'unit_of_measurement', '°C') }} {{ is_state_attr('sensor.temp', 'nope', None) }}"), 'True False');
    t.equal(await render("{{ has_value('input_boolean.hall') }} {{ has_value('input_boolean.nope') }} {{ 'sensor.temp' | has_value }}"), 'True False True');
    t.equal(await render("{{ expand('group.downstairs') | map(attribute='entity_id') | list }}"), "['input_boolean.hall', 'input_boolean.porch', 'sensor.temp']", 'groups expanded, sorted');
    t.equal(await render("{{ expand('sensor.temp', ['input_boolean.hall']) | map(attribute='state') | list }}"), "['on', '21.5']");
    t.equal(await render("{{ area_entities('kitchen') }} {{ area_name('x') }} {{ floor_areas('f') }} {{ device_entities('d') }} {{ label_entities('l') }}"), '[] None [] [] []', 'no registries yet');
  });

  t.test('time', async (t) => {
    t.match(await render('{{ now() }}'), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?\+0[12]:00$/, 'now() is local (Europe/Amsterdam)');
    t.match(await render('{{ utcnow().isoformat() }}'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
    t.equal(await render("{{ as_timestamp('2025-01-01T00:00:00+00:00') }} {{ as_timestamp('nope', 0) }}"), '1735689600.0 0');
    t.equal(await render("{{ as_datetime('2025-01-01T10:00:00+00:00') }} {{ as_datetime(0) }} {{ as_datetime('nope') }}"), '2025-01-01 10:00:00+00:00 1970-01-01 00:00:00+00:00 None');
    t.equal(await render('{{ relative_time(now() - timedelta(hours=2)) }} {{ relative_time(now() + timedelta(hours=2)) is datetime }}'), '2 hours True');
    t.equal(await render('{{ timedelta(days=1, hours=2) }} {{ (timedelta(minutes=90)).total_seconds() }}'), '1 day, 2:00:00 5400.0');
    t.equal(await render("{{ (as_datetime('2025-01-01T12:00:00+00:00') - as_datetime('2025-01-01T10:30:00+00:00')) }}"), '1:30:00');
    t.equal(await render("{{ as_datetime('2025-07-01T12:00:00+00:00') | as_local }}"), '2025-07-01 14:00:00+02:00');
    t.equal(await render("{{ as_datetime('2025-07-01T12:00:00+00:00').strftime('%d.%m.%Y %H:%M') }} {{ 0 | timestamp_utc }}"), '01.07.2025 12:00 1970-01-01T00:00:00+00:00');
    t.equal(await render('{{ now() > now() - timedelta(seconds=1) }}'), 'True');
  });

  t.test('numbers', async (t) => {
    t.equal(await render("{{ float('1.5') }} {{ float('x', 0) }} {{ '2' | float }} {{ states('input_number.level') | float + 1 }}"), '1.5 0 2.0 51.0');
    t.equal(await render("{{ int('42') }} {{ '3.7' | int }} {{ 'x' | int(7) }} {{ int('ff', base=16) }}"), '42 3 7 255');
    t.equal(await render("{{ iif(true, 'yes', 'no') }} {{ (1 == 2) | iif('yes', 'no') }} {{ none | iif('y', 'n', 'none') }}"), 'yes no none');
    t.equal(await render('{{ min(3, 1, 2) }} {{ max([1, 5, 2]) }} {{ [4, 2] | min }} {{ average(1, 2) }}'), '1 5 2 1.5');
    t.equal(await render("{{ 2.5 | round }} {{ 1.2345 | round(2) }} {{ 1.21 | round(1, 'ceil') }} {{ 1.29 | round(1, 'floor') }} {{ 1.3 | round(1, 'half') }} {{ 'x' | round(default=0) }}"), '2 1.23 1.3 1.2 1.5 0');
    t.equal(await render("{{ is_number('1.5') }} {{ '1e3' is is_number }} {{ is_number('nan') }}"), 'True True False');
  });

  t.test('regex, JSON, distance', async (t) => {
    t.equal(await render("{{ 'abc123' | regex_match('[a-z]+') }} {{ 'abc123' | regex_match('\\\\d') }} {{ 'abc123' | regex_search('\\\\d') }}"), 'True False True');
    t.equal(await render("{{ 'a1b22' | regex_replace('(\\\\d+)', '<\\\\1>') }} {{ 'a1b22' | regex_findall('\\\\d+') }} {{ 'a1b22' | regex_findall_index('\\\\d+', 1) }}"), 'a<1>b<22> [\'1\', \'22\'] 22');
    t.equal(await render("{{ 'Name: Ann' | regex_replace('(?P<k>\\\\w+): (?P<v>\\\\w+)', '\\\\g<v>=\\\\g<k>') }} {{ 'ABC' is match('abc', ignorecase=True) }}"), 'Ann=Name True');
    t.equal(await render("{{ {'a': 1, 'b': [1, 2.5, none]} | to_json }} {{ {'b': 1, 'a': 2} | to_json(sort_keys=True) }}"), '{"a":1,"b":[1,2.5,null]} {"a":2,"b":1}');
    t.equal(await render('{{ (\'{"a": 1.0, "b": [true]}\' | from_json).a }} {{ \'nope\' | from_json(default=5) }}'), '1.0 5');
    t.equal(await render("{{ distance('device_tracker.paris') | round(1) }} {{ distance(52.3731339, 4.8903147, 48.8566, 2.3522) | round(1) }} {{ distance('device_tracker.phone') }}"), '430.4 430.4 0.0');
    t.equal(await render("{{ closest(states.device_tracker).entity_id }} {{ closest(48.8, 2.3, ['device_tracker.phone', 'device_tracker.paris']).entity_id }}"), 'device_tracker.phone device_tracker.paris');
    t.equal(await render("{{ (states.device_tracker | closest(48.8, 2.3)).entity_id }}"), 'device_tracker.paris');
  });

  t.test('Jinja as the original runs it', async (t) => {
    t.equal(await render('{% for i in range(3) %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}'), '0,1,2');
    t.equal(await render('{% set ns = namespace(total=0) %}{% for i in range(5) %}{% set ns.total = ns.total + i %}{% endfor %}{{ ns.total }}'), '10');
    t.equal(await render('{% macro twice(x) %}{{ x * 2 }}{% endmacro %}{{ twice(21) }}'), '42');
    t.equal(await render('a\n{% if true %}\nb\n{% endif %}\nc'), 'a\n\nb\n\nc', 'no trim_blocks: the newline after a tag stays');
    t.equal(await render('a\n  {%- if true -%}\n  b\n  {%- endif %}'), 'ab', 'whitespace control');
    t.equal(await render('{% raw %}{{ not rendered }}{% endraw %}'), '{{ not rendered }}');
    t.equal(await render('{{ x is defined }} {{ 6 is divisibleby 3 }} {{ none is none }} {{ "a,b".split(",") }}'), "False True True ['a', 'b']");
    t.equal(await render("{{ '%.2f' % 3.14159 }} {{ '{:>5}|'.format('ab') }} {{ 'hello world' | title }}"), '3.14    ab| Hello World');
  });

  t.test('errors answer 400 with the original message', async (t) => {
    const broken = await rest('POST', '/api/template', { template: '{{ states("x" }}' });
    t.equal(broken.status, 400);
    t.match(broken.json.message, /^Error rendering template: TemplateSyntaxError: /);
    t.same((await rest('POST', '/api/template', { template: '{{ 1 | nope }}' })).json, { message: "Error rendering template: TemplateAssertionError: No filter named 'nope'." });
    t.same((await rest('POST', '/api/template', { template: "{{ float('abc') }}" })).json, {
      message: "Error rendering template: ValueError: Template error: float got invalid input 'abc' when rendering template '{{ float('abc') }}' but no default was specified",
    });
    t.same((await rest('POST', '/api/template', { template: '{{ my_unknown + 1 }}' })).json, { message: "Error rendering template: UndefinedError: 'my_unknown' is undefined" });
    t.same((await rest('POST', '/api/template', { template: '{{ float(states.sensor.foo.state) }}' })).json, { message: "Error rendering template: UndefinedError: 'None' has no attribute 'state'" });
    t.same((await rest('POST', '/api/template', { template: '{{ 1 < "a" }}' })).json, { message: "Error rendering template: TypeError: '<' not supported between instances of 'int' and 'str'" });
    t.same((await rest('POST', '/api/template', { template: '{{ states.Bad }}' })).json, { message: "Error rendering template: TemplateError: Invalid domain name 'Bad'" });
    t.same((await rest('POST', '/api/template', '"{{ 1 }}"')).json, { message: 'Template data should be a JSON object' });
    t.same((await rest('POST', '/api/template', { tpl: '{{ 1 }}' })).json, { message: 'Error rendering template: Expected template to be a string' });
    t.same((await rest('POST', '/api/template', { template: '{{ 1 }}', variables: [1] })).json, { message: 'Error rendering template: variables should be a JSON object' });
    const invalid = await rest('POST', '/api/template', '{,}');
    t.equal(invalid.status, 400);
    t.match(invalid.json.message, /^Error rendering template: /);
  });

  t.test('a runaway template is cut off and the server serves on', async (t) => {
    const loop = await rest('POST', '/api/template', { template: '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}done' });
    t.equal(loop.status, 400);
    t.match(loop.json.message, /^Error rendering template: Template rendering (exceeded \d+ steps|took longer than \d+ ms)$/);
    const big = await rest('POST', '/api/template', { template: "{% for a in range(100000) %}{{ 'xxxxxxxxxx' }}{% endfor %}" });
    t.same(big.json, { message: 'Error rendering template: Template output exceeded maximum size of 262144 characters' });
    const huge = await rest('POST', '/api/template', { template: "{{ 'x' * 100000000 }}" });
    t.match(huge.json.message, /exceeded maximum size/);
    t.same((await rest('POST', '/api/template', { template: '{{ range(1000000) | list | count }}' })).json, {
      message: 'Error rendering template: OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).',
    });
    t.same((await rest('POST', '/api/template', { template: '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}' })).json.message.startsWith('Error rendering template: RecursionError'), true);
    const backtracking = await rest('POST', '/api/template', { template: "{{ ('a' * 5000 ~ 'b') | regex_match('(a+)+$') }}" });
    t.equal(backtracking.text, 'False', 'catastrophic backtracking finishes (linear engine fallback)');
    t.same((await rest('GET', '/api/')).json, { message: 'API running.' }, 'the next request is served');
    t.equal(await render('{{ 1 + 1 }}'), '2');
  });

  t.test('POST /api/template is for admins only', async (t) => {
    const owner = await authedClient(base, tokens.access_token);
    const created = await ask(owner, { type: 'config/auth/create', name: 'plain', group_ids: ['system-users'] });
    await ask(owner, { type: 'config/auth_provider/homeassistant/create', user_id: created.result.user.id, username: 'plain', password: 'plain-password' });
    const step = await login(base, 'plain', 'plain-password');
    const user = api(base, (await exchange(base, step.json.result)).json.access_token);
    const res = await user('POST', '/api/template', { template: '{{ 1 }}' });
    t.equal(res.status, 401);
    owner.ws.close();
  });
});

t.test('render_template subscription', async (t) => {
  const { base } = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const ws = await authedClient(base, tokens.access_token);
  const toggle = (id: string) => rest('POST', '/api/services/input_boolean/toggle', { entity_id: id });
  const eventOf = (id: number) => ws.until((m) => m.id === id && m.type === 'event');

  t.test('re-renders on a change of an entity it read, not on others', async (t) => {
    const id = nextId++;
    ws.send({ id, type: 'render_template', template: "State is: {{ states('input_boolean.hall') }}" });
    const result = await ws.until((m) => m.id === id);
    t.same(result, { id, type: 'result', success: true, result: null });
    t.same((await eventOf(id)).event, { result: 'State is: on', listeners: { all: false, domains: [], entities: ['input_boolean.hall'], time: false } });
    await toggle('input_boolean.porch');
    await toggle('input_boolean.hall');
    const next = await ws.until((m) => m.id === id);
    t.same(next.event, { result: 'State is: off', listeners: { all: false, domains: [], entities: ['input_boolean.hall'], time: false } }, 'the porch change sent nothing: the next event is the hall one');
    t.same((await ask(ws, { type: 'unsubscribe_events', subscription: id })).success, true);
    await toggle('input_boolean.hall');
    const probe = nextId++;
    ws.send({ id: probe, type: 'ping' });
    t.same(await ws.until((m) => m.id === id || m.id === probe), { id: probe, type: 'pong' }, 'nothing after unsubscribing');
  });

  t.test('listeners: domains, all, time; results parsed as the original parses them', async (t) => {
    const domain = nextId++;
    ws.send({ id: domain, type: 'render_template', template: "{{ states.input_boolean | selectattr('state', 'eq', 'on') | list | count }}" });
    const counted = (await eventOf(domain)).event;
    t.same(counted.listeners, { all: false, domains: ['input_boolean'], entities: [], time: false });
    t.equal(typeof counted.result, 'number', 'a count is sent as a number');
    const all = nextId++;
    ws.send({ id: all, type: 'render_template', template: '{{ states | count > 0 }}' });
    t.same((await eventOf(all)).event, { result: true, listeners: { all: true, domains: [], entities: [], time: false } });
    const time = nextId++;
    ws.send({ id: time, type: 'render_template', template: "{{ [now().year > 2000, states('input_number.level') | float] }}" });
    t.same((await eventOf(time)).event, { result: [true, 50], listeners: { all: false, domains: [], entities: ['input_number.level'], time: true } });
    const frames = ws.frames.join('\n');
    t.match(frames, /"result":\[true,50\.0\]/, 'a float result is sent as 50.0');
    for (const sub of [domain, all, time]) await ask(ws, { type: 'unsubscribe_events', subscription: sub });
  });

  t.test('a domain template re-renders when an entity of the domain changes', async (t) => {
    const id = nextId++;
    ws.send({ id, type: 'render_template', template: "{{ states.input_boolean | map(attribute='state') | join(',') }}" });
    const first = (await eventOf(id)).event.result;
    await toggle('input_boolean.porch');
    const second = (await eventOf(id)).event.result;
    t.not(second, first);
    await ask(ws, { type: 'unsubscribe_events', subscription: id });
  });

  t.test('report_errors: warnings and errors as events', async (t) => {
    const id = nextId++;
    ws.send({ id, type: 'render_template', template: '{{ my_unknown_var }}', report_errors: true });
    const seen: any[] = [];
    for (let i = 0; i < 4; i++) seen.push(await ws.until((m) => m.id === id));
    t.same(
      seen.map((m) => (m.type === 'result' ? 'result' : m.event)),
      [{ error: "'my_unknown_var' is undefined", level: 'WARNING' }, 'result', { error: "'my_unknown_var' is undefined", level: 'WARNING' }, { result: '', listeners: { all: false, entities: [], domains: [], time: false } }],
    );
    const err = nextId++;
    ws.send({ id: err, type: 'render_template', template: '{{ now() | unknown_filter }}', report_errors: true });
    const errs: any[] = [];
    for (let i = 0; i < 3; i++) errs.push(await ws.until((m) => m.id === err));
    const event = { error: "TemplateAssertionError: No filter named 'unknown_filter'.", level: 'ERROR' };
    t.same(errs.map((m) => (m.type === 'result' ? 'result' : m.event)), [event, 'result', event]);
    const strict = nextId++;
    ws.send({ id: strict, type: 'render_template', template: '{{ my_unknown_var }}', strict: true, report_errors: true });
    const strictSeen: any[] = [];
    for (let i = 0; i < 3; i++) strictSeen.push(await ws.until((m) => m.id === strict));
    const undefinedError = { error: "UndefinedError: 'my_unknown_var' is undefined", level: 'ERROR' };
    t.same(strictSeen.map((m) => (m.type === 'result' ? 'result' : m.event)), [undefinedError, 'result', undefinedError], 'strict: an undefined name is an error');
    const plain = nextId++;
    ws.send({ id: plain, type: 'render_template', template: '42' });
    t.same((await eventOf(plain)).event.result, '42', 'a text without template syntax is sent as it is');
    await ask(ws, { type: 'unsubscribe_events', subscription: strict });
    await ask(ws, { type: 'unsubscribe_events', subscription: plain });
    const quiet = nextId++;
    ws.send({ id: quiet, type: 'render_template', template: '{{ my_unknown_var + 1 }}' });
    t.same(await ws.until((m) => m.id === quiet), { id: quiet, type: 'result', success: true, result: null }, 'without report_errors: only the result');
    for (const sub of [id, err, quiet]) await ask(ws, { type: 'unsubscribe_events', subscription: sub });
  });

  t.test('timeout: a template that would run too long is refused', async (t) => {
    const refused = await ask(ws, { type: 'render_template', template: '{% for a in range(100000) %}{% for b in range(100000) %}{{ b }}{% endfor %}{% endfor %}', timeout: 0.01 });
    t.same(refused.error, { code: 'template_error', message: 'Exceeded maximum execution time of 0.01s' });
    // a timeout as long as the render limit (or longer) is answered on the command too, not left to a silent error
    for (const [timeout, shown] of [[1, '1.0'], [5, '1.0']] as const) {
      const long = await ask(ws, { type: 'render_template', template: '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}', timeout });
      t.same(long.error, { code: 'template_error', message: `Exceeded maximum execution time of ${shown}s` }, `timeout ${timeout}`);
    }
    const id = nextId++;
    ws.send({ id, type: 'render_template', template: '{{ test.value }}', timeout: 3, variables: { test: { value: 'hello' } } });
    t.same((await eventOf(id)).event, { result: 'hello', listeners: { all: false, domains: [], entities: [], time: false } });
    await ask(ws, { type: 'unsubscribe_events', subscription: id });
    const bad = await ask(ws, { type: 'render_template', template: 5 });
    t.equal(bad.error.code, 'invalid_format');
  });

  t.test('a user who may not read everything sees only what they may read', async (t) => {
    const created = await ask(ws, { type: 'config/auth/create', name: 'porch', group_ids: ['porch_only'] });
    await ask(ws, { type: 'config/auth_provider/homeassistant/create', user_id: created.result.user.id, username: 'porch', password: 'porch-password' });
    const step = await login(base, 'porch', 'porch-password');
    const userWs = await authedClient(base, (await exchange(base, step.json.result)).json.access_token);
    const id = nextId++;
    userWs.send({ id, type: 'render_template', template: "{{ states('input_boolean.hall') }} {{ states('input_boolean.porch') }} {{ states | count }}" });
    const event = await userWs.until((m) => m.id === id && m.type === 'event');
    t.match(event.event.result, /^unknown (on|off) 1$/);
    userWs.ws.close();
  });

  t.teardown(() => ws.ws.close());
});

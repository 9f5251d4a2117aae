// The live home: every entity, grouped by area and then by domain, live through
// subscribe_entities, with a control for each domain that has services (every control is a
// service call). The list is virtualised: only the rows in view (and a few around them) are in
// the document, so ten thousand entities cost what fifty do.
import { callService } from '../vendor/haws/index.js';

/** Row height in pixels; style.css's --row-h says the same. */
const ROW_H = 48;
/** Rows drawn beyond each edge of the view, so Tab and short scrolls find them there. */
const OVERSCAN = 8;

/** An icon for entities that name none, by domain (and a few sensor device classes). */
const DOMAIN_ICONS = {
  light: 'lightbulb',
  switch: 'toggle-switch-variant',
  fan: 'fan',
  input_boolean: 'toggle-switch-outline',
  cover: 'window-shutter',
  lock: 'lock',
  climate: 'thermostat',
  timer: 'timer-outline',
  input_number: 'ray-vertex',
  input_select: 'format-list-bulleted',
  select: 'format-list-bulleted',
  input_text: 'form-textbox',
  input_datetime: 'calendar-clock',
  button: 'gesture-tap-button',
  input_button: 'gesture-tap-button',
  script: 'script-text',
  scene: 'palette',
  automation: 'robot',
  sensor: 'eye',
  binary_sensor: 'checkbox-blank-circle-outline',
  person: 'account',
  device_tracker: 'account',
  zone: 'map-marker-radius',
  sun: 'white-balance-sunny',
  weather: 'weather-partly-cloudy',
  media_player: 'cast',
  valve: 'pipe-valve',
  counter: 'counter',
  number: 'ray-vertex',
  update: 'package-up',
  camera: 'video',
  vacuum: 'robot-vacuum',
  siren: 'bullhorn',
  calendar: 'calendar',
  conversation: 'microphone-message',
};

const SENSOR_ICONS = {
  temperature: 'thermometer',
  humidity: 'water-percent',
  battery: 'battery',
  power: 'flash',
  energy: 'lightning-bolt',
  illuminance: 'brightness-5',
  pressure: 'gauge',
  motion: 'motion-sensor',
  door: 'door',
  window: 'window-closed',
};

const DEFAULT_ICON = 'bookmark';

const TOGGLES = new Set(['light', 'switch', 'fan', 'input_boolean', 'automation', 'siren']);

const domainOf = (id) => id.slice(0, id.indexOf('.'));

export function iconNameOf(entityId, stateObj, registryIcon) {
  const named = registryIcon || stateObj?.attributes?.icon;
  if (typeof named === 'string' && named.startsWith('mdi:')) return named.slice(4);
  const domain = domainOf(entityId);
  const dc = stateObj?.attributes?.device_class;
  if ((domain === 'sensor' || domain === 'binary_sensor') && SENSOR_ICONS[dc]) return SENSOR_ICONS[dc];
  if (domain === 'lock' && stateObj?.state === 'unlocked') return 'lock-open-variant';
  if (domain === 'cover' && stateObj?.state === 'open') return 'window-shutter-open';
  return DOMAIN_ICONS[domain] ?? DEFAULT_ICON;
}

/** The state as a user reads it: with its unit when it has one. */
export function stateText(stateObj) {
  if (!stateObj) return '';
  const unit = stateObj.attributes?.unit_of_measurement;
  return unit ? `${stateObj.state} ${unit}` : stateObj.state;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('aria-') || k === 'role') node.setAttribute(k, v);
    else node[k] = v;
  }
  node.append(...children);
  return node;
}

export function mount(root, ctx) {
  const { conn, t } = ctx;
  let entities = {};
  /** registry facts: area names, each entity's area, display names and icons */
  let areas = new Map();
  let entityAreas = new Map();
  let registryNames = new Map();
  let registryIcons = new Map();
  let hidden = new Set();
  /** the flat rows the list shows: headings and entities, in order */
  let rows = [];
  /** rows drawn now, by key */
  const drawn = new Map();
  /** the entity objects last drawn, to redraw only what changed */
  const drawnState = new Map();
  let query = '';
  let structureDirty = true;
  let frame = 0;
  const unsubs = [];

  const search = el('input', {
    type: 'search',
    id: 'home-search',
    placeholder: t('home.search_hint'),
    autocomplete: 'off',
    spellcheck: false,
    'aria-label': t('home.search'),
    'aria-controls': 'home-list',
  });
  const count = el('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const notice = el('p', { class: 'error', role: 'alert' });
  notice.hidden = true;
  const spacer = el('div', { class: 'vlist-spacer' });
  const list = el('div', { class: 'vlist', id: 'home-list', role: 'region', 'aria-label': t('home.title'), tabIndex: -1 }, spacer);
  const empty = el('p', { class: 'muted' }, t('home.none'));
  empty.hidden = true;
  root.append(el('h1', { class: 'visually-hidden' }, t('home.title')), el('div', { class: 'home-bar' }, search, count), notice, empty, list);

  let noticeTimer = 0;
  function fail(err) {
    notice.textContent = t('home.failed', { message: err?.message ?? String(err) });
    notice.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => (notice.hidden = true), 8000);
  }

  /** A service call from a control; a refusal shows in the alert, never as an unhandled error. */
  const call = (domain, service, data, entityId) => callService(conn, domain, service, data, { entity_id: entityId }).catch(fail);

  const nameOf = (id) => registryNames.get(id) || entities[id]?.attributes?.friendly_name || id;

  // ---- the rows ---------------------------------------------------------------------------

  function rebuild() {
    structureDirty = false;
    const q = query.trim().toLowerCase();
    const byArea = new Map();
    let total = 0;
    let shown = 0;
    for (const id in entities) {
      if (hidden.has(id)) continue;
      total++;
      const name = nameOf(id);
      if (q && !id.includes(q) && !name.toLowerCase().includes(q)) continue;
      shown++;
      const area = entityAreas.get(id) ?? '';
      let domains = byArea.get(area);
      if (!domains) byArea.set(area, (domains = new Map()));
      const domain = domainOf(id);
      let list = domains.get(domain);
      if (!list) domains.set(domain, (list = []));
      list.push({ id, name, sortName: name.toLowerCase() });
    }
    const areaName = (a) => (a ? areas.get(a) ?? a : t('home.unassigned'));
    // named areas by name, and the unassigned last
    const areaOrder = [...byArea.keys()].sort((a, b) => (!a ? 1 : !b ? -1 : areaName(a).localeCompare(areaName(b))));
    const next = [];
    for (const area of areaOrder) {
      next.push({ key: `a:${area}\n${areaName(area)}`, kind: 'group', text: areaName(area) });
      const domains = byArea.get(area);
      for (const domain of [...domains.keys()].sort()) {
        next.push({ key: `d:${area}:${domain}`, kind: 'domain', text: domain.replace(/_/g, ' ') });
        const items = domains.get(domain).sort((a, b) => (a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : a.id < b.id ? -1 : 1));
        // the name is in the key: a renamed entity's row is made afresh, any other is kept
        for (const item of items) next.push({ key: `e:${item.id}\n${item.name}`, kind: 'entity', id: item.id, name: item.name });
      }
    }
    rows = next;
    spacer.style.height = `${rows.length * ROW_H}px`;
    count.textContent = t('home.count', { shown, total });
    empty.hidden = shown > 0 || total === 0;
    // drawn rows stay: draw() moves those still listed and drops the rest
  }

  function draw() {
    frame = 0;
    if (structureDirty) rebuild();
    const top = list.scrollTop;
    const height = list.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((top + height) / ROW_H) + OVERSCAN);
    const wanted = new Set();
    for (let i = first; i < last; i++) wanted.add(rows[i].key);
    const focused = document.activeElement;
    const focusedRow = focused?.closest?.('.vrow');
    for (const [key, node] of drawn) {
      // the row holding the focus stays, so scrolling away and back keeps the user's place
      if (wanted.has(key) || node === focusedRow) continue;
      node.remove();
      drawn.delete(key);
      drawnState.delete(key);
    }
    // the document's order is the list's, so Tab walks the rows as they are shown; rows already
    // in place are never moved (moving the focused one would drop the focus)
    let anchor = spacer;
    for (let i = first; i < last; i++) {
      const row = rows[i];
      let node = drawn.get(row.key);
      if (!node) {
        node = makeRow(row);
        drawn.set(row.key, node);
      }
      if (anchor.nextSibling !== node) list.insertBefore(node, anchor.nextSibling);
      anchor = node;
      if (node._index !== i) {
        node._index = i;
        node.style.transform = `translateY(${i * ROW_H}px)`;
      }
      if (row.kind === 'entity') {
        const s = entities[row.id];
        if (drawnState.get(row.key) !== s) {
          drawnState.set(row.key, s);
          node._update(s);
        }
      }
    }
    // a row moved into its place loses the focus it held: give it back where the user was
    if (focusedRow && focused.isConnected && document.activeElement !== focused) focused.focus({ preventScroll: true });
  }

  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(draw);
  };

  function makeRow(row) {
    if (row.kind !== 'entity') {
      const level = row.kind === 'group' ? '2' : '3';
      return el('div', { class: `vrow ${row.kind}`, role: 'heading', 'aria-level': level }, row.text);
    }
    const id = row.id;
    const domain = domainOf(id);
    const name = row.name;
    const iconBox = el('span', { class: 'icon-box' });
    const link = el('a', { href: `#/history/${encodeURIComponent(id)}`, title: t('home.history', { name }) }, name);
    const nameCell = el('span', { class: 'name' }, link, el('span', { class: 'id' }, id));
    const state = el('span', { class: 'state' });
    const controls = el('span', { class: 'controls' });
    const node = el('div', { class: 'vrow entity', dataset: { entityId: id } }, iconBox, nameCell, state, controls);
    let iconName;
    const update = makeControls(domain, id, name, controls);
    node._update = (s) => {
      const wantedIcon = iconNameOf(id, s, registryIcons.get(id));
      if (wantedIcon !== iconName) {
        iconName = wantedIcon;
        iconBox.replaceChildren(ctx.icon(wantedIcon, DOMAIN_ICONS[domain] ?? DEFAULT_ICON));
      }
      state.textContent = stateText(s);
      node.classList.toggle('on', s?.state === 'on' || s?.state === 'open' || s?.state === 'unlocked' || s?.state === 'active');
      update(s);
    };
    return node;
  }

  /** The controls of one entity row, and how they follow the entity's state. */
  function makeControls(domain, id, name, box) {
    const button = (label, service, data = {}, svcDomain = domain) =>
      el('button', { type: 'button', onclick: () => call(svcDomain, service, data, id), 'aria-label': `${label} ${name}` }, label);

    if (TOGGLES.has(domain)) {
      const toggle = el('button', { type: 'button', class: 'switch', 'aria-label': t('home.toggle', { name }), 'aria-pressed': 'false' });
      let on = false;
      toggle.onclick = () => call(domain, on ? 'turn_off' : 'turn_on', {}, id);
      let slider;
      if (domain === 'light') {
        slider = el('input', { type: 'range', min: 1, max: 100, step: 1, 'aria-label': t('home.brightness', { name }) });
        slider.hidden = true;
        // `change` fires once the user lets go (or per key press), not on every pixel dragged
        slider.onchange = () => call('light', 'turn_on', { brightness_pct: Number(slider.value) }, id);
        box.append(slider);
      }
      box.append(toggle);
      return (s) => {
        on = s?.state === 'on';
        toggle.setAttribute('aria-pressed', String(on));
        toggle.disabled = !s || s.state === 'unavailable';
        if (slider) {
          const modes = s?.attributes?.supported_color_modes;
          const dims = Array.isArray(modes) ? modes.some((m) => m !== 'onoff') : typeof s?.attributes?.brightness === 'number';
          slider.hidden = !dims;
          if (dims && document.activeElement !== slider) slider.value = String(Math.max(1, Math.round(((s.attributes.brightness ?? 0) / 255) * 100)));
        }
      };
    }
    switch (domain) {
      case 'cover': {
        const slider = el('input', { type: 'range', min: 0, max: 100, step: 1, 'aria-label': t('home.position', { name }) });
        slider.hidden = true;
        slider.onchange = () => call('cover', 'set_cover_position', { position: Number(slider.value) }, id);
        box.append(slider, button(t('home.open'), 'open_cover'), button(t('home.stop'), 'stop_cover'), button(t('home.close'), 'close_cover'));
        return (s) => {
          const pos = s?.attributes?.current_position;
          slider.hidden = typeof pos !== 'number';
          if (typeof pos === 'number' && document.activeElement !== slider) slider.value = String(pos);
        };
      }
      case 'lock': {
        const lock = button(t('home.lock'), 'lock');
        const unlock = button(t('home.unlock'), 'unlock');
        box.append(lock, unlock);
        return (s) => {
          lock.disabled = s?.state === 'locked';
          unlock.disabled = s?.state === 'unlocked';
        };
      }
      case 'climate': {
        const input = el('input', { type: 'number', 'aria-label': t('home.target', { name }) });
        input.onchange = () => {
          const value = Number(input.value);
          if (input.value !== '' && Number.isFinite(value)) call('climate', 'set_temperature', { temperature: value }, id);
        };
        box.append(input);
        return (s) => {
          const a = s?.attributes ?? {};
          if (typeof a.min_temp === 'number') input.min = String(a.min_temp);
          if (typeof a.max_temp === 'number') input.max = String(a.max_temp);
          input.step = String(a.target_temp_step ?? 0.5);
          input.hidden = typeof a.temperature !== 'number';
          if (document.activeElement !== input && typeof a.temperature === 'number') input.value = String(a.temperature);
        };
      }
      case 'timer': {
        const start = button(t('home.start'), 'start');
        const cancel = button(t('home.cancel'), 'cancel');
        box.append(start, cancel);
        return (s) => {
          cancel.disabled = s?.state === 'idle';
        };
      }
      case 'input_number':
      case 'number': {
        const input = el('input', { 'aria-label': t('home.value', { name }) });
        input.onchange = () => call(domain, 'set_value', { value: Number(input.value) }, id);
        box.append(input);
        return (s) => {
          const a = s?.attributes ?? {};
          input.type = a.mode === 'box' ? 'number' : 'range';
          input.min = String(a.min ?? 0);
          input.max = String(a.max ?? 100);
          input.step = String(a.step ?? 1);
          if (document.activeElement !== input) input.value = s?.state ?? '';
        };
      }
      case 'input_select':
      case 'select': {
        const select = el('select', { 'aria-label': t('home.option', { name }) });
        select.onchange = () => call(domain, 'select_option', { option: select.value }, id);
        box.append(select);
        let shownOptions = '';
        return (s) => {
          const options = Array.isArray(s?.attributes?.options) ? s.attributes.options.map(String) : [];
          const key = JSON.stringify(options);
          if (key !== shownOptions) {
            shownOptions = key;
            select.replaceChildren(...options.map((o) => el('option', { value: o }, o)));
          }
          select.value = s?.state ?? '';
        };
      }
      case 'button':
      case 'input_button':
        box.append(button(t('home.press'), 'press'));
        return () => {};
      case 'script':
        box.append(button(t('home.run'), 'turn_on'));
        return () => {};
      case 'scene':
        box.append(button(t('home.activate'), 'turn_on'));
        return () => {};
      default:
        return () => {};
    }
  }

  // ---- live data --------------------------------------------------------------------------

  /**
   * One subscribe_entities message (its compressed form: a = added in full, c = changed as
   * +/- diffs, r = removed), applied in place. HAWS's subscribeEntities copies the whole map on
   * every message, which at 10k entities costs more than the change; here each message costs
   * what it carries. A changed entity gets a new object, so a drawn row knows it is stale.
   */
  function onMessage(msg) {
    // the first message after a reconnect holds every entity: what it lacks is gone
    if (resync && msg.a) {
      resync = false;
      entities = {};
      structureDirty = true;
    }
    if (msg.a) {
      for (const id in msg.a) {
        const s = msg.a[id];
        const changed = new Date(s.lc * 1000).toISOString();
        const before = entities[id];
        entities[id] = {
          entity_id: id,
          state: s.s,
          attributes: s.a ?? {},
          context: typeof s.c === 'string' ? { id: s.c, parent_id: null, user_id: null } : s.c,
          last_changed: changed,
          last_updated: s.lu ? new Date(s.lu * 1000).toISOString() : changed,
        };
        if (!before || before.attributes?.friendly_name !== entities[id].attributes.friendly_name) structureDirty = true;
      }
    }
    if (msg.r) {
      for (const id of msg.r) delete entities[id];
      if (msg.r.length) structureDirty = true;
    }
    if (msg.c) {
      for (const id in msg.c) {
        const before = entities[id];
        if (!before) continue;
        const { '+': add, '-': remove } = msg.c[id];
        const next = { ...before };
        if (add?.a || remove?.a) next.attributes = { ...before.attributes, ...add?.a };
        for (const key of remove?.a ?? []) delete next.attributes[key];
        if (add) {
          if (add.s !== undefined) next.state = add.s;
          if (add.c) next.context = typeof add.c === 'string' ? { ...before.context, id: add.c } : { ...before.context, ...add.c };
          if (add.lc) next.last_updated = next.last_changed = new Date(add.lc * 1000).toISOString();
          else if (add.lu) next.last_updated = new Date(add.lu * 1000).toISOString();
        }
        if (next.attributes.friendly_name !== before.attributes.friendly_name) structureDirty = true;
        entities[id] = next;
      }
    }
    schedule();
  }

  async function loadRegistries() {
    const [areaList, entityList, deviceList] = await Promise.all([
      conn.sendMessagePromise({ type: 'config/area_registry/list' }).catch(() => []),
      conn.sendMessagePromise({ type: 'config/entity_registry/list' }).catch(() => []),
      conn.sendMessagePromise({ type: 'config/device_registry/list' }).catch(() => []),
    ]);
    areas = new Map(areaList.map((a) => [a.area_id, a.name]));
    const deviceAreas = new Map(deviceList.map((d) => [d.id, d.area_id]));
    entityAreas = new Map();
    registryNames = new Map();
    registryIcons = new Map();
    hidden = new Set();
    for (const e of entityList) {
      const area = e.area_id ?? (e.device_id ? deviceAreas.get(e.device_id) : null);
      if (area) entityAreas.set(e.entity_id, area);
      if (e.name) registryNames.set(e.entity_id, e.name);
      if (e.icon) registryIcons.set(e.entity_id, e.icon);
      if (e.hidden_by) hidden.add(e.entity_id);
    }
    structureDirty = true;
    schedule();
  }

  search.addEventListener('input', () => {
    query = search.value;
    structureDirty = true;
    list.scrollTop = 0;
    schedule();
  });
  list.addEventListener('scroll', schedule, { passive: true });
  const resize = new ResizeObserver(schedule);
  resize.observe(list);
  // a focused control near the edge pulls its neighbours in, so Tab walks the whole list
  list.addEventListener('focusin', schedule);

  let closed = false;
  let resync = false;
  const onReady = () => (resync = true);
  conn.addEventListener('ready', onReady);
  (async () => {
    await loadRegistries();
    if (closed) return;
    const unsub = await conn.subscribeMessage(onMessage, { type: 'subscribe_entities' });
    if (closed) unsub();
    else unsubs.push(unsub);
    for (const type of ['area_registry_updated', 'entity_registry_updated', 'device_registry_updated']) {
      conn.subscribeEvents(() => loadRegistries(), type).then(
        (unsub) => (closed ? unsub() : unsubs.push(unsub)),
        () => {},
      );
    }
  })().catch(fail);

  return () => {
    closed = true;
    conn.removeEventListener('ready', onReady);
    cancelAnimationFrame(frame);
    clearTimeout(noticeTimer);
    resize.disconnect();
    for (const unsub of unsubs) {
      try {
        const r = unsub();
        r?.catch?.(() => {});
      } catch {
        // the connection may already be gone
      }
    }
  };
}

// The log explorer (#/log): a time slider over the log that shows the whole home as it was at
// that moment (hearth/state_at), the records around it (hearth/log) with who made them, in which
// call and context, and "follow the context" (hearth/context): from a change back to the service
// call, the user and the token that caused it. Admins only: the log holds everyone's doings.

import { h } from '../dom.js';

const STATES_SHOWN = 200;
const RECORDS_BEFORE = 12;
const RECORDS_AFTER = 8;
const DEBOUNCE_MS = 200;
const SECOND = 1000;

/** `ms` as a datetime-local field's value, in the browser's time zone, to the second. */
function localValue(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * `ms` as an ISO time to the microsecond: records are timed in µs, and a Date would drop the
 * fraction, leaving the record at the moment itself out of the home "at" it.
 */
function isoMicros(ms) {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  const base = new Date(whole).toISOString();
  return micros ? base.replace('Z', `${String(micros).padStart(3, '0')}Z`) : base;
}

const shortJson = (value, max = 90) => {
  let text;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text && text.length > max ? `${text.slice(0, max - 1)}…` : (text ?? '');
};

/** The time of a record or state as the log prints it: epoch ms. */
const timeText = (ms, lang) => new Date(ms).toLocaleString(lang, { dateStyle: 'short', timeStyle: 'medium' });

export async function mount(el, ctx) {
  const { t, conn, lang } = ctx;
  if (!document.querySelector('link[data-page=log]')) {
    document.head.append(h('link', { rel: 'stylesheet', href: '/dashboard/pages/log.css', 'data-page': 'log' }));
  }
  el.append(h('h1', { text: t('log.title') }));
  if (!ctx.user?.is_admin) {
    el.append(h('p', { class: 'error', role: 'alert', text: t('log.admin_only') }));
    return undefined;
  }

  const ask = (msg) => conn.sendMessagePromise(msg);
  let alive = true;
  // names of users by id, for the "who" column (the log keeps ids only)
  const names = new Map();
  ask({ type: 'config/auth/list' })
    .then((users) => {
      for (const u of users) names.set(u.id, u.name);
      if (alive) renderRecords();
    })
    .catch(() => {});
  const who = (userId) => (userId ? (names.get(userId) ?? userId.slice(0, 8)) : t('log.system'));

  // ---- the controls ----------------------------------------------------------------------
  const slider = h('input', { type: 'range', id: 'log-slider', step: String(SECOND), 'aria-describedby': 'log-moment-text' });
  const field = h('input', { type: 'datetime-local', id: 'log-moment', step: '1' });
  const earlier = h('button', { type: 'button', text: t('log.earlier'), title: t('log.earlier_hint') });
  const later = h('button', { type: 'button', text: t('log.later'), title: t('log.later_hint') });
  const latest = h('button', { type: 'button', text: t('log.now') });
  const status = h('p', { id: 'log-moment-text', class: 'log-status', role: 'status', 'aria-live': 'polite' });
  el.append(
    h(
      'div',
      { class: 'log-bar' },
      h('label', { for: 'log-slider', text: t('log.slider') }),
      slider,
      h('label', { for: 'log-moment', text: t('log.moment') }),
      field,
      earlier,
      later,
      latest,
    ),
    status,
  );

  const search = h('input', { type: 'search', id: 'log-search', placeholder: t('log.search_hint'), autocomplete: 'off' });
  const statesBody = h('tbody');
  const statesNote = h('p', { class: 'muted' });
  const recordsBody = h('tbody');
  const contextPanel = h('section', { class: 'log-context', 'aria-labelledby': 'log-context-title', hidden: true });
  el.append(
    h(
      'div',
      { class: 'log-columns' },
      h(
        'section',
        { class: 'log-home', 'aria-labelledby': 'log-home-title' },
        h('h2', { id: 'log-home-title', text: t('log.home_then') }),
        h('label', { for: 'log-search', class: 'visually-hidden', text: t('log.search') }),
        search,
        h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: t('log.entity') }), h('th', { text: t('log.state') }), h('th', { text: t('log.changed') }), h('th', { text: t('log.cause') }))), statesBody),
        statesNote,
      ),
      h(
        'section',
        { class: 'log-records', 'aria-labelledby': 'log-records-title' },
        h('h2', { id: 'log-records-title', text: t('log.around') }),
        h(
          'table',
          {},
          h('thead', {}, h('tr', {}, ...['seq', 'time', 'what', 'who', 'context'].map((k) => h('th', { text: t(`log.col_${k}`) })))),
          recordsBody,
        ),
      ),
    ),
    contextPanel,
  );

  // ---- the log's span --------------------------------------------------------------------
  let first = 0;
  let last = 0;
  let moment = 0;
  let seqAt = 0;
  let states = [];
  let records = [];

  async function span() {
    const [a, b] = await Promise.all([ask({ type: 'hearth/log', limit: 1 }), ask({ type: 'hearth/log', limit: 1, before_seq: Number.MAX_SAFE_INTEGER })]);
    first = a.records[0]?.time ?? Date.now();
    last = Math.max(b.records[0]?.time ?? Date.now(), first);
    slider.min = String(Math.floor(first / SECOND) * SECOND);
    slider.max = String(Math.ceil(last / SECOND) * SECOND);
    field.min = localValue(first);
    field.max = localValue(last + SECOND);
  }

  // ---- the moment ------------------------------------------------------------------------
  let timer;
  let asked = 0;
  /** Shows the home at `ms`; `from` is the control that moved (the other follows it). */
  function setMoment(ms, from, now = false) {
    moment = ms;
    if (from !== slider) slider.value = String(ms);
    if (from !== field) field.value = localValue(ms);
    status.textContent = t('log.loading_at', { time: timeText(ms, lang) });
    clearTimeout(timer);
    timer = setTimeout(load, now ? 0 : DEBOUNCE_MS);
  }

  async function load() {
    const mine = ++asked;
    const at = isoMicros(moment);
    try {
      const r = await ask({ type: 'hearth/state_at', time: at });
      if (!alive || mine !== asked) return;
      states = r.states;
      seqAt = r.seq;
      const [before, after] = await Promise.all([
        ask({ type: 'hearth/log', before_seq: seqAt + 1, limit: RECORDS_BEFORE }),
        ask({ type: 'hearth/log', after_seq: seqAt, limit: RECORDS_AFTER }),
      ]);
      if (!alive || mine !== asked) return;
      records = [...before.records, ...after.records];
      status.textContent = t('log.at', { time: timeText(moment, lang), seq: seqAt, count: states.length });
      renderStates();
      renderRecords();
    } catch (err) {
      if (alive && mine === asked) status.textContent = t('log.failed', { message: err?.message ?? String(err) });
    }
  }

  function renderStates() {
    const q = search.value.trim().toLowerCase();
    const shown = q ? states.filter((s) => s.entity_id.includes(q) || String(s.attributes?.friendly_name ?? '').toLowerCase().includes(q)) : states;
    statesBody.replaceChildren(
      ...shown.slice(0, STATES_SHOWN).map((s) =>
        h(
          'tr',
          { 'data-entity': s.entity_id },
          h('th', { scope: 'row', title: s.entity_id }, s.attributes?.friendly_name ? `${s.attributes.friendly_name} ` : '', h('span', { class: 'muted', text: s.entity_id })),
          h('td', { class: 'log-state', text: s.state }),
          h('td', { text: timeText(Date.parse(s.last_changed), lang) }),
          h('td', {}, h('button', { type: 'button', class: 'quiet', text: t('log.why'), 'aria-label': t('log.why_of', { name: s.entity_id }), onclick: () => follow(s.context.id) })),
        ),
      ),
    );
    statesNote.textContent = shown.length > STATES_SHOWN ? t('log.more_states', { shown: STATES_SHOWN, total: shown.length }) : shown.length === 0 ? t('log.no_states') : '';
  }

  function summary(r) {
    const d = r.data ?? {};
    if (r.type === 'state_changed' && d.entity_id) return `${d.entity_id}: ${d.old_state?.state ?? '∅'} → ${d.new_state?.state ?? t('log.removed')}`;
    if (r.type === 'call_service') return `${d.domain}.${d.service} ${shortJson(d.service_data ?? {}, 60)}`;
    return `${r.type} ${shortJson(d, 60)}`;
  }

  function renderRecords() {
    recordsBody.replaceChildren(
      ...records.map((r) =>
        h(
          'tr',
          { class: r.seq === seqAt ? 'log-current' : r.seq > seqAt ? 'log-after' : '', 'data-seq': String(r.seq), 'aria-current': r.seq === seqAt ? 'true' : undefined },
          h('td', { text: String(r.seq) }),
          h('td', { text: timeText(r.time, lang) }),
          h('td', { class: 'log-what', text: summary(r), title: r.stream }),
          h('td', { text: who(r.context.user_id) }),
          h(
            'td',
            { class: 'log-ctx' },
            // the id's end tells records of one context apart at a glance
            h('span', { class: 'muted', text: `…${r.context.id.slice(-6)} ` }),
            h('button', {
              type: 'button',
              class: 'quiet',
              text: t('log.follow'),
              'aria-label': t('log.follow_of', { seq: r.seq, what: summary(r) }),
              onclick: () => follow(r.context.id),
            }),
          ),
        ),
      ),
    );
  }

  // ---- following a context ---------------------------------------------------------------
  const contextTitle = h('h2', { id: 'log-context-title', tabindex: '-1' });
  const contextBody = h('div');
  // closing (the button, or Escape inside the panel) gives the focus back to what opened it
  let opener;
  const closeContext = () => {
    contextPanel.hidden = true;
    if (opener?.isConnected) opener.focus();
  };
  contextPanel.append(contextTitle, contextBody, h('button', { type: 'button', text: t('log.close'), onclick: closeContext }));
  contextPanel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') closeContext();
  });

  async function follow(contextId) {
    opener = document.activeElement;
    contextPanel.hidden = false;
    contextTitle.textContent = t('log.context', { id: contextId });
    contextBody.replaceChildren(h('p', { role: 'status', text: t('app.loading') }));
    // the chain is read next to where the keyboard is: the title takes the focus
    contextTitle.focus();
    let r;
    try {
      r = await ask({ type: 'hearth/context', context_id: contextId });
    } catch (err) {
      contextBody.replaceChildren(h('p', { class: 'error', role: 'alert', text: t('log.failed', { message: err?.message ?? String(err) }) }));
      return;
    }
    if (!alive) return;
    const chain = h('ol', { class: 'log-chain' });
    r.chain.forEach((link, i) => chain.append(renderLink(link, i)));
    contextBody.replaceChildren(chain);
  }

  function renderLink(link, i) {
    const cause = link.cause;
    let started;
    if (!cause) started = t('log.no_records');
    else if (cause.type === 'call_service') started = t('log.by_call', { service: `${cause.data.domain}.${cause.data.service}`, data: shortJson(cause.data.service_data ?? {}, 120) });
    else if (cause.type === 'state_changed') started = t('log.by_write', { entity: cause.data?.entity_id ?? cause.stream });
    else started = t('log.by_event', { type: cause.type });
    const token = link.token;
    const tokenText = token
      ? `${token.client_name ?? token.client_id ?? token.id} (${token.token_type ?? '?'}${token.revoked ? `, ${t('log.revoked')}` : ''})`
      : t('log.no_token');
    return h(
      'li',
      { class: 'log-link' },
      h('h3', { text: i === 0 ? t('log.this_context') : t('log.parent_context') }),
      h(
        'dl',
        {},
        h('dt', { text: t('log.started_by') }),
        h('dd', { class: 'log-cause', text: started }),
        h('dt', { text: t('log.user') }),
        h('dd', { class: 'log-user', text: link.user ? (link.user.name ?? link.user.id) : t('log.system') }),
        h('dt', { text: t('log.token') }),
        h('dd', { class: 'log-token', text: tokenText, title: token?.id }),
        link.source ? h('dt', { text: t('log.source') }) : null,
        link.source ? h('dd', { class: 'log-source', text: link.source.topic ? `${link.source.via}: ${link.source.topic}` : link.source.via }) : null,
        h('dt', { text: t('log.context_id') }),
        h('dd', { text: link.context.id }),
      ),
      h('h4', { text: t('log.made', { count: link.records.length }) }),
      h('ul', { class: 'log-made' }, ...link.records.map((r) => h('li', {}, h('span', { class: 'muted', text: `#${r.seq} ` }), summary(r)))),
      link.more ? h('p', { class: 'muted', text: t('log.more_records') }) : null,
    );
  }

  // ---- wiring ----------------------------------------------------------------------------
  slider.addEventListener('input', () => setMoment(Number(slider.value), slider));
  field.addEventListener('change', () => {
    const ms = new Date(field.value).getTime();
    if (Number.isFinite(ms)) setMoment(ms, field, true);
  });
  search.addEventListener('input', renderStates);
  // to the time of the record just before / after the one the home is shown after
  earlier.addEventListener('click', () => {
    const prev = [...records].reverse().find((r) => r.seq < seqAt);
    if (prev) setMoment(prev.time, undefined, true);
  });
  later.addEventListener('click', () => {
    const next = records.find((r) => r.seq > seqAt);
    if (next) setMoment(next.time, undefined, true);
  });
  latest.addEventListener('click', async () => {
    await span();
    setMoment(last, undefined, true);
  });

  try {
    await span();
  } catch (err) {
    status.textContent = t('log.failed', { message: err?.message ?? String(err) });
    return () => (alive = false);
  }
  setMoment(last, undefined, true);
  return () => {
    alive = false;
    clearTimeout(timer);
  };
}

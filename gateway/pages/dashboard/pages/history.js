// One entity's history over a chosen period, from GET /api/history/period: numeric states as a
// line (uPlot, served by Hearth), any other states as coloured bands along the time axis, each
// with a legend in words.
import uPlot from '../vendor/uplot/uPlot.esm.js';

const PERIODS = { hour: 3600e3, day: 86400e3, week: 7 * 86400e3 };
/** States that are gaps in a line, not values. */
const GAPS = new Set(['unavailable', 'unknown', '']);
/** Fixed colours for the common states; the rest take the palette's in order of appearance. */
const STATE_COLOURS = { on: '#f4b400', off: '#7b8794', open: '#f4b400', closed: '#7b8794', locked: '#2e7d32', unlocked: '#c62828', home: '#2e7d32', not_home: '#7b8794', unavailable: '#b0b7c0', unknown: '#cfd5dc' };
const PALETTE = ['#1e88e5', '#8e24aa', '#43a047', '#fb8c00', '#00acc1', '#e53935', '#6d4c41', '#3949ab', '#c0ca33', '#d81b60'];

let cssAdded = false;
function addUplotCss() {
  if (cssAdded) return;
  cssAdded = true;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/dashboard/vendor/uplot/uPlot.min.css';
  document.head.append(link);
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('aria-') || k === 'role' || k === 'for') node.setAttribute(k, v);
    else node[k] = v;
  }
  node.append(...children);
  return node;
}

/** A label above its control (beside it, not around it: a select's options stay out of its name). */
function field(id, text, control) {
  return el('span', { class: 'field' }, el('label', { for: id }, text), control);
}

/** A Date as the value of an <input type=datetime-local> (local time, to the minute). */
function localInput(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** True when every state that is not a gap reads as a number (and there is at least one). */
export function isNumeric(states) {
  let any = false;
  for (const s of states) {
    if (GAPS.has(s.state)) continue;
    if (!Number.isFinite(Number(s.state)) || s.state.trim() === '') return false;
    any = true;
  }
  return any;
}

/** Time ranges of equal state: [{state, from, to}] in ms, the last one running to `end`. */
export function bandsOf(states, start, end) {
  const bands = [];
  for (const s of states) {
    const at = Math.max(start, Date.parse(s.last_changed ?? s.last_updated));
    const prev = bands[bands.length - 1];
    if (prev && prev.state === s.state) continue;
    if (prev) prev.to = at;
    bands.push({ state: s.state, from: at, to: end });
  }
  return bands.filter((b) => b.to > b.from);
}

const formatSpan = (ms) => {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
};

export function mount(root, ctx) {
  const { t, api } = ctx;
  const entityId = ctx.params?.[0] ?? '';
  addUplotCss();
  let plot;
  let resize;
  let generation = 0;

  const title = el('h1', {}, entityId ? t('history.of', { name: entityId }) : t('history.title'));
  const back = el('a', { href: '#/home' }, t('history.back'));
  root.append(el('p', {}, back), title);
  if (!entityId) {
    root.append(el('p', { class: 'error', role: 'alert' }, t('history.no_entity')));
    return;
  }

  const period = el('select', { id: 'history-period' });
  for (const key of ['hour', 'day', 'week', 'custom']) period.append(el('option', { value: key }, t(`history.${key}`)));
  period.value = 'day';
  const now = Date.now();
  const from = el('input', { type: 'datetime-local', id: 'history-from', value: localInput(new Date(now - PERIODS.day)) });
  const to = el('input', { type: 'datetime-local', id: 'history-to', value: localInput(new Date(now)) });
  const show = el('button', { type: 'button' }, t('history.show'));
  const custom = el(
    'span',
    { class: 'history-custom' },
    field('history-from', t('history.from'), from),
    ' ',
    field('history-to', t('history.to'), to),
    ' ',
    show,
  );
  custom.hidden = true;
  const status = el('p', { role: 'status', 'aria-live': 'polite', class: 'muted' });
  const chart = el('div', { class: 'chart' });
  chart.hidden = true;
  const legend = el('ul', { class: 'legend', 'aria-label': t('history.legend') });
  root.append(el('div', { class: 'history-bar' }, field('history-period', t('history.period'), period), custom), status, chart, legend);

  function range() {
    if (period.value !== 'custom') {
      const end = Date.now();
      return { start: end - PERIODS[period.value], end };
    }
    return { start: new Date(from.value).getTime(), end: new Date(to.value).getTime() };
  }

  function clear() {
    plot?.destroy();
    plot = undefined;
    resize?.disconnect();
    resize = undefined;
    chart.replaceChildren();
    legend.replaceChildren();
  }

  async function load() {
    const mine = ++generation;
    const { start, end } = range();
    if (!Number.isFinite(start) || !Number.isFinite(end) || start >= end) {
      clear();
      chart.hidden = true;
      status.textContent = t('history.bad_range');
      status.className = 'error';
      return;
    }
    status.className = 'muted';
    status.textContent = t('history.loading');
    const path = `/api/history/period/${encodeURIComponent(new Date(start).toISOString())}?filter_entity_id=${encodeURIComponent(entityId)}&end_time=${encodeURIComponent(new Date(end).toISOString())}`;
    let answer;
    try {
      answer = await api('GET', path);
    } catch (err) {
      if (mine !== generation) return;
      status.className = 'error';
      status.textContent = t('app.error', { message: err.message });
      return;
    }
    if (mine !== generation) return;
    clear();
    const states = (Array.isArray(answer) ? answer.find((series) => series?.[0]?.entity_id === entityId) : undefined) ?? [];
    if (states.length === 0) {
      chart.hidden = true;
      status.textContent = t('history.empty');
      return;
    }
    const name = states.find((s) => s.attributes?.friendly_name)?.attributes.friendly_name ?? entityId;
    title.textContent = t('history.of', { name });
    chart.hidden = false;
    status.textContent = t('history.points', { count: states.length });
    if (isNumeric(states)) drawLine(states, name, start, end);
    else drawBands(states, name, start, end);
  }

  function drawLine(states, name, start, end) {
    const unit = states.find((s) => s.attributes?.unit_of_measurement)?.attributes.unit_of_measurement ?? '';
    const xs = [];
    const ys = [];
    for (const s of states) {
      xs.push(Math.max(start, Date.parse(s.last_changed ?? s.last_updated)) / 1000);
      ys.push(GAPS.has(s.state) ? null : Number(s.state));
    }
    // the last value holds until the end of the period
    xs.push(end / 1000);
    ys.push(ys[ys.length - 1]);
    const style = getComputedStyle(document.documentElement);
    const fg = style.getPropertyValue('--fg').trim() || '#000';
    const line = style.getPropertyValue('--line').trim() || '#ccc';
    const accent = style.getPropertyValue('--accent').trim() || '#0b76b8';
    const label = unit ? `${name} (${unit})` : name;
    const axis = { stroke: fg, grid: { stroke: line }, ticks: { stroke: line } };
    plot = new uPlot(
      {
        width: Math.max(300, chart.clientWidth - 16),
        height: 320,
        scales: { x: { time: true, min: start / 1000, max: end / 1000 } },
        series: [{}, { label, stroke: accent, width: 2, spanGaps: false, points: { show: states.length < 60 } }],
        axes: [axis, { ...axis, label: unit || undefined }],
      },
      [xs, ys],
      chart,
    );
    chart.querySelector('canvas')?.setAttribute('aria-label', t('history.of', { name }));
    chart.querySelector('canvas')?.setAttribute('role', 'img');
    resize = new ResizeObserver(() => plot?.setSize({ width: Math.max(300, chart.clientWidth - 16), height: 320 }));
    resize.observe(chart);
    const values = ys.filter((v) => v !== null);
    const last = values[values.length - 1];
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = accent;
    legend.append(
      el('li', {}, swatch, label),
      el('li', { class: 'muted' }, `min ${Math.min(...values)} · max ${Math.max(...values)} · ${last}${unit ? ` ${unit}` : ''}`),
    );
  }

  function drawBands(states, name, start, end) {
    const bands = bandsOf(states, start, end);
    const colours = new Map();
    let next = 0;
    const colourOf = (state) => {
      if (!colours.has(state)) colours.set(state, STATE_COLOURS[state] ?? PALETTE[next++ % PALETTE.length]);
      return colours.get(state);
    };
    const span = end - start;
    const strip = el('div', { class: 'bands', role: 'img' });
    const said = [];
    const totals = new Map();
    for (const b of bands) {
      const part = el('div', { class: 'band', title: `${b.state}: ${new Date(b.from).toLocaleString()} – ${new Date(b.to).toLocaleString()}` });
      part.style.left = `${((b.from - start) / span) * 100}%`;
      part.style.width = `${((b.to - b.from) / span) * 100}%`;
      part.style.background = colourOf(b.state);
      part.dataset.state = b.state;
      strip.append(part);
      said.push(`${b.state} ${formatSpan(b.to - b.from)}`);
      totals.set(b.state, (totals.get(b.state) ?? 0) + (b.to - b.from));
    }
    strip.setAttribute('aria-label', `${t('history.of', { name })}: ${said.join(', ')}`);
    const axis = el('div', { class: 'band-axis' }, el('span', {}, new Date(start).toLocaleString()), el('span', {}, new Date(end).toLocaleString()));
    chart.append(strip, axis);
    for (const [state, total] of totals) {
      const swatch = el('span', { class: 'swatch' });
      swatch.style.background = colourOf(state);
      legend.append(el('li', {}, swatch, `${state} (${formatSpan(total)})`));
    }
  }

  period.addEventListener('change', () => {
    custom.hidden = period.value !== 'custom';
    if (period.value !== 'custom') load();
  });
  show.addEventListener('click', load);
  load();

  return () => {
    generation++;
    clear();
  };
}

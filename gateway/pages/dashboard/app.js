// The dashboard's shell: signs in through Hearth's login page (the original's OAuth flow, as
// home-assistant-js-websocket's getAuth walks it), opens the WebSocket, and mounts one page at a
// time by the location's hash (#/home, #/history/<entity_id>, #/log, #/operator). Pages are
// modules in ./pages/ exporting mount(el, ctx) → optional unmount().
import { getAuth, createConnection, getUser, getConfig, ERR_INVALID_AUTH, ERR_CANNOT_CONNECT } from './vendor/haws/index.js';
import { translator } from './i18n.js';
import { chooseLanguage, readStoredLanguage, followStoredLanguage, languageControl } from './language.js';

const TOKENS_KEY = 'hearth.dashboard.tokens';
const DEFAULT_PAGE = 'home';
/** pages the hash may name; anything else is "no such page", never an import of an odd path */
const PAGES = new Set(['home', 'history', 'log', 'operator']);

const $ = (id) => document.getElementById(id);

function loadTokens() {
  try {
    return JSON.parse(localStorage.getItem(TOKENS_KEY) ?? 'null') ?? undefined;
  } catch {
    return undefined;
  }
}

function saveTokens(data) {
  if (data) localStorage.setItem(TOKENS_KEY, JSON.stringify(data));
  else localStorage.removeItem(TOKENS_KEY);
}

/** The OAuth callback's query (?auth_callback=1&code=…&state=…) off the address bar, keeping the hash. */
function dropCallbackQuery() {
  if (location.search.includes('auth_callback')) history.replaceState(null, '', location.pathname + location.hash);
}

const HASH_KEY = 'hearth.dashboard.hash';

async function signIn() {
  // the login page sends the browser back without the hash: the page asked for is kept aside
  if (!location.search.includes('auth_callback') && !loadTokens() && location.hash) sessionStorage.setItem(HASH_KEY, location.hash);
  try {
    const auth = await getAuth({ hassUrl: location.origin, saveTokens, loadTokens: async () => loadTokens() });
    const kept = sessionStorage.getItem(HASH_KEY);
    sessionStorage.removeItem(HASH_KEY);
    if (kept && location.search.includes('auth_callback')) history.replaceState(null, '', location.pathname + location.search + kept);
    dropCallbackQuery();
    return auth;
  } catch (err) {
    // a stale callback (its code already used) or refused tokens: start the flow afresh
    saveTokens(null);
    dropCallbackQuery();
    if (err === ERR_INVALID_AUTH || typeof err === 'number') return getAuth({ hassUrl: location.origin, saveTokens });
    throw err;
  }
}

// ---- icons ----------------------------------------------------------------------------------

const SVG = 'http://www.w3.org/2000/svg';
/** path data by mdi name, or a promise of it while it is fetched; null when the set lacks it */
const iconCache = new Map();

function fetchIconPath(name) {
  let entry = iconCache.get(name);
  if (entry === undefined) {
    entry = fetch(`/dashboard/icons/${encodeURIComponent(name)}.svg`)
      .then((r) => (r.ok ? r.text() : ''))
      .then((text) => /\sd="([^"]*)"/.exec(text)?.[1] ?? null)
      .catch(() => null)
      .then((d) => {
        iconCache.set(name, d);
        return d;
      });
    iconCache.set(name, entry);
  }
  return entry;
}

/**
 * An inline <svg> of an mdi icon ('mdi:lightbulb' or 'lightbulb'), drawn in the text colour. It
 * is returned at once and gets its path when the icon has arrived; `fallback` is drawn instead
 * when the set has no such icon.
 */
function icon(name, fallback) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.classList.add('icon');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  const plain = String(name ?? '').replace(/^mdi:/, '');
  const draw = (d) => {
    if (d) path.setAttribute('d', d);
    else if (fallback && fallback !== plain) {
      const other = iconCache.get(fallback);
      if (typeof other === 'string') path.setAttribute('d', other);
      else fetchIconPath(fallback).then((d2) => d2 && path.setAttribute('d', d2));
    }
  };
  const known = iconCache.get(plain);
  if (typeof known === 'string' || known === null) draw(known);
  else fetchIconPath(plain).then(draw);
  return svg;
}

// ---- REST -----------------------------------------------------------------------------------

function restClient(auth) {
  return async (method, path, body) => {
    if (auth.expired) await auth.refreshAccessToken();
    const res = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${auth.accessToken}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let value;
    try {
      value = text ? JSON.parse(text) : null;
    } catch {
      value = text;
    }
    if (!res.ok) {
      const err = new Error((value && typeof value === 'object' && value.message) || `${res.status} ${text}`.trim());
      err.status = res.status;
      throw err;
    }
    return value;
  };
}

// ---- the shell ------------------------------------------------------------------------------

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [name, ...rest] = raw.split('/');
  let params;
  try {
    params = rest.map(decodeURIComponent);
  } catch {
    params = rest;
  }
  return { name: name || DEFAULT_PAGE, params };
}

function renderNav(t, showOperator) {
  const nav = $('nav');
  nav.setAttribute('aria-label', t('nav.main'));
  const items = [['home', t('nav.home')], ['log', t('nav.log')]];
  if (showOperator) items.push(['operator', t('nav.operator')]);
  const ul = document.createElement('ul');
  for (const [name, label] of items) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `#/${name}`;
    a.textContent = label;
    a.dataset.page = name;
    li.append(a);
    ul.append(li);
  }
  nav.replaceChildren(ul);
}

function markCurrent(name) {
  for (const a of $('nav').querySelectorAll('a')) {
    // history belongs to home: its entry stays marked while a chart is open
    const current = a.dataset.page === name || (name === 'history' && a.dataset.page === 'home');
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function main() {
  const status = $('conn');
  let auth;
  try {
    auth = await signIn();
  } catch (err) {
    $('boot').textContent = `Signing in failed: ${err?.message ?? err}`;
    return;
  }
  let conn;
  try {
    conn = await createConnection({ auth });
  } catch (err) {
    if (err === ERR_INVALID_AUTH) {
      // the stored token was refused (revoked, or another Hearth's): sign in again
      saveTokens(null);
      location.reload();
      return;
    }
    $('boot').textContent = err === ERR_CANNOT_CONNECT ? 'Cannot connect to Hearth.' : `Cannot connect: ${err?.message ?? err}`;
    return;
  }

  const [user, config] = await Promise.all([getUser(conn), getConfig(conn).catch(() => ({}))]);
  // the user's own language setting, the browser's, the core's (language.js); followed live below
  let lang = chooseLanguage(await readStoredLanguage(conn), config);
  let t = translator(lang);
  document.documentElement.lang = lang;
  $('skip').textContent = t('app.skip');

  const signout = $('signout');
  signout.textContent = t('app.signout');
  signout.hidden = false;
  signout.addEventListener('click', async () => {
    try {
      await auth.revoke();
    } catch {
      // signed out here either way
    }
    saveTokens(null);
    location.href = '/';
  });
  $('who').textContent = user.name ?? '';

  conn.addEventListener('disconnected', () => (status.textContent = t('app.reconnecting')));
  conn.addEventListener('ready', () => (status.textContent = t('app.connected')));
  conn.addEventListener('reconnect-error', (_c, err) => {
    if (err === ERR_INVALID_AUTH) {
      saveTokens(null);
      location.reload();
    }
  });

  // the operator pages are there when a supervisor runs this Hearth, and for admins only
  const showOperator = Boolean(user.is_admin) && Array.isArray(config.components) && config.components.includes('hassio');
  renderNav(t, showOperator);
  let langControl = languageControl(conn, t, lang);
  signout.before(langControl);

  const api = restClient(auth);
  const main = $('main');
  let unmount;
  let generation = 0;

  const navigate = (hash) => {
    const target = hash.startsWith('#') ? hash : `#${hash}`;
    if (location.hash === target) route();
    else location.hash = target;
  };

  async function route() {
    const mine = ++generation;
    const { name, params } = parseHash();
    try {
      unmount?.();
    } catch (err) {
      console.error('unmount failed', err);
    }
    unmount = undefined;
    markCurrent(name);
    const el = document.createElement('div');
    el.className = `page page-${name}`;
    main.replaceChildren(el);
    if (!PAGES.has(name)) {
      el.append(Object.assign(document.createElement('p'), { className: 'error', textContent: t('app.not_found', { name }) }));
      return;
    }
    el.append(Object.assign(document.createElement('p'), { textContent: t('app.loading'), role: 'status' }));
    let page;
    try {
      page = await import(`./pages/${name}.js`);
    } catch (err) {
      if (mine !== generation) return;
      el.replaceChildren(Object.assign(document.createElement('p'), { className: 'error', textContent: t('app.not_found', { name }) }));
      return;
    }
    if (mine !== generation) return;
    el.replaceChildren();
    const ctx = { conn, auth, api, navigate, icon, t, lang, user: { id: user.id, name: user.name, is_admin: user.is_admin }, config, params };
    try {
      const result = await page.mount(el, ctx);
      if (mine !== generation) result?.();
      else unmount = typeof result === 'function' ? result : undefined;
    } catch (err) {
      console.error(err);
      if (mine === generation) el.append(Object.assign(document.createElement('p'), { className: 'error', role: 'alert', textContent: t('app.error', { message: err?.message ?? String(err) }) }));
    }
  }

  // another tab or device changing the user's language switches this page: relabel the shell, remount the page
  const applyLanguage = (stored) => {
    const next = chooseLanguage(stored, config);
    if (next === lang) return;
    lang = next;
    t = translator(lang);
    document.documentElement.lang = lang;
    $('skip').textContent = t('app.skip');
    signout.textContent = t('app.signout');
    renderNav(t, showOperator);
    const control = languageControl(conn, t, lang);
    // a keyboard user who just chose keeps their place
    const hadFocus = langControl.contains(document.activeElement);
    langControl.replaceWith(control);
    langControl = control;
    if (hadFocus) control.querySelector('select')?.focus();
    route();
  };
  followStoredLanguage(conn, applyLanguage);

  window.addEventListener('hashchange', route);
  // "/" anywhere outside a field focuses the page's search box, when it has one
  document.addEventListener('keydown', (e) => {
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    const search = main.querySelector('input[type=search]');
    if (search) {
      e.preventDefault();
      search.focus();
    }
  });
  if (!location.hash) history.replaceState(null, '', `#/${DEFAULT_PAGE}`);
  document.body.dataset.ready = 'true';
  route();
}

main();

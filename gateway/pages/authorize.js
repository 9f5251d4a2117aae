// The login page of GET /auth/authorize. It walks GET /auth/providers and the login-flow API
// (POST /auth/login_flow, POST /auth/login_flow/<flow_id>) and sends the browser back to the
// client's redirect_uri with the authorization code. Whatever comes from the query or from
// the server is put into the page as text (textContent, attribute values), never as markup.
'use strict';

(() => {
  const query = new URLSearchParams(location.search);
  const clientId = query.get('client_id');
  const redirectUri = query.get('redirect_uri');
  const state = query.get('state');

  const titleEl = document.getElementById('title');
  const clientEl = document.getElementById('client');
  const statusEl = document.getElementById('status');
  const errorEl = document.getElementById('error');
  const contentEl = document.getElementById('content');
  const othersEl = document.getElementById('others');

  const STEP_TITLES = {
    init: 'Log in',
    mfa: 'Two-factor authentication',
    select_mfa_module: 'Choose a method',
  };
  const SUBMIT_LABELS = { init: 'Log in', mfa: 'Verify' };
  const FIELD_LABELS = {
    username: 'Username',
    password: 'Password',
    code: 'Code',
    user: 'User',
    multi_factor_auth_module: 'Method',
  };
  const ERROR_TEXTS = {
    invalid_auth: 'Invalid username or password',
    invalid_code: 'Invalid code',
    invalid_auth_module: 'That method cannot be used; choose another',
    invalid_user: 'That user cannot log in this way',
    unknown_error: 'Something went wrong; try again',
  };
  const ABORT_TEXTS = {
    too_many_retry: 'Too many attempts; start again',
    login_expired: 'The login took too long and has expired; start again',
    not_allowed: 'Logging in this way is not allowed from your network',
    not_whitelisted: 'Logging in this way is not allowed from your network',
    unknown_error: 'Something went wrong; start again',
  };
  // a failed attempt leaves everything the user typed in place except these
  const SECRET_FIELDS = new Set(['password', 'code']);

  let providers = [];
  /** the provider whose flow is on screen */
  let provider = null;
  /** the flow the server still holds for us, deleted when the user switches away from it */
  let flowId = null;
  /** a flow start put off by Hearth's login throttle (429), dropped when the user goes elsewhere */
  let pendingStart = null;
  /** bumped when the page starts over or switches provider: answers to older requests are dropped */
  let generation = 0;

  class PageError extends Error {}

  // building the page -------------------------------------------------------------------------

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (key === 'text') node.textContent = value;
      else if (value === true) node.setAttribute(key, '');
      else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, String(value));
    }
    node.append(...children);
    return node;
  }

  const humanize = (key) => {
    const words = String(key).replace(/_/g, ' ');
    return words.charAt(0).toUpperCase() + words.slice(1);
  };
  const labelOf = (name) => FIELD_LABELS[name] ?? humanize(name);
  const errorText = (key) => ERROR_TEXTS[key] ?? humanize(key);

  function setTitle(text) {
    titleEl.textContent = text;
    document.title = `${text} – Hearth`;
  }

  function setStatus(text) {
    statusEl.textContent = text;
    statusEl.hidden = !text;
  }

  function showError(text) {
    errorEl.textContent = text;
    errorEl.hidden = !text;
  }

  function clearScreen() {
    setStatus('');
    showError('');
    contentEl.replaceChildren();
  }

  /** An end of the road: the reason, and a way to begin again when beginning again can help. */
  function fatal(text, canRestart) {
    clearScreen();
    showError(text);
    if (canRestart) {
      const again = el('button', { type: 'button', class: 'primary', text: 'Start over' });
      again.addEventListener('click', restart);
      contentEl.append(again);
      again.focus();
    }
  }

  // talking to Hearth -------------------------------------------------------------------------

  // relative to this page (/auth/authorize), so the page also works behind a proxy that serves
  // Hearth under a path prefix
  async function call(method, path, body) {
    let res;
    try {
      res = await fetch(new URL(path, location.href), {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch {
      throw new PageError('Hearth cannot be reached; check the connection and try again');
    }
    let data = null;
    try {
      data = await res.json();
    } catch {
      // an answer without JSON is described by its status below
    }
    return { ok: res.ok, status: res.status, data, retryAfter: retryAfterSeconds(res) };
  }

  /** Seconds a 429 asks to wait; Hearth sends whole seconds. */
  function retryAfterSeconds(res) {
    const seconds = Number.parseInt(res.headers.get('Retry-After') ?? '', 10);
    return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 1), 3600) : 1;
  }

  const httpErrorText = (reply) =>
    reply.data && typeof reply.data.message === 'string' ? reply.data.message : `Hearth answered with an error (${reply.status})`;

  function abandonFlow() {
    if (flowId === null) return;
    const gone = flowId;
    flowId = null;
    call('DELETE', `login_flow/${encodeURIComponent(gone)}`).catch(() => {});
  }

  // the steps ---------------------------------------------------------------------------------

  function cancelPendingStart() {
    if (pendingStart !== null) clearTimeout(pendingStart);
    pendingStart = null;
  }

  async function start() {
    const mine = ++generation;
    cancelPendingStart();
    abandonFlow();
    provider = null;
    othersEl.hidden = true;
    clearScreen();
    setTitle('Log in');
    if (!clientId || !redirectUri) {
      fatal('This login link is incomplete: it needs a client_id and a redirect_uri. Go back to the app and try again.', false);
      return;
    }
    clientEl.textContent = `The app at ${clientId} asks you to log in to Hearth.`;
    clientEl.hidden = false;
    setStatus('Loading…');
    const reply = await call('GET', 'providers');
    if (mine !== generation) return;
    if (!reply.ok) {
      if (reply.data && reply.data.code === 'onboarding_required') {
        fatal('Hearth is not set up yet: finish onboarding, then log in.', false);
      } else fatal(httpErrorText(reply), true);
      return;
    }
    providers = reply.data && Array.isArray(reply.data.providers) ? reply.data.providers : [];
    if (providers.length === 0) fatal('No way of logging in is configured.', false);
    else if (providers.length === 1) await startFlow(providers[0]);
    else showProviderChoice();
  }

  function providerButton(p, className) {
    const button = el('button', { type: 'button', class: className, text: `Log in with ${p.name}` });
    button.addEventListener('click', () => guarded(startFlow(p)));
    return button;
  }

  function showProviderChoice() {
    clearScreen();
    setTitle('Log in');
    contentEl.append(
      el('p', { id: 'choose', text: 'Choose how to log in:' }),
      el('ul', { class: 'choices', 'aria-labelledby': 'choose' }, ...providers.map((p) => el('li', {}, providerButton(p, 'primary')))),
    );
  }

  function showOtherProviders() {
    const others = providers.filter((p) => p !== provider);
    othersEl.replaceChildren(...others.map((p) => el('p', {}, providerButton(p, 'link'))));
    othersEl.hidden = others.length === 0;
  }

  async function startFlow(p) {
    const mine = ++generation;
    cancelPendingStart();
    abandonFlow();
    provider = p;
    clearScreen();
    setStatus('Loading…');
    showOtherProviders();
    const reply = await call('POST', 'login_flow', {
      client_id: clientId,
      handler: [p.type, p.id ?? null],
      redirect_uri: redirectUri,
      type: 'authorize',
    });
    if (mine !== generation) return;
    if (reply.status === 429) {
      // opening a form sends no credentials, so it is simply tried again once the wait is over
      clearScreen();
      showError(httpErrorText(reply));
      setStatus(`Trying again in ${reply.retryAfter} s…`);
      pendingStart = setTimeout(() => guarded(startFlow(p)), reply.retryAfter * 1000);
      return;
    }
    showStep(reply, null);
  }

  function restart() {
    guarded(provider ? startFlow(provider) : start());
  }

  /** `kept`: the step just submitted and its values, to give back what a failed attempt typed. */
  function showStep(reply, kept) {
    if (!reply.ok) {
      flowId = null;
      fatal(httpErrorText(reply), true);
      return;
    }
    const step = reply.data || {};
    switch (step.type) {
      case 'form':
        flowId = step.flow_id;
        showForm(step, kept && kept.stepId === step.step_id ? kept.values : {});
        return;
      case 'create_entry':
        flowId = null;
        finish(step.result);
        return;
      case 'abort':
        flowId = null;
        fatal(ABORT_TEXTS[step.reason] ?? `The login was stopped (${humanize(step.reason)}); start again`, true);
        return;
      default:
        flowId = null;
        fatal('Hearth answered with a step this page does not know', true);
    }
  }

  // forms -------------------------------------------------------------------------------------

  /** `[value, label]` pairs from what a select's `options` may be: pairs, plain values, or a map. */
  function optionsOf(options) {
    if (Array.isArray(options)) return options.map((o) => (Array.isArray(o) ? [o[0], String(o[1] ?? o[0])] : [o, String(o)]));
    if (options && typeof options === 'object') return Object.entries(options).map(([value, label]) => [value, String(label)]);
    return [];
  }

  /** One field of a data_schema: its wrapper, and how to read what the user gave. */
  function fieldFor(field, error, keptValue) {
    const name = String(field.name);
    const id = `field-${name}`;
    const required = field.required === true;
    const wrap = el('div', { class: 'field' });
    let control;
    let read;

    if (field.type === 'select') {
      const options = optionsOf(field.options);
      control = el('select', { id, name, required });
      options.forEach(([value, label], i) => {
        const option = el('option', { value: i, text: label });
        if (keptValue !== undefined ? value === keptValue : 'default' in field && value === field.default) option.selected = true;
        control.append(option);
      });
      wrap.append(el('label', { for: id, text: labelOf(name) }), control);
      // option values are indexes, so a value of any JSON type goes back as the server sent it
      read = () => (control.selectedIndex < 0 ? undefined : options[control.selectedIndex][0]);
    } else if (field.type === 'boolean') {
      control = el('input', { id, name, type: 'checkbox' });
      control.checked = keptValue !== undefined ? keptValue === true : field.default === true;
      wrap.classList.add('checkbox');
      wrap.append(control, ' ', el('label', { for: id, text: labelOf(name) }));
      read = () => control.checked;
    } else {
      const numeric = field.type === 'integer' || field.type === 'float';
      const attrs = { id, name, type: numeric ? 'number' : 'text', required, autocomplete: 'off' };
      if (field.type === 'integer') attrs.step = 1;
      if (name === 'username') Object.assign(attrs, { autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' });
      if (name === 'password') Object.assign(attrs, { type: 'password', autocomplete: 'current-password' });
      if (name === 'code') Object.assign(attrs, { autocomplete: 'one-time-code', inputmode: 'numeric', spellcheck: 'false' });
      control = el('input', attrs);
      if (keptValue !== undefined && !SECRET_FIELDS.has(name)) control.value = String(keptValue);
      else if (typeof field.default === 'string' || typeof field.default === 'number') control.value = String(field.default);
      wrap.append(el('label', { for: id, text: labelOf(name) }), control);
      read = () => {
        if (control.value === '' && !required) return undefined;
        return numeric && control.value !== '' ? Number(control.value) : control.value;
      };
    }

    if (error !== undefined) {
      const errorId = `${id}-error`;
      control.setAttribute('aria-invalid', 'true');
      control.setAttribute('aria-describedby', errorId);
      wrap.append(el('p', { id: errorId, class: 'field-error', text: errorText(error) }));
    }
    return { name, wrap, control, read, invalid: error !== undefined };
  }

  function showForm(step, keptValues) {
    clearScreen();
    setTitle(STEP_TITLES[step.step_id] ?? humanize(step.step_id ?? 'Log in'));
    const schema = Array.isArray(step.data_schema) ? step.data_schema.filter((f) => f && typeof f.name === 'string') : [];
    const errors = step.errors && typeof step.errors === 'object' ? step.errors : {};
    const names = new Set(schema.map((f) => f.name));

    // errors not tied to a field of this form (base, or a key the form lacks) go above it
    const general = Object.entries(errors)
      .filter(([key]) => !names.has(key))
      .map(([, value]) => errorText(value));
    showError(general.join('. '));

    const placeholders = step.description_placeholders || {};
    const description =
      step.step_id === 'mfa' && placeholders.mfa_module_name
        ? el('p', { id: 'description', text: `Enter the code from ${placeholders.mfa_module_name}.` })
        : undefined;
    if (description) contentEl.append(description);

    const fields = schema.map((f) => fieldFor(f, errors[f.name], keptValues[f.name]));
    const submit = el('button', { type: 'submit', class: 'primary', text: SUBMIT_LABELS[step.step_id] ?? 'Next' });
    const form = el('form', { 'aria-labelledby': 'title' }, ...fields.map((f) => f.wrap), submit);
    if (description) form.setAttribute('aria-describedby', 'description');

    let submitting = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (submitting) return;
      submitting = true;
      submit.disabled = true;
      form.setAttribute('aria-busy', 'true');
      const values = {};
      for (const f of fields) {
        const value = f.read();
        if (value !== undefined) values[f.name] = value;
      }
      showError('');
      setStatus('Checking…');
      const mine = generation;
      const sendable = () => {
        submitting = false;
        submit.disabled = false;
        form.removeAttribute('aria-busy');
      };
      call('POST', `login_flow/${encodeURIComponent(step.flow_id)}`, { ...values, client_id: clientId }).then(
        (reply) => {
          if (mine !== generation) return;
          if (reply.status !== 429) {
            showStep(reply, { stepId: step.step_id, values });
            return;
          }
          // Hearth's login throttle: the flow is untouched, so the form stays; sending it again
          // before the wait is over would only count as one more failure
          setStatus('');
          showError(httpErrorText(reply));
          setTimeout(sendable, reply.retryAfter * 1000);
        },
        (err) => {
          if (mine !== generation) return;
          // the form stays as it was, so the user can send it again
          sendable();
          setStatus('');
          showError(err instanceof PageError ? err.message : 'Something went wrong; try again');
        },
      );
    });

    contentEl.append(form);
    const first = fields.find((f) => f.invalid) ?? fields.find((f) => f.control.value === '' || SECRET_FIELDS.has(f.name)) ?? fields[0];
    if (first) first.control.focus();
  }

  // the way back to the app -------------------------------------------------------------------

  /** redirect_uri with code (and state) added to its query, before any fragment. */
  function callbackUrl(code) {
    const hash = redirectUri.indexOf('#');
    const base = hash < 0 ? redirectUri : redirectUri.slice(0, hash);
    const fragment = hash < 0 ? '' : redirectUri.slice(hash);
    let added = `code=${encodeURIComponent(code)}`;
    if (state !== null) added += `&state=${encodeURIComponent(state)}`;
    const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
    return base + separator + added + fragment;
  }

  function finish(code) {
    if (typeof code !== 'string' || code === '') {
      fatal('Hearth finished the login without a code', true);
      return;
    }
    let scheme;
    try {
      scheme = new URL(redirectUri).protocol;
    } catch {
      scheme = '';
    }
    // Hearth checked redirect_uri against client_id before the flow began; this only makes
    // sure the page can never be made to run a script URL whatever that check allows
    if (scheme === '' || /^(javascript|data|vbscript|blob):$/i.test(scheme)) {
      fatal('The redirect_uri of this login link cannot be opened', false);
      return;
    }
    clearScreen();
    othersEl.hidden = true;
    setTitle('Logged in');
    setStatus('Logged in; returning to the app…');
    location.assign(callbackUrl(code));
  }

  function guarded(promise) {
    promise.catch((err) => fatal(err instanceof PageError ? err.message : 'Something went wrong; start again', true));
  }

  // a page restored from the back-forward cache shows a finished login: begin again instead
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) guarded(start());
  });

  guarded(start());
})();

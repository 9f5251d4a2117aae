// The operator pages (#/operator), for admins when a supervisor runs this Hearth: its jobs with
// their progress (asked again every second while the page is open), the resolution center with
// its issues and the suggestions to apply or dismiss, and the apps with start/stop and their
// ingress panels. Everything goes through the core's `supervisor/api` command, as the original's
// frontend does: the page holds no supervisor token.

import { h } from '../dom.js';

const JOBS_EVERY_MS = 1000;
const RESOLUTION_EVERY_MS = 10_000;

const errorText = (err) => (err && typeof err === 'object' ? err.message || err.code || JSON.stringify(err) : String(err));

export function mount(el, ctx) {
  const { t, conn, user, config } = ctx;
  if (!document.querySelector('link[data-page=operator]')) {
    document.head.append(h('link', { rel: 'stylesheet', href: '/dashboard/pages/operator.css', 'data-page': 'operator' }));
  }
  el.append(h('h1', { text: t('op.title') }));
  if (!user.is_admin) {
    el.append(h('p', { class: 'error', text: t('op.admin_only') }));
    return undefined;
  }
  if (!Array.isArray(config?.components) || !config.components.includes('hassio')) {
    el.append(h('p', { class: 'muted', text: t('op.no_supervisor') }));
    return undefined;
  }

  let stopped = false;
  const timers = new Set();
  const later = (fn, ms) => {
    const id = setTimeout(() => {
      timers.delete(id);
      if (!stopped) fn();
    }, ms);
    timers.add(id);
  };
  const call = (endpoint, method = 'get', data) =>
    conn.sendMessagePromise({ type: 'supervisor/api', endpoint, method, ...(data ? { data } : {}) });

  // what an action did, read out by screen readers; failures as alerts
  const status = h('p', { id: 'op-status', class: 'op-status', role: 'status', 'aria-live': 'polite' });
  const alert = h('p', { id: 'op-alert', class: 'error', role: 'alert' });
  el.append(status, alert);
  const say = (text) => {
    alert.textContent = '';
    status.textContent = text;
  };
  const fail = (text) => {
    status.textContent = '';
    alert.textContent = text;
  };

  const section = (id, title) => {
    const heading = h('h2', { id: `${id}-title`, text: title, tabindex: '-1' });
    const body = h('div', { class: 'op-body' });
    el.append(h('section', { id, class: 'op-section', 'aria-labelledby': `${id}-title` }, heading, body));
    return { heading, body };
  };
  const jobs = section('op-jobs', t('op.jobs'));
  const resolution = section('op-resolution', t('op.resolution'));
  const apps = section('op-apps', t('op.apps'));

  // ---- jobs ----------------------------------------------------------------------------------

  function renderJob(job) {
    const pct = Math.max(0, Math.min(100, Number(job.progress) || 0));
    const name = job.name ?? t('op.unnamed');
    const state = job.done ? (job.errors?.length ? t('op.job_failed') : t('op.job_done')) : t('op.job_running');
    const li = h(
      'li',
      { class: `op-job${job.done ? ' done' : ''}`, 'data-uuid': job.uuid },
      h('span', { class: 'op-job-name', text: name }),
      job.reference ? h('span', { class: 'muted op-job-ref', text: job.reference }) : null,
      h('span', { class: 'op-job-stage', text: job.stage ? t('op.stage', { stage: job.stage }) : '' }),
      h('progress', { max: 100, value: pct, 'aria-label': t('op.progress_of', { name }) }),
      h('span', { class: 'op-job-progress', text: `${Math.round(pct)} %` }),
      h('span', { class: 'op-job-state', text: state }),
    );
    if (job.errors?.length) li.append(h('ul', { class: 'op-job-errors error' }, job.errors.map((e) => h('li', { text: e.message ?? e.type ?? JSON.stringify(e) }))));
    if (job.child_jobs?.length) li.append(h('ul', { class: 'op-jobs', 'aria-label': t('op.children_of', { name }) }, job.child_jobs.map(renderJob)));
    return li;
  }

  let jobsFailed = false;
  async function refreshJobs() {
    // a tab out of sight asks nothing; it catches up within a second of being shown again
    if (document.hidden) return later(refreshJobs, JOBS_EVERY_MS);
    try {
      const data = await call('/jobs/info');
      if (stopped) return;
      jobsFailed = false;
      const list = Array.isArray(data?.jobs) ? data.jobs : [];
      jobs.body.replaceChildren(list.length ? h('ul', { class: 'op-jobs' }, list.map(renderJob)) : h('p', { class: 'muted op-empty', text: t('op.no_jobs') }));
    } catch (err) {
      if (stopped) return;
      // kept on screen once, not flickered every second while the supervisor is away
      if (!jobsFailed) jobs.body.replaceChildren(h('p', { class: 'error', text: t('op.load_failed', { message: errorText(err) }) }));
      jobsFailed = true;
    }
    later(refreshJobs, JOBS_EVERY_MS);
  }

  // ---- resolution center ---------------------------------------------------------------------

  const describe = (x) => [x.type, x.context && x.context !== 'system' ? x.context : null, x.reference].filter(Boolean).join(' · ');

  async function act(endpoint, method, done, failed, heading) {
    try {
      await call(endpoint, method);
      say(done);
    } catch (err) {
      fail(t(failed, { message: errorText(err) }));
    }
    await Promise.all([refreshResolution(), refreshApps()]);
    // the button pressed is gone with the list redrawn: the keyboard carries on from the section
    if (heading && (!document.activeElement || document.activeElement === document.body)) heading.focus();
  }

  function renderResolution(info) {
    const parts = [];
    const flags = (key, list) => (list?.length ? h('p', { class: `op-${key}` }, h('strong', { text: t(`op.${key}`) }), ' ', list.join(', ')) : null);
    parts.push(flags('unsupported', info.unsupported), flags('unhealthy', info.unhealthy));

    parts.push(h('h3', { text: t('op.issues') }));
    const issues = info.issues ?? [];
    parts.push(issues.length ? h('ul', { class: 'op-issues' }, issues.map((i) => h('li', { class: 'op-issue', 'data-uuid': i.uuid, text: describe(i) }))) : h('p', { class: 'muted op-empty', text: t('op.no_issues') }));

    parts.push(h('h3', { text: t('op.suggestions') }));
    const suggestions = info.suggestions ?? [];
    parts.push(
      suggestions.length
        ? h(
            'ul',
            { class: 'op-suggestions' },
            suggestions.map((s) => {
              const what = describe(s);
              return h(
                'li',
                { class: 'op-suggestion', 'data-uuid': s.uuid },
                h('span', { class: 'op-suggestion-what', text: what }),
                s.auto ? h('span', { class: 'muted', text: t('op.auto') }) : null,
                h('button', { type: 'button', text: t('op.apply'), 'aria-label': t('op.apply_of', { what }), onclick: () => act(`/resolution/suggestion/${encodeURIComponent(s.uuid)}`, 'post', t('op.applied', { what }), 'op.apply_failed', resolution.heading) }),
                h('button', { type: 'button', class: 'quiet', text: t('op.dismiss'), 'aria-label': t('op.dismiss_of', { what }), onclick: () => act(`/resolution/suggestion/${encodeURIComponent(s.uuid)}`, 'delete', t('op.dismissed', { what }), 'op.dismiss_failed', resolution.heading) }),
              );
            }),
          )
        : h('p', { class: 'muted op-empty', text: t('op.no_suggestions') }),
    );

    parts.push(h('h3', { text: t('op.checks') }));
    const checks = info.checks ?? [];
    parts.push(
      h(
        'ul',
        { class: 'op-checks' },
        checks.map((c) => h('li', { class: 'op-check' }, h('span', { text: c.slug }), ' ', h('span', { class: 'muted', text: c.enabled ? t('op.enabled') : t('op.disabled') }))),
      ),
    );
    resolution.body.replaceChildren(...parts.filter(Boolean));
  }

  async function refreshResolution() {
    try {
      const info = await call('/resolution/info');
      if (!stopped) renderResolution(info ?? {});
    } catch (err) {
      if (!stopped) resolution.body.replaceChildren(h('p', { class: 'error', text: t('op.load_failed', { message: errorText(err) }) }));
    }
  }

  async function pollResolution() {
    await refreshResolution();
    later(pollResolution, RESOLUTION_EVERY_MS);
  }

  // ---- apps ----------------------------------------------------------------------------------

  /**
   * The installed apps: the supervisor's app list where it has one; one that manages no apps
   * yet still names the installed ones (none) in its own info.
   */
  async function appList() {
    try {
      const data = await call('/addons');
      return (data?.addons ?? data?.apps ?? []).filter((a) => a.installed !== false && a.version !== null);
    } catch (err) {
      const info = await call('/supervisor/info');
      return info?.addons ?? [];
    }
  }

  async function renderApp(app) {
    const name = app.name ?? app.slug;
    let detail = {};
    try {
      detail = (await call(`/addons/${encodeURIComponent(app.slug)}/info`)) ?? {};
    } catch {
      // the list's summary is enough to start and stop it
    }
    const started = (detail.state ?? app.state) === 'started';
    const path = `/addons/${encodeURIComponent(app.slug)}`;
    const li = h(
      'li',
      { class: 'op-app', 'data-slug': app.slug },
      h('span', { class: 'op-app-name', text: name }),
      h('span', { class: 'op-app-state', text: detail.state ?? app.state ?? '' }),
      h('span', { class: 'muted op-app-version', text: app.version ?? '' }),
      started
        ? h('button', { type: 'button', text: t('op.stop'), 'aria-label': t('op.stop_of', { name }), onclick: () => act(`${path}/stop`, 'post', t('op.stopped', { name }), 'op.action_failed', apps.heading) })
        : h('button', { type: 'button', text: t('op.start'), 'aria-label': t('op.start_of', { name }), onclick: () => act(`${path}/start`, 'post', t('op.started', { name }), 'op.action_failed', apps.heading) }),
    );
    // an app with ingress opens its own page through the core
    if (detail.ingress && detail.ingress_url) li.append(h('a', { class: 'op-ingress', href: detail.ingress_url, target: '_blank', rel: 'noopener', text: t('op.open', { name }), onclick: (e) => openIngress(e, detail.ingress_url, name) }));
    return { li, panel: detail.ingress && detail.ingress_panel ? { name, url: detail.ingress_url } : null };
  }

  /**
   * Opens an app's page with the `ingress_session` cookie the supervisor's proxy asks for: a
   * session made for this user (`/ingress/session`), as the original's frontend sets it.
   */
  async function openIngress(event, url, name) {
    event.preventDefault();
    // the tab is opened now, while the click still counts as the user's, and sent on once the cookie is set
    const tab = window.open('', '_blank');
    try {
      const { session } = await call('/ingress/session', 'post');
      document.cookie = `ingress_session=${session}; path=/api/hassio_ingress/; SameSite=Strict${location.protocol === 'https:' ? '; Secure' : ''}`;
      if (tab) {
        tab.opener = null;
        tab.location.href = url;
      } else location.href = url;
    } catch (err) {
      tab?.close();
      fail(t('op.open_failed', { name, message: errorText(err) }));
    }
  }

  async function refreshApps() {
    try {
      const list = await appList();
      const rendered = await Promise.all(list.map(renderApp));
      if (stopped) return;
      const panels = rendered.map((r) => r.panel).filter((p) => p && p.url);
      apps.body.replaceChildren(
        list.length ? h('ul', { class: 'op-apps' }, rendered.map((r) => r.li)) : h('p', { class: 'muted op-empty', text: t('op.no_apps') }),
        h('h3', { text: t('op.panels') }),
        panels.length
          ? h('ul', { class: 'op-panels' }, panels.map((p) => h('li', {}, h('a', { href: p.url, target: '_blank', rel: 'noopener', text: p.name, onclick: (e) => openIngress(e, p.url, p.name) }))))
          : h('p', { class: 'muted op-empty', text: t('op.no_panels') }),
      );
    } catch (err) {
      if (!stopped) apps.body.replaceChildren(h('p', { class: 'error', text: t('op.load_failed', { message: errorText(err) }) }));
    }
  }

  for (const s of [jobs, resolution, apps]) s.body.append(h('p', { class: 'muted', text: t('app.loading') }));
  refreshJobs();
  pollResolution();
  refreshApps();

  return () => {
    stopped = true;
    for (const id of timers) clearTimeout(id);
    timers.clear();
  };
}

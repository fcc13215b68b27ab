// The operator console. Signed in with an operator passkey (its session is an HttpOnly cookie this script never
// sees); every change carries the session's CSRF token. Charts are SVG drawn here, each with the table of its
// numbers. No external script, font or style: the console works offline.
'use strict';

(() => {
  // `tenant`: the tenant the views show, '' for the default one (the tenant picker's choice, kept for the tab).
  const state = { csrf: '', operator: '', days: 30, eventCursor: null, deliveryCursor: null, tenant: sessionStorage.getItem('tenant') || '' };
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const EVENT_TYPES = [
    'user.created', 'user.updated', 'passkey.registered', 'passkey.renamed', 'passkey.removed', 'passkey.counter_regressed',
    'device_key.enrolled', 'device_key.renamed', 'device_key.removed', 'sign_in.succeeded', 'sign_in.refused',
    'session.ended', 'account.deleted', 'account.imported', 'admin_key.created', 'admin_key.revoked', 'enrollment_ticket.issued',
    'enrollment_ticket.used', 'enrollment_ticket.revoked', 'signing_key.rotated', 'tenant.created', 'tenant.updated',
    'tenant.deleted', 'oauth_client.created', 'oauth_client.updated', 'oauth_client.deleted', 'oauth_token.issued',
    'oauth_token.refreshed', 'oauth_token.revoked', 'oauth_token.reused', 'oauth_access.denied',
  ];

  // ---- DOM --------------------------------------------------------------------------------

  /** An element with attributes (`text` sets its text, `class` its class) and children (text, nodes, arrays). */
  function h(tag, attributes, ...children) {
    const element = document.createElement(tag);
    return fill(element, attributes, children);
  }

  function s(tag, attributes, ...children) {
    return fill(document.createElementNS(SVG, tag), attributes, children);
  }

  function fill(element, attributes, children) {
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'text') element.textContent = String(value);
      else if (name === 'onclick') element.addEventListener('click', value);
      else element.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return element;
  }

  function replace(container, ...children) {
    container.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
  }

  // ---- numbers for people -----------------------------------------------------------------

  /** 999, 1.2 k, 34 k, 1.2 M. */
  function count(value) {
    const n = Number(value) || 0;
    const units = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
    for (const [size, unit] of units) {
      if (Math.abs(n) >= size) {
        const scaled = n / size;
        const text = Math.abs(scaled) < 10 ? scaled.toFixed(1).replace(/\.0$/, '') : Math.round(scaled).toString();
        return `${text} ${unit}`;
      }
    }
    return n.toLocaleString('en-US');
  }

  /** 34 %, or an en dash when there is nothing to divide by. */
  function percent(part, whole) {
    if (!whole) return '–';
    const value = (100 * part) / whole;
    return `${value > 0 && value < 1 ? '<1' : Math.round(value)} %`;
  }

  // The server names a passkey nobody named after its provider, and a provider it does not know "Passkey" (docs/HTTP-API.md):
  // such a passkey reads "Unnamed passkey", as on the user's own page, and its provider "unknown".
  // A refusal's code (`accountDisabled`, EVENTS.md) in words for a legend: "account disabled".
  function reasonWords(reason) {
    return reason.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  }

  function passkeyLabel(passkey) {
    return passkey.name === 'Passkey' && passkey.authenticatorName === 'Passkey' ? 'Unnamed passkey' : passkey.name;
  }

  function providerLabel(passkey) {
    return passkey.authenticatorName === 'Passkey' ? 'unknown' : passkey.authenticatorName;
  }

  /** A user agent in a few words: "Chrome on Android", "an iOS app (CFNetwork)"; '' when there is none. */
  function deviceWords(userAgent) {
    if (!userAgent) return '';
    const system = [[/iPhone|iPad|iOS/, 'iOS'], [/Android/, 'Android'], [/Mac OS X|Macintosh/, 'macOS'],
      [/Windows/, 'Windows'], [/CrOS/, 'ChromeOS'], [/Linux/, 'Linux']].find(([pattern]) => pattern.test(userAgent));
    if (/CFNetwork|Darwin\//.test(userAgent) && !/Mozilla/.test(userAgent)) return 'an Apple app';
    const browser = [[/Edg\//, 'Edge'], [/Firefox\//, 'Firefox'], [/Chrom(e|ium)\//, 'Chrome'], [/Safari\//, 'Safari']]
      .find(([pattern]) => pattern.test(userAgent));
    if (!browser) return system ? `an app on ${system[1]}` : userAgent.split(/[\s/]/)[0];
    return system ? `${browser[1]} on ${system[1]}` : browser[1];
  }

  /** Where an event came from: the client's address and, in words, its device; the full user agent as its title. */
  function clientCell(client) {
    if (!client || (!client.address && !client.userAgent)) return h('td', { text: '–' });
    const words = [client.address, deviceWords(client.userAgent)].filter(Boolean).join(' · ');
    return h('td', { class: 'client', text: words, title: client.userAgent || null });
  }

  function dateTime(iso) {
    if (!iso) return '–';
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }

  function duration(seconds) {
    if (seconds === undefined || seconds === null) return '–';
    if (seconds < 90) return `${seconds} s`;
    if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
    if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
    return `${Math.round(seconds / 86400)} days`;
  }

  function shortDate(day) {
    const [year, month, date] = day.split('-').map(Number);
    return new Date(Date.UTC(year, month - 1, date)).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  }

  // ---- WebAuthn JSON (Public/webauthn-json.js, shared with the passkey page) -------------

  const { optionsFromReply, creationOptionsFromJSON, requestOptionsFromJSON, credentialToJSON } = window.LatchkeyWebAuthnJSON;

  // ---- the console's API ------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message, body) {
      super(message);
      this.status = status;
      this.body = body;
    }
  }

  /** A call to `base` + `path` (the console's API): JSON in and out, the CSRF token on every change. */
  async function api(method, path, body, base = '/console/api') {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET' && state.csrf) headers['X-Latchkey-CSRF'] = state.csrf;
    const response = await fetch(`${base}${path}`, {
      method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
    });
    let json = {};
    try { json = await response.json(); } catch { json = {}; }
    if (!response.ok) {
      if (response.status === 401 && !path.startsWith('/sign-in') && !path.startsWith('/enroll')) signedOut();
      throw new ApiError(response.status, json.errorMessage || `The server answered ${response.status}.`, json);
    }
    return json;
  }

  const segment = (text) => encodeURIComponent(text);
  /** The admin API of the tenant the picker chose: the default one's at `/console/api/v1`, another's through its sites. */
  const v1 = (method, path, body) => api(method, `/v1${path}`, body, state.tenant ? `/t/${segment(state.tenant)}/console/api` : '/console/api');

  // ---- feedback ---------------------------------------------------------------------------

  let toastTimer = null;
  function toast(message, isError) {
    const box = $('toast');
    box.textContent = message;
    box.classList.toggle('error', Boolean(isError));
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.textContent = ''; }, isError ? 9000 : 4500);
  }

  function failed(error) {
    toast(error && error.message ? error.message : String(error), true);
  }

  /** Asks before a change; resolves true when the operator confirms. */
  function confirmAction(text, label) {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    $('confirm-ok').textContent = label || 'Confirm';
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
      dialog.returnValue = 'cancel';
      dialog.showModal();
      $('confirm-ok').focus();
    });
  }

  // ---- views and routing ------------------------------------------------------------------

  const VIEWS = ['sign-in', 'enroll', 'overview', 'users', 'events', 'deliveries', 'apps', 'keys'];

  function show(view) {
    for (const name of VIEWS) $(`view-${name}`).hidden = name !== view;
    const signedIn = !['sign-in', 'enroll'].includes(view);
    $('nav').hidden = !signedIn;
    $('sign-out').hidden = !signedIn;
    $('who').textContent = signedIn ? `Signed in as ${state.operator}` : '';
    for (const link of $('nav').querySelectorAll('a')) {
      if (link.dataset.view === view) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `${$(`view-${view}`).querySelector('h1').textContent} · Latchkey console`;
  }

  function signedOut() {
    state.csrf = '';
    state.operator = '';
    $('tenant-choice').hidden = true;
    show('sign-in');
  }

  async function loadSession() {
    try {
      const session = await api('GET', '/session');
      state.csrf = session.csrfToken;
      state.operator = session.operator;
      await loadTenants();
      return true;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) failed(error);
      return false;
    }
  }

  /** Fills the tenant picker (shown only when there are tenants besides the default one). */
  async function loadTenants() {
    let reply;
    try {
      reply = await api('GET', '/tenants');
    } catch (error) {
      // Without the list the console still shows the default tenant; the picker stays hidden.
      console.info('the tenants could not be listed:', error);
      $('tenant-choice').hidden = true;
      state.tenant = '';
      return;
    }
    const { defaultName, tenants } = reply;
    const picker = $('tenant-picker');
    if (!tenants.some((tenant) => tenant.id === state.tenant)) state.tenant = '';
    replace(picker, h('option', { value: '', text: `${defaultName} (default)` }),
      tenants.map((tenant) => h('option', { value: tenant.id, text: `${tenant.name} (${tenant.id})` })));
    picker.value = state.tenant;
    $('tenant-choice').hidden = tenants.length === 0;
  }

  async function route() {
    const hash = location.hash.replace(/^#/, '');
    if (hash.startsWith('enroll=')) {
      show('enroll');
      return;
    }
    if (!state.csrf && !(await loadSession())) {
      show('sign-in');
      return;
    }
    const [view, ...rest] = hash.split('/');
    const name = VIEWS.includes(view) && !['sign-in', 'enroll'].includes(view) ? view : 'overview';
    show(name);
    try {
      if (name === 'overview') await renderOverview();
      if (name === 'users') await renderUsers(rest.length ? decodeURIComponent(rest.join('/')) : null);
      if (name === 'events') await renderEvents(false);
      if (name === 'deliveries') await renderDeliveries(false);
      if (name === 'apps') await renderApps();
      if (name === 'keys') await renderKeys();
    } catch (error) {
      failed(error);
    }
  }

  function go(hash) {
    if (location.hash === `#${hash}`) route();
    else location.hash = hash;
  }

  // ---- signing in -------------------------------------------------------------------------

  async function signIn() {
    const button = $('sign-in');
    button.disabled = true;
    try {
      const options = optionsFromReply(await api('POST', '/sign-in/options', {}));
      const credential = await navigator.credentials.get({ publicKey: requestOptionsFromJSON(options) });
      await api('POST', '/sign-in/result', credentialToJSON(credential));
      state.csrf = '';
      if (await loadSession()) go(location.hash && !location.hash.startsWith('#enroll') ? location.hash.slice(1) : 'overview');
    } catch (error) {
      failed(error.name === 'NotAllowedError' ? new Error('No passkey was used: try again, or ask for an enrollment link.') : error);
    } finally {
      button.disabled = false;
    }
  }

  async function enroll() {
    const ticket = decodeURIComponent(location.hash.replace(/^#enroll=/, ''));
    const button = $('enroll');
    button.disabled = true;
    try {
      const options = optionsFromReply(await api('POST', '/enroll/options', { enrollmentTicket: ticket }));
      const credential = await navigator.credentials.create({ publicKey: creationOptionsFromJSON(options) });
      await api('POST', '/enroll/result', credentialToJSON(credential));
      history.replaceState(null, '', '/console/#overview');
      state.csrf = '';
      await loadSession();
      toast(`Your passkey is enrolled, ${state.operator}.`);
      await route();
    } catch (error) {
      failed(error);
    } finally {
      button.disabled = false;
    }
  }

  async function signOut() {
    try {
      await api('DELETE', '/session');
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) failed(error);
    }
    signedOut();
  }

  // ---- charts -----------------------------------------------------------------------------

  /** The first day's label starts at its bar, the last ends at its own, the others are centred. */
  function anchor(index, total) {
    if (total > 1 && index === total - 1) return 'end';
    return index === 0 && total > 1 ? 'start' : 'middle';
  }

  /** A step of 1, 2 or 5 times a power of ten at or above `value`. */
  function niceCeiling(value) {
    if (value <= 0) return 1;
    const power = 10 ** Math.floor(Math.log10(value));
    for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
    return 10 * power;
  }

  function numbers(headers, rows) {
    return h('details', { class: 'numbers' }, h('summary', { text: 'Numbers' }),
      h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, headers.map((header, index) => h('th', { scope: 'col', class: index ? 'num' : null, text: header })))),
        h('tbody', {}, rows.map((row) => h('tr', {}, row.map((cell, index) => h(index ? 'td' : 'th', index ? { class: 'num', text: cell } : { scope: 'row', text: cell }))))))));
  }

  function legend(series) {
    return h('ul', { class: 'legend' }, series.map((item) => h('li', {}, h('span', { class: item.class }), item.name)));
  }

  /** Bars a day, stacked by series (each `{name, class, values}`), with the table of their numbers. */
  function barChart(title, days, series, emptyText) {
    const width = 640, height = 220, left = 40, bottom = 22, top = 8;
    const totals = days.map((_, index) => series.reduce((sum, item) => sum + item.values[index], 0));
    const max = niceCeiling(Math.max(0, ...totals));
    const plotHeight = height - bottom - top;
    const slot = (width - left) / days.length;
    const barWidth = Math.max(1, slot * 0.72);
    const bars = [];
    days.forEach((day, index) => {
      let y = height - bottom;
      const parts = [];
      for (const item of series) {
        const value = item.values[index];
        if (!value) continue;
        const barHeight = (value / max) * plotHeight;
        y -= barHeight;
        parts.push(s('rect', { x: (left + index * slot + (slot - barWidth) / 2).toFixed(1), y: y.toFixed(1), width: barWidth.toFixed(1), height: barHeight.toFixed(1), class: item.class }));
      }
      const summary = series.map((item) => `${count(item.values[index])} ${item.name}`).join(', ');
      bars.push(s('g', {}, s('title', { text: `${day}: ${summary}` }), parts));
    });
    const labelEvery = Math.max(1, Math.ceil(days.length / 6));
    const labels = days.map((day, index) => (index % labelEvery === 0 || index === days.length - 1)
      ? s('text', { x: (left + index * slot + slot / 2).toFixed(1), y: height - 6, 'text-anchor': anchor(index, days.length), text: shortDate(day) }) : null);
    const total = totals.reduce((a, b) => a + b, 0);
    const chart = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${count(total)} in ${days.length} days` },
      s('line', { x1: left, x2: width, y1: height - bottom, y2: height - bottom, class: 'axis' }),
      s('line', { x1: left, x2: width, y1: top, y2: top, class: 'axis', 'stroke-dasharray': '3 4' }),
      s('text', { x: left - 6, y: top + 4, 'text-anchor': 'end', text: count(max) }),
      s('text', { x: left - 6, y: height - bottom, 'text-anchor': 'end', text: '0' }),
      bars, labels);
    return h('section', { class: 'panel chart', 'aria-label': title }, h('h2', { text: title }),
      total === 0 && emptyText ? h('p', { class: 'empty', text: emptyText }) : null,
      chart, legend(series),
      numbers(['Day', ...series.map((item) => item.name)], days.map((day, index) => [day, ...series.map((item) => count(item.values[index]))])));
  }

  /** One line a day of `values` (percentages), with its table. */
  function lineChart(title, days, values, name, emptyText) {
    const width = 640, height = 220, left = 40, bottom = 22, top = 8;
    const plotHeight = height - bottom - top;
    const step = days.length > 1 ? (width - left) / (days.length - 1) : 0;
    const points = values.map((value, index) => value === null ? null : [left + index * step, height - bottom - (value / 100) * plotHeight]);
    const path = points.reduce((text, point, index) => {
      if (!point) return text;
      const previous = index > 0 && points[index - 1];
      return `${text}${previous ? 'L' : 'M'}${point[0].toFixed(1)},${point[1].toFixed(1)} `;
    }, '');
    const labelEvery = Math.max(1, Math.ceil(days.length / 6));
    const known = values.filter((value) => value !== null);
    const chart = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${known.length ? `${Math.round(known[known.length - 1])} % on the last day` : 'no users yet'}` },
      s('line', { x1: left, x2: width, y1: height - bottom, y2: height - bottom, class: 'axis' }),
      s('line', { x1: left, x2: width, y1: top, y2: top, class: 'axis', 'stroke-dasharray': '3 4' }),
      s('text', { x: left - 6, y: top + 4, 'text-anchor': 'end', text: '100 %' }),
      s('text', { x: left - 6, y: height - bottom, 'text-anchor': 'end', text: '0' }),
      path ? s('path', { d: path.trim(), class: 'line s0' }) : null,
      points.map((point, index) => point ? s('circle', { cx: point[0].toFixed(1), cy: point[1].toFixed(1), r: days.length > 40 ? 1.5 : 3, class: 's0' }, s('title', { text: `${days[index]}: ${Math.round(values[index])} %` })) : null),
      days.map((day, index) => (index % labelEvery === 0 || index === days.length - 1)
        ? s('text', { x: (left + index * step).toFixed(1), y: height - 6, 'text-anchor': anchor(index, days.length), text: shortDate(day) }) : null));
    return h('section', { class: 'panel chart', 'aria-label': title }, h('h2', { text: title }),
      known.length === 0 && emptyText ? h('p', { class: 'empty', text: emptyText }) : null,
      chart, legend([{ name, class: 's0' }]),
      numbers(['Day', name], days.map((day, index) => [day, values[index] === null ? '–' : `${Math.round(values[index])} %`])));
  }

  /** Horizontal bars of named counts, largest first, with the table. */
  function meters(title, counts, emptyText) {
    const entries = Object.entries(counts).filter(([, value]) => value > 0).sort((a, b) => b[1] - a[1]);
    const total = entries.reduce((sum, [, value]) => sum + value, 0);
    const body = entries.length === 0 ? h('p', { class: 'empty', text: emptyText })
      : h('div', { class: 'meter', role: 'list' }, entries.map(([name, value], index) => [
        h('span', { role: 'listitem', text: name }),
        h('span', { class: 'track', 'aria-hidden': 'true' }, s('svg', { viewBox: '0 0 100 10', preserveAspectRatio: 'none', width: '100%', height: '100%' },
          s('rect', { x: 0, y: 0, height: 10, width: Math.max(1, (100 * value) / entries[0][1]).toFixed(1), rx: 2, class: `s${index % 8}` }))),
        h('span', { class: 'count', text: `${count(value)} · ${percent(value, total)}` }),
      ]));
    return h('section', { class: 'panel', 'aria-label': title }, h('h2', { text: title }), body,
      entries.length ? numbers(['Name', 'Count', 'Share'], entries.map(([name, value]) => [name, count(value), percent(value, total)])) : null);
  }

  function card(label, value, note, warn) {
    return h('div', { class: warn ? 'card warn' : 'card' }, h('div', { class: 'label', text: label }), h('div', { class: 'value', text: value }),
      note ? h('div', { class: 'note', text: note }) : null);
  }

  // ---- overview ---------------------------------------------------------------------------

  function isoDay(date) { return date.toISOString().slice(0, 10); }

  async function renderOverview() {
    for (const button of document.querySelectorAll('.range button')) {
      button.setAttribute('aria-pressed', String(Number(button.dataset.days) === state.days));
    }
    const to = new Date();
    const from = new Date(to.getTime() - (state.days - 1) * 86400000);
    const stats = await v1('GET', `/stats?from=${isoDay(from)}&to=${isoDay(to)}`);
    const days = stats.days.map((day) => day.date);
    const totals = stats.totals;
    const last = stats.days[stats.days.length - 1];
    const signIns = totals.signIns;
    const attempts = signIns.succeeded + signIns.refused;
    const outbox = stats.outbox;
    const oldHeld = (outbox.oldestPendingSeconds || 0) > 3600;
    replace($('cards'),
      card('Sign-ins', count(signIns.succeeded), `${count(signIns.refused)} refused (${percent(signIns.refused, attempts)})`),
      card('Passkey adoption', percent(totals.usersWithPasskey, totals.users), `${count(totals.usersWithPasskey)} of ${count(totals.users)} users hold a passkey`),
      card('Active users', count(last ? last.activeUsers : 0), `today · busiest day ${count(totals.peakActiveUsers)}`),
      card('Registrations', count(totals.registrations), `${percent(totals.registrationsByBackup.synced, totals.registrations)} synced`),
      card('Usernameless', percent(signIns.usernameless, signIns.succeeded), 'of sign-ins chose the account from the passkey'),
      card('Webhooks', `${count(outbox.pending)} pending`,
        outbox.pending ? `oldest waiting ${duration(outbox.oldestPendingSeconds)} · ${count(totals.webhooks.dead)} dead` : `${count(totals.webhooks.delivered)} delivered · ${count(totals.webhooks.dead)} dead`,
        oldHeld || totals.webhooks.dead > 0));

    const reasons = Object.entries(signIns.refusedByReason).sort((a, b) => b[1] - a[1]);
    const shown = reasons.slice(0, 5).map(([reason]) => reason);
    const refusedSeries = shown.map((reason, index) => ({
      name: `refused: ${reasonWords(reason)}`, class: `s${index + 1}`, values: stats.days.map((day) => day.signIns.refusedByReason[reason] || 0),
    }));
    if (reasons.length > shown.length) {
      refusedSeries.push({
        name: 'refused: other', class: 's7',
        values: stats.days.map((day) => Object.entries(day.signIns.refusedByReason).filter(([reason]) => !shown.includes(reason)).reduce((sum, [, v]) => sum + v, 0)),
      });
    }
    const adoption = stats.days.map((day) => day.users ? (100 * day.usersWithPasskey) / day.users : null);
    replace($('charts'),
      barChart('Sign-ins a day', days, [{ name: 'succeeded', class: 's0', values: stats.days.map((day) => day.signIns.succeeded) }, ...refusedSeries],
        'No sign-ins in this range yet. They show here as users sign in with their passkeys.'),
      barChart('Registrations a day', days, [
        { name: 'synced', class: 's0', values: stats.days.map((day) => day.registrationsByBackup.synced) },
        { name: 'device-bound', class: 's3', values: stats.days.map((day) => day.registrationsByBackup.deviceBound) },
      ], 'No passkeys registered in this range. Invite users with an enrollment link from the Users view.'),
      barChart('Active users a day', days, [{ name: 'active users', class: 's5', values: stats.days.map((day) => day.activeUsers) }],
        'Nobody signed in during this range.'),
      lineChart('Passkey adoption', days, adoption, 'users holding a passkey', 'No users yet: they appear once they register or a backend creates them.'),
      meters('Providers', totals.registrationsByProvider, 'No registrations in this range, so no providers to show.'),
      meters('Synced or device-bound', { synced: totals.registrationsByBackup.synced, 'device-bound': totals.registrationsByBackup.deviceBound },
        'No registrations in this range.'),
      meters('Why sign-ins were refused', Object.fromEntries(Object.entries(signIns.refusedByReason).map(([reason, n]) => [reasonWords(reason), n])),
        'No sign-in was refused in this range.'),
      barChart('Webhook deliveries a day', days, [
        { name: 'delivered', class: 's5', values: stats.days.map((day) => day.webhooks.delivered) },
        { name: 'dead', class: 's1', values: stats.days.map((day) => day.webhooks.dead) },
      ], 'No webhook deliveries in this range (none configured, or nothing happened).'));
  }

  // ---- users ------------------------------------------------------------------------------

  async function renderUsers(name) {
    replace($('user-detail'));
    if (name) {
      $('user-query').value = name;
      await renderUser(name);
      return;
    }
    const page = await v1('GET', '/users?limit=50');
    const users = page.users || [];
    replace($('user-list'), users.length === 0
      ? h('p', { class: 'empty', text: 'No users yet. Users appear when they register a passkey, or when a backend creates them (POST /admin/v1/users).' })
      : h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, ['Username', 'Display name', 'Passkeys', 'Last sign-in', 'State'].map((title, i) => h('th', { scope: 'col', class: i === 2 ? 'num' : null, text: title })))),
        h('tbody', {}, users.map((user) => h('tr', {},
          h('th', { scope: 'row' }, h('a', { href: `#users/${segment(user.username)}`, text: user.username })),
          h('td', { text: user.displayName }), h('td', { class: 'num', text: count(user.passkeys) }),
          h('td', { text: dateTime(user.lastSignInAt) }),
          h('td', {}, h('span', { class: user.disabled ? 'tag bad' : 'tag good', text: user.disabled ? 'disabled' : 'active' }))))))));
  }

  async function findUser(query) {
    try {
      return (await v1('GET', `/users/${segment(query)}`)).user;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    try {
      return (await v1('GET', `/users?externalId=${segment(query)}`)).user;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }

  async function renderUser(query) {
    const user = await findUser(query);
    replace($('user-list'));
    if (!user) {
      replace($('user-detail'), h('p', { class: 'empty', text: `No user has the username or external ID "${query}".` }));
      return;
    }
    const name = user.username;
    const [keys, sessionList, events] = await Promise.all([
      v1('GET', `/users/${segment(name)}/credentials`),
      v1('GET', `/users/${segment(name)}/sessions`),
      v1('GET', `/events?user=${segment(name)}&limit=20`),
    ]);
    const sessions = sessionList.sessions || [];
    const passkeys = keys.credentials || [];
    const deviceKeys = keys.deviceKeys || [];
    const act = (label, className, confirmText, work) => h('button', {
      type: 'button', class: className, text: label,
      onclick: async () => {
        if (confirmText && !(await confirmAction(confirmText, label))) return;
        try {
          const message = await work();
          if (message) toast(message);
          await renderUser(name);
        } catch (error) { failed(error); }
      },
    });
    const linkBox = h('div', { id: 'enrollment-link' });
    // Groups (comma-separated) and the contact (empty removes it), saved together through the admin API.
    const profile = h('form', { id: 'user-profile', class: 'toolbar', 'aria-label': `Groups and contact of ${name}` },
      h('label', { for: 'user-groups', text: 'Groups' }),
      h('input', { id: 'user-groups', name: 'groups', value: (user.groups || []).join(', '), autocomplete: 'off', spellcheck: 'false' }),
      h('label', { for: 'user-contact', text: 'Contact' }),
      h('input', {
        id: 'user-contact', name: 'contact', value: user.contact ? user.contact.value : '', autocomplete: 'off', spellcheck: 'false',
        placeholder: 'an email address or +number',
      }),
      h('button', { type: 'submit', text: 'Save groups and contact' }));
    profile.addEventListener('submit', async (event) => {
      event.preventDefault();
      const groups = profile.elements.groups.value.split(',').map((group) => group.trim()).filter((group) => group);
      const contact = profile.elements.contact.value.trim() || null;
      try {
        await v1('PUT', `/users/${segment(name)}/groups`, { groups });
        await v1('PUT', `/users/${segment(name)}/contact`, { contact });
        toast(`${name}'s groups and contact are saved.`);
        await renderUser(name);
      } catch (error) { failed(error); }
    });
    replace($('user-detail'), h('section', { class: 'panel', 'aria-label': `User ${name}` },
      h('h2', { text: name }),
      h('dl', { class: 'profile' },
        h('dt', { text: 'Display name' }), h('dd', { text: user.displayName }),
        h('dt', { text: 'External ID' }), h('dd', { text: user.externalId || '–' }),
        h('dt', { text: 'Groups' }), h('dd', { text: user.groups && user.groups.length ? user.groups.join(', ') : '–' }),
        h('dt', { text: 'Contact' }), h('dd', { text: user.contact ? `${user.contact.value} (${user.contact.kind}, not verified)` : '–' }),
        h('dt', { text: 'User handle' }), h('dd', {}, h('code', { text: user.userHandle })),
        h('dt', { text: 'Created' }), h('dd', { text: dateTime(user.createdAt) }),
        h('dt', { text: 'Last sign-in' }), h('dd', { text: dateTime(user.lastSignInAt) }),
        h('dt', { text: 'State' }), h('dd', {}, h('span', { class: user.disabled ? 'tag bad' : 'tag good', text: user.disabled ? 'disabled' : 'active' }))),
      h('div', { class: 'actions' },
        user.disabled
          ? act('Enable account', '', `Enable ${name}? They can sign in again.`, async () => { await v1('PATCH', `/users/${segment(name)}`, { disabled: false }); return `${name} is enabled.`; })
          : act('Disable account', 'danger', `Disable ${name}? Their sessions end and they cannot sign in until enabled.`, async () => { await v1('PATCH', `/users/${segment(name)}`, { disabled: true }); return `${name} is disabled.`; }),
        act('End sessions', '', `End every session of ${name}?`, async () => { const ended = await v1('DELETE', `/users/${segment(name)}/sessions`); return `${count(ended.ended)} sessions ended.`; }),
        h('button', {
          type: 'button', text: 'Issue enrollment link', disabled: user.disabled,
          onclick: async () => {
            try {
              showEnrollmentLink(name, await v1('POST', `/users/${segment(name)}/enrollment-tickets`, {}));
            } catch (error) { failed(error); }
          },
        })),
      linkBox,
      profile,
      h('h2', { text: 'Passkeys' }),
      passkeys.length === 0 ? h('p', { class: 'empty', text: 'No passkey. Issue an enrollment link so they can make one.' })
        : h('div', { class: 'table-wrap' }, h('table', {},
          h('thead', {}, h('tr', {}, ['Name', 'Provider', 'Synced', 'Created', 'Last used', ''].map((title) => h('th', { scope: 'col', text: title })))),
          h('tbody', {}, passkeys.map((passkey) => h('tr', {},
            h('th', { scope: 'row', text: passkeyLabel(passkey) }), h('td', { text: providerLabel(passkey) }),
            h('td', { text: passkey.backupEligible ? (passkey.backedUp ? 'synced' : 'can sync') : 'device-bound' }),
            h('td', { text: dateTime(passkey.createdAt) }), h('td', { text: dateTime(passkey.lastUsedAt) }),
            h('td', {}, act('Remove', 'danger', `Remove the passkey "${passkeyLabel(passkey)}" of ${name}? It can no longer sign in.`,
              async () => { await v1('DELETE', `/users/${segment(name)}/credentials/${segment(passkey.id)}`); return 'Passkey removed.'; }))))))),
      h('h2', { text: 'Device keys' }),
      deviceKeys.length === 0 ? h('p', { class: 'empty', text: 'No device key: the user\'s apps have enrolled none.' })
        : h('div', { class: 'table-wrap' }, h('table', {},
          h('thead', {}, h('tr', {}, ['Name', 'App Attest', 'Created', 'Last used', ''].map((title) => h('th', { scope: 'col', text: title })))),
          h('tbody', {}, deviceKeys.map((key) => h('tr', {},
            h('th', { scope: 'row', text: key.name || key.keyId.slice(0, 12) }), h('td', { text: key.appAttested ? 'yes' : 'no' }),
            h('td', { text: dateTime(key.createdAt) }), h('td', { text: dateTime(key.lastUsedAt) }),
            h('td', {}, act('Remove', 'danger', `Remove this device key of ${name}? The sessions it signed in end.`,
              async () => { await v1('DELETE', `/users/${segment(name)}/device-keys/${segment(key.keyId)}`); return 'Device key removed.'; }))))))),
      h('h2', { text: 'Sessions' }),
      sessions.length === 0 ? h('p', { class: 'empty', text: 'Not signed in anywhere.' })
        : h('div', { class: 'table-wrap' }, h('table', {},
          h('thead', {}, h('tr', {}, ['Signed in', 'Ends', 'With'].map((title) => h('th', { scope: 'col', text: title })))),
          h('tbody', {}, sessions.map((session) => h('tr', {},
            h('td', { text: dateTime(session.createdAt) }), h('td', { text: dateTime(session.expiresAt) }),
            h('td', { text: session.signedInWith === 'deviceKey' ? 'a device key' : 'a passkey' })))))),
      h('h2', { text: 'Recent events' }),
      eventTable(events.events || [], 'No events for this user yet.')));
  }

  /** Shows a ticket's one-time link under the user's actions, to copy and send. */
  function showEnrollmentLink(name, issued) {
    replace($('enrollment-link'), h('p', { text: `Send this one-time link to ${name}; it works until ${dateTime(issued.expiresAt)}:` }),
      h('div', { class: 'link-box' }, h('code', { text: issued.enrollmentURL })));
  }

  /** The New user form: creates the user (POST /users), issues an enrollment link and shows the user with it. */
  async function createUser(form) {
    const field = (name) => form.elements[name].value.trim();
    const username = field('username');
    const body = { username, displayName: field('displayName') || null, externalId: field('externalId') || null };
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      const created = (await v1('POST', '/users', body)).user;
      const issued = await v1('POST', `/users/${segment(created.username)}/enrollment-tickets`, {});
      form.reset();
      $('new-user-panel').open = false;
      history.replaceState(null, '', `#users/${segment(created.username)}`);
      $('user-query').value = created.username;
      await renderUser(created.username);
      showEnrollmentLink(created.username, issued);
      toast(`${created.username} is created; send them the link.`);
    } catch (error) {
      failed(error);
    } finally {
      submit.disabled = false;
    }
  }

  // ---- events -----------------------------------------------------------------------------

  function eventTable(events, emptyText) {
    if (events.length === 0) return h('p', { class: 'empty', text: emptyText });
    return h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ['Time', 'Type', 'User', 'By', 'From', 'Detail'].map((title) => h('th', { scope: 'col', text: title })))),
      h('tbody', {}, events.map((event) => h('tr', {},
        h('td', { text: dateTime(event.time) }),
        h('td', {}, h('span', { class: event.type === 'sign_in.refused' ? 'tag bad' : 'tag', text: event.type })),
        h('td', {}, event.user && event.user.username ? h('a', { href: `#users/${segment(event.user.username)}`, text: event.user.username }) : '–'),
        h('td', { text: event.actor.name ? `${event.actor.type}: ${event.actor.name}` : event.actor.type }),
        clientCell(event.client),
        h('td', { text: [event.reason, event.detail, event.authenticator && event.authenticator.name].filter(Boolean).join(' · ') || '–' }))))));
  }

  async function renderEvents(more) {
    const form = $('event-filter');
    const query = new URLSearchParams({ limit: '50' });
    if (form.type.value) query.set('type', form.type.value);
    if (form.user.value.trim()) query.set('user', form.user.value.trim());
    if (form.since.value) query.set('since', `${form.since.value}T00:00:00Z`);
    if (more && state.eventCursor) query.set('cursor', state.eventCursor);
    const page = await v1('GET', `/events?${query}`);
    state.eventCursor = page.nextCursor || null;
    const list = $('event-list');
    const table = eventTable(page.events || [], 'No events match. Events appear as users register, sign in and are managed.');
    const older = state.eventCursor ? h('button', { type: 'button', text: 'Older events', onclick: () => renderEvents(true).catch(failed) }) : null;
    if (more) {
      list.querySelector('.pager')?.remove();
      list.append(table);
    } else {
      replace(list, table);
    }
    if (older) list.append(h('div', { class: 'actions pager' }, older));
  }

  // ---- deliveries -------------------------------------------------------------------------

  async function renderDeliveries(more) {
    const wanted = $('delivery-state').value;
    const query = new URLSearchParams({ limit: '50' });
    if (wanted) query.set('state', wanted);
    if (more && state.deliveryCursor) query.set('cursor', state.deliveryCursor);
    const page = await v1('GET', `/webhook-deliveries?${query}`);
    state.deliveryCursor = page.nextCursor || null;
    const deliveries = page.deliveries || [];
    const table = deliveries.length === 0
      ? h('p', { class: 'empty', text: 'No deliveries here. With webhookURLs configured, every event is delivered to each receiver.' })
      : h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, ['Created', 'Receiver', 'State', 'Attempts', 'Last error', ''].map((title, i) => h('th', { scope: 'col', class: i === 3 ? 'num' : null, text: title })))),
        h('tbody', {}, deliveries.map((delivery) => h('tr', {},
          h('td', { text: dateTime(delivery.createdAt) }), h('td', {}, h('code', { text: delivery.receiver })),
          h('td', {}, h('span', { class: delivery.state === 'dead' ? 'tag bad' : delivery.state === 'delivered' ? 'tag good' : 'tag', text: delivery.state })),
          h('td', { class: 'num', text: delivery.attempts }), h('td', { text: delivery.lastError || '–' }),
          h('td', {}, delivery.state === 'delivered' ? null : h('button', {
            type: 'button', text: 'Retry',
            onclick: async () => {
              try {
                await v1('POST', `/webhook-deliveries/${segment(delivery.id)}/retry`, {});
                toast('Delivery queued again.');
                await renderDeliveries(false);
              } catch (error) { failed(error); }
            },
          })))))));
    const list = $('delivery-list');
    if (more) {
      list.querySelector('.pager')?.remove();
      list.append(table);
    } else {
      replace(list, table);
    }
    if (state.deliveryCursor) list.append(h('div', { class: 'actions pager' }, h('button', { type: 'button', text: 'Older deliveries', onclick: () => renderDeliveries(true).catch(failed) })));
  }

  // ---- apps (OpenID clients) --------------------------------------------------------------

  async function renderApps() {
    const { clients } = await v1('GET', '/oauth-clients');
    replace($('app-list'),
      h('section', { class: 'panel', 'aria-label': 'OpenID clients' },
        h('h2', { text: 'Apps signing in through OpenID Connect' }),
        clients.length === 0
          ? h('p', { class: 'empty', text: 'No app yet. A backend registers one with POST /admin/v1/oauth-clients (docs/OIDC.md).' })
          : h('div', { class: 'table-wrap' }, h('table', {},
            h('thead', {}, h('tr', {}, ['Name', 'Client ID', 'Kind', 'Redirect URIs', 'Scopes', 'Created', ''].map((title) => h('th', { scope: 'col', text: title })))),
            h('tbody', {}, clients.map((client) => h('tr', {},
              h('th', { scope: 'row', text: client.name }), h('td', {}, h('code', { text: client.clientID })),
              h('td', {}, h('span', { class: 'tag', text: client.public ? 'public' : 'confidential' }),
                client.deviceAuthorization ? h('span', { class: 'tag', text: 'devices' }) : null),
              h('td', { text: client.redirectURIs.join(' ') || '(devices only)' }), h('td', { text: client.scopes.join(' ') }),
              h('td', { text: dateTime(client.createdAt) }),
              h('td', {}, h('button', {
                type: 'button', class: 'danger', text: 'Remove',
                onclick: async () => {
                  if (!(await confirmAction(`Remove the app "${client.name}"? Everyone signed in to it through Latchkey is signed out of it at once.`, 'Remove'))) return;
                  try {
                    await v1('DELETE', `/oauth-clients/${segment(client.clientID)}`);
                    toast(`App ${client.name} removed.`);
                    await renderApps();
                  } catch (error) { failed(error); }
                },
              })))))))));
  }

  /** The New app form: registers an OpenID client (POST /oauth-clients) and shows its secret, once. */
  async function createApp(form) {
    const redirectURIs = form.elements.redirectURIs.value.split('\n').map((line) => line.trim()).filter((line) => line);
    const scopes = ['openid', 'profile', 'email', 'phone', 'groups'].concat(form.elements.offline.checked ? ['offline_access'] : []);
    const body = {
      name: form.elements.name.value.trim(), redirectURIs, public: form.elements.public.checked, consent: form.elements.consent.checked,
      deviceAuthorization: form.elements.device.checked, scopes,
    };
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      const { client } = await v1('POST', '/oauth-clients', body);
      form.reset();
      $('new-app-panel').open = false;
      replace($('app-secret'), h('section', { class: 'panel', 'aria-label': 'New app' },
        h('h2', { text: `${client.name} is registered` }),
        h('p', { text: 'Its client ID, for the app\'s OpenID Connect settings:' }), h('div', { class: 'link-box' }, h('code', { text: client.clientID })),
        client.clientSecret ? [
          h('p', { text: 'Its secret, shown only now: copy it into the app.' }),
          h('div', { class: 'link-box' }, h('code', { id: 'app-client-secret', text: client.clientSecret })),
        ] : null));
      toast(`App ${client.name} registered.`);
      await renderApps();
    } catch (error) {
      failed(error);
    } finally {
      submit.disabled = false;
    }
  }

  // ---- keys -------------------------------------------------------------------------------

  async function renderKeys() {
    const keys = await v1('GET', '/keys');
    const rotate = h('button', {
      type: 'button', class: 'primary', text: 'Rotate signing key',
      onclick: async () => {
        if (!(await confirmAction('Add a new signing key? It is published now and signs in five minutes; the current one stays published while its tokens live.', 'Rotate'))) return;
        try {
          const added = await v1('POST', '/signing-keys/rotate', {});
          toast(`Signing key ${added.signingKey.generation} added.`);
          await renderKeys();
        } catch (error) { failed(error); }
      },
    });
    const phases = { waiting: 'tag', signing: 'tag good', published: 'tag', retired: 'tag' };
    replace($('key-lists'),
      h('section', { class: 'panel', 'aria-label': 'Signing keys' },
        h('h2', { text: 'Token signing keys' }),
        h('div', { class: 'actions' }, rotate),
        keys.signingKeys.length === 0 ? h('p', { class: 'empty', text: 'No signing key yet: the first is made when the server starts.' })
          : h('div', { class: 'table-wrap' }, h('table', {},
            h('thead', {}, h('tr', {}, ['Generation', 'Key ID', 'State', 'Created', 'Signs from'].map((title) => h('th', { scope: 'col', text: title })))),
            h('tbody', {}, keys.signingKeys.map((key) => h('tr', {},
              h('th', { scope: 'row', text: key.generation }), h('td', {}, h('code', { text: key.keyId })),
              h('td', {}, h('span', { class: phases[key.state] || 'tag', text: key.state })),
              h('td', { text: dateTime(key.createdAt) }), h('td', { text: dateTime(key.signsFrom) }))))))),
      h('section', { class: 'panel', 'aria-label': 'Admin keys' },
        h('h2', { text: 'Admin keys' }),
        keys.adminKeys.length === 0 ? h('p', { class: 'empty', text: 'No admin key. A backend gets one from latchkey admin-keys create NAME on the server.' })
          : h('div', { class: 'table-wrap' }, h('table', {},
            h('thead', {}, h('tr', {}, ['Name', 'Created', 'Last used', ''].map((title) => h('th', { scope: 'col', text: title })))),
            h('tbody', {}, keys.adminKeys.map((key) => h('tr', {},
              h('th', { scope: 'row', text: key.name }), h('td', { text: dateTime(key.createdAt) }), h('td', { text: dateTime(key.lastUsedAt) }),
              h('td', {}, h('button', {
                type: 'button', class: 'danger', text: 'Revoke',
                onclick: async () => {
                  if (!(await confirmAction(`Revoke the admin key "${key.name}"? Every backend using it is refused at once.`, 'Revoke'))) return;
                  try {
                    await v1('DELETE', `/admin-keys/${segment(key.name)}`);
                    toast(`Admin key ${key.name} revoked.`);
                    await renderKeys();
                  } catch (error) { failed(error); }
                },
              })))))))));
  }

  // ---- start ------------------------------------------------------------------------------

  document.addEventListener('DOMContentLoaded', () => {
    const select = $('event-type');
    for (const type of EVENT_TYPES) select.append(h('option', { value: type, text: type }));
    $('sign-in').addEventListener('click', signIn);
    $('enroll').addEventListener('click', enroll);
    $('sign-out').addEventListener('click', signOut);
    for (const button of document.querySelectorAll('.range button')) {
      button.addEventListener('click', () => {
        state.days = Number(button.dataset.days);
        renderOverview().catch(failed);
      });
    }
    $('user-search').addEventListener('submit', (event) => {
      event.preventDefault();
      const query = $('user-query').value.trim();
      if (query) go(`users/${segment(query)}`);
    });
    $('tenant-picker').addEventListener('change', (event) => {
      state.tenant = event.target.value;
      sessionStorage.setItem('tenant', state.tenant);
      state.eventCursor = null;
      state.deliveryCursor = null;
      go(location.hash.replace(/^#/, '').split('/')[0] || 'overview');
    });
    $('new-user').addEventListener('submit', (event) => { event.preventDefault(); createUser(event.target); });
    $('new-app').addEventListener('submit', (event) => { event.preventDefault(); createApp(event.target); });
    $('event-filter').addEventListener('submit', (event) => { event.preventDefault(); renderEvents(false).catch(failed); });
    $('delivery-filter').addEventListener('submit', (event) => { event.preventDefault(); renderDeliveries(false).catch(failed); });
    window.addEventListener('hashchange', route);
    route();
  });
})();

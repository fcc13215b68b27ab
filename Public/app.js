// Latchkey page: register and sign in with passkeys, then see, rename and remove them.
// Plain JavaScript, no frameworks, no external resources (the server's Content-Security-Policy is
// `default-src 'self'`: no inline scripts or styles). Endpoints: docs/HTTP-API.md.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  const {
    bytesToBase64url, optionsFromReply, creationOptionsFromJSON, requestOptionsFromJSON, credentialToJSON, browserHas,
  } = window.LatchkeyWebAuthnJSON;

  // ---- HTTP -------------------------------------------------------------------------------

  /** A failed reply: the HTTP status, the server's message and the whole body. */
  class ServerError extends Error {
    constructor(httpStatus, message, body) {
      super(message);
      this.name = 'ServerError';
      this.httpStatus = httpStatus;
      this.body = body || {};
    }
  }

  /**
   * The server's errorMessage (a fragment, "user \"alice\" is not registered") as a sentence beside
   * the page's own: the first letter a capital, a full stop at the end, the words as they are. A
   * message that starts with a member's name (`displayName is 200 bytes…`) keeps it as spelled.
   */
  function serverSentence(message) {
    const text = message.trim();
    if (!text) return text;
    const firstWord = /^[^\s:;,]*/.exec(text)[0];
    const identifier = /^\p{Ll}+[\p{Lu}\d_.]/u.test(firstWord);
    const first = String.fromCodePoint(text.codePointAt(0));
    const capitalised = /^\p{Ll}/u.test(first) && !identifier ? first.toUpperCase() + text.slice(first.length) : text;
    return /[.!?…]["”’)]*$/.test(capitalised) ? capitalised : `${capitalised}.`;
  }

  async function api(method, path, body, abortSignal) {
    const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, signal: abortSignal };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (err) {
      if (abortSignal && abortSignal.aborted) throw err;
      // The browser's words ("Failed to fetch") are for developers: the console has them.
      console.info(`${method} ${path} did not reach the server:`, err);
      throw new Error('Could not reach the server. Check your connection and try again.');
    }
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok || !data || data.status !== 'ok') {
      const message = data && typeof data.errorMessage === 'string' && data.errorMessage.trim()
        ? serverSentence(data.errorMessage)
        : `The server answered HTTP ${response.status} ${response.statusText}`.trim() + '.';
      throw new ServerError(response.status, message, data);
    }
    return data;
  }

  const credentialPath = (id) => `/credentials/${encodeURIComponent(id)}`;

  // ---- WebAuthn Signal API ----------------------------------------------------------------
  // Tells the passkey provider what the server knows, so it can hide or update passkeys. Only
  // where the browser has it; a signal is a hint, so a refused one is logged, not shown.

  function sendSignal(name, details) {
    if (!browserHas(name)) return;
    Promise.resolve()
      .then(() => PublicKeyCredential[name](details))
      .catch((err) => console.warn(`PublicKeyCredential.${name} was refused:`, err));
  }

  /** The account as the server has it now: its passkeys and its user details. */
  function signalAccount(current) {
    sendSignal('signalAllAcceptedCredentials', {
      rpId: current.rpId,
      userId: current.userHandle,
      allAcceptedCredentialIds: current.credentials.map((c) => c.id),
    });
    sendSignal('signalCurrentUserDetails', {
      rpId: current.rpId,
      userId: current.userHandle,
      name: current.username,
      displayName: current.displayName || current.username,
    });
  }

  // ---- status and busy state --------------------------------------------------------------
  // One status line (#status) tells how an action went. It moves next to the control a person
  // used, so the outcome shows where they are looking. When the action changed the view (a
  // sign-in hides the form, a removed passkey leaves the list), it goes to the nearest place
  // still shown, or to the top of the view.

  let busy = false;
  let seq = 0;
  let account = null; // {username, displayName, userHandle, rpId, credentials} while signed in

  /** Places for the status line: each puts the element there. */
  const statusPlaces = {
    enroll: (status) => $('enroll').after(status),
    form: (status) => $('account-form-actions').after(status),
    autofill: (status) => $('autofill-hint').after(status),
    discoverable: (status) => $('signin-discoverable').after(status),
    account: (status) => $('signed-in-actions').after(status),
    passkeys: (status) => $('passkeys-heading').after(status),
    deleteAccount: (status) => $('delete-account-confirm').after(status),
  };

  /** In the passkey's item while it is listed; above the list when it is gone. */
  function passkeyPlace(credentialId) {
    return (status) => {
      const item = [...$('passkeys').children].find((li) => li.dataset.credentialId === credentialId);
      if (item) item.append(status); else statusPlaces.passkeys(status);
    };
  }

  /** The top of the view shown now. */
  function topPlace(status) {
    if (account) statusPlaces.account(status);
    else $('signed-out-panel').prepend(status);
  }

  const isShown = (element) => element.getClientRects().length > 0;

  function placeStatus(place) {
    const status = $('status');
    if (place) place(status);
    if (!isShown(status)) topPlace(status);
    if (!isShown(status)) $('whoami').after(status);
  }

  /** Before the passkey list is rebuilt: the status line must not go with the old items. */
  function keepStatusOutOfList() {
    const status = $('status');
    if (!$('passkeys').contains(status)) return;
    if (account) statusPlaces.passkeys(status); else topPlace(status);
  }

  /**
   * Shows `message`; `place` (from statusPlaces, passkeyPlace) says where, else it stays put.
   * `code`: the browser's error name behind an error (errorCode), kept out of the words.
   */
  function setStatus(state, message, place, code = '') {
    const el = $('status');
    el.textContent = message;
    el.dataset.state = state;
    el.dataset.error = code;
    placeStatus(place);
    if (state !== 'busy') {
      if (message && typeof el.scrollIntoView === 'function') el.scrollIntoView({ block: 'nearest' });
      seq += 1;
      el.dataset.seq = String(seq);
    }
  }

  // What a browser's refusal of a passkey request means. Neither its message nor its name is shown:
  // they are for developers (Chromium's message points at the W3C specification). The name stays
  // on the status line's data-error and in the console, for support questions.
  const passkeyRequestWords = {
    get: {
      // Browsers say NotAllowedError both when the person cancels and when no passkey of theirs is
      // for this site, and do not say which.
      NotAllowedError: 'No passkey was used: the request was cancelled, or no passkey for this site was available. '
        + 'Try again, or register one first if you have none yet.',
    },
    create: {
      NotAllowedError: 'No passkey was created: the request was cancelled or timed out. Try again when you are ready.',
      InvalidStateError: 'This authenticator already holds a passkey for this account. '
        + 'Sign in with it, or use another authenticator.',
    },
    any: {
      NotAllowedError: 'The passkey request was cancelled or timed out.',
      AbortError: 'The passkey request was cancelled.',
      SecurityError: 'This browser does not allow passkeys on this address. Open the site at its usual address and try again.',
      NotSupportedError: 'This authenticator cannot make a passkey with the options the server asked for.',
      ConstraintError: 'This authenticator cannot check who you are in the way the server asked for.',
      InvalidStateError: 'This authenticator already holds a passkey for this account.',
    },
  };

  function passkeyRequestSentence(ceremony, name) {
    const words = passkeyRequestWords[ceremony] || {};
    return words[name] || passkeyRequestWords.any[name] || 'The browser could not finish the passkey request.';
  }

  /** The browser refused a passkey request: words for a person, and the browser's error name. */
  class PasskeyRequestError extends Error {
    constructor(ceremony, cause) {
      super(passkeyRequestSentence(ceremony, cause.name));
      this.name = 'PasskeyRequestError';
      this.code = cause.name;
      this.cause = cause;
    }
  }

  /** Runs a modal passkey request (`ceremony`: 'create' or 'get'); a DOMException becomes words. */
  async function askBrowser(ceremony, request) {
    try {
      return await request();
    } catch (err) {
      if (!(err instanceof DOMException)) throw err;
      console.info(`navigator.credentials.${ceremony} failed:`, err);
      throw new PasskeyRequestError(ceremony, err);
    }
  }

  /** Words for a person: what went wrong, without an "Error:" prefix or an exception's name. */
  function describeError(err) {
    if (err instanceof ServerError) return err.message;
    if (err instanceof PasskeyRequestError) return err.message;
    if (err instanceof DOMException) return passkeyRequestSentence('any', err.name);
    if (err && typeof err.message === 'string' && err.message) return err.message;
    return 'Something went wrong. Try again.';
  }

  /** The browser's name for a refused passkey request (NotAllowedError, ...), for support; else ''. */
  function errorCode(err) {
    if (err instanceof PasskeyRequestError) return err.code;
    if (err instanceof DOMException) return err.name;
    return '';
  }

  /** Buttons marked data-locked (Remove on the only passkey) stay disabled. */
  function setBusy(value) {
    busy = value;
    document.querySelectorAll('button').forEach((b) => { b.disabled = value || b.dataset.locked === 'true'; });
  }

  /**
   * Runs one action a person asked for: busy while it runs, then the view, then the outcome.
   * `announce`: after success, tell the passkey provider the account's passkeys and details.
   * `fromAutofill`: the action finishes an autofill choice (no autofill request to abort).
   * `signsIn`: the action is a sign-in; after success, the browser may add a passkey (upgrade).
   * `place`: where the outcome is shown (statusPlaces, passkeyPlace): next to the control used.
   */
  async function run(label, action, options = {}) {
    if (busy) return;
    setBusy(true);
    setStatus('busy', `${label}…`, options.place);
    let state = 'ok';
    let message = '';
    let code = '';
    try {
      if (!options.fromAutofill) await autofill.stop();
      await upgrade.stop();
      message = await action();
    } catch (err) {
      state = 'error';
      message = describeError(err);
      code = errorCode(err);
    }
    try {
      const current = await refreshView();
      if (current && state === 'ok' && options.announce) signalAccount(current);
    } catch (err) {
      if (state === 'ok') {
        state = 'error';
        message = describeError(err);
        code = errorCode(err);
      }
    }
    setBusy(false);
    // The status is written last, after the view is up to date.
    setStatus(state, message, options.place, code);
    if (!account && !(options.fromAutofill && state === 'error')) autofill.start();
    if (account && state === 'ok' && options.signsIn) upgrade.start(account.username);
  }

  // ---- the signed-in view -----------------------------------------------------------------

  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  // With seconds: several events a minute (a sign-in, a rename, a removal) each have their own time.
  const secondsFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  const day = 24 * 60 * 60 * 1000;

  /**
   * Shows an RFC 3339 time in local time, to the minute; `recentSeconds`: to the second when it is
   * less than a day from now. The exact time is the title (shown on hover).
   */
  function showTime(element, rfc3339, absentText, recentSeconds = false) {
    if (!rfc3339) {
      element.removeAttribute('datetime');
      element.removeAttribute('title');
      element.textContent = absentText;
      return;
    }
    const date = new Date(rfc3339);
    element.setAttribute('datetime', rfc3339);
    if (Number.isNaN(date.getTime())) {
      element.removeAttribute('title');
      element.textContent = rfc3339;
      return;
    }
    const recent = recentSeconds && Math.abs(Date.now() - date.getTime()) < day;
    element.textContent = (recent ? secondsFormat : dateFormat).format(date);
    element.title = secondsFormat.format(date);
  }

  // GET /credentials gives a passkey nobody named its provider's name (`authenticatorName`) as its
  // `name`, and a provider the server does not know (or the all-zero AAGUID) the name "Passkey"
  // (docs/HTTP-API.md). Shown as they come, such a passkey reads "Passkey", provider "Passkey".
  const unknownProviderName = 'Passkey';

  /** The passkey's provider ("iCloud Keychain", a security key's model); '' when unknown. */
  function providerName(credential) {
    const name = typeof credential.authenticatorName === 'string' ? credential.authenticatorName.trim() : '';
    return name === unknownProviderName ? '' : name;
  }

  /**
   * The passkey's name as given, else its provider's; '' for an unnamed passkey of an unknown
   * provider (the server's reply cannot tell it from one a person named "Passkey").
   */
  function givenName(credential) {
    const name = typeof credential.name === 'string' ? credential.name.trim() : '';
    return name === unknownProviderName && !providerName(credential) ? '' : name;
  }

  const unnamedPasskey = 'Unnamed passkey';

  /** The passkey for a sentence: `“Laptop”` after `the passkey`, or `the unnamed passkey`. */
  function thePasskey(credential) {
    const name = givenName(credential);
    return name ? `the passkey “${name}”` : 'the unnamed passkey';
  }

  function closeItemForms(except) {
    document.querySelectorAll('#passkeys .rename-form, #passkeys .remove-confirm').forEach((el) => {
      if (el !== except) el.hidden = true;
    });
  }

  /** One passkey of the list; `only`: the account's only passkey, which the server will not remove. */
  function passkeyItem(credential, only) {
    const item = $('passkey-template').content.firstElementChild.cloneNode(true);
    item.dataset.credentialId = credential.id;
    const name = givenName(credential);
    const provider = providerName(credential);
    item.dataset.name = credential.name;
    item.querySelector('.passkey-name').textContent = name || unnamedPasskey;
    item.querySelector('.passkey-name').classList.toggle('unnamed', !name);
    item.querySelector('.passkey-provider').textContent = provider || 'unknown';
    item.querySelector('.synced').hidden = !credential.backedUp;
    showTime(item.querySelector('.passkey-created'), credential.createdAt, 'unknown');
    showTime(item.querySelector('.passkey-last-used'), credential.lastUsedAt, 'never');

    const renameForm = item.querySelector('.rename-form');
    const renameInput = item.querySelector('.rename-input');
    const removeConfirm = item.querySelector('.remove-confirm');

    item.querySelector('.rename').addEventListener('click', () => {
      closeItemForms(renameForm);
      renameInput.value = name;
      renameForm.hidden = false;
      renameInput.focus();
      renameInput.select();
    });
    item.querySelector('.rename-cancel').addEventListener('click', () => { renameForm.hidden = true; });
    renameForm.addEventListener('submit', (event) => {
      event.preventDefault();
      run('Renaming the passkey', () => renamePasskey(credential, renameInput.value),
        { announce: true, place: passkeyPlace(credential.id) });
    });

    const remove = item.querySelector('.remove');
    if (only) {
      // Signing in needs a passkey: the server refuses to remove the last one (409).
      remove.dataset.locked = 'true';
      remove.title = 'This is your only passkey: add another before removing it.';
      item.querySelector('.only-passkey').hidden = false;
    }
    item.querySelectorAll('button').forEach((b) => { b.disabled = busy || b.dataset.locked === 'true'; });
    remove.addEventListener('click', () => {
      closeItemForms(removeConfirm);
      item.querySelector('.remove-question').textContent =
        `Remove ${name ? `“${name}”` : 'this unnamed passkey'}? You will no longer be able to sign in with it.`;
      removeConfirm.hidden = false;
    });
    item.querySelector('.remove-no').addEventListener('click', () => { removeConfirm.hidden = true; });
    item.querySelector('.remove-yes').addEventListener('click', () => {
      run('Removing the passkey', () => removePasskey(credential),
        { announce: true, place: passkeyPlace(credential.id) });
    });
    return item;
  }

  function showSignedIn(current) {
    account = current;
    const who = $('whoami');
    who.dataset.username = current.username;
    who.textContent = `Signed in as ${current.username}`;
    // The display name greets the person; the username stays beside it when it says something else.
    const displayName = typeof current.displayName === 'string' ? current.displayName.trim() : '';
    const greets = displayName !== '' && displayName !== current.username;
    $('display-name').textContent = greets ? displayName : '';
    $('greeting').hidden = !greets;
    keepStatusOutOfList();
    const list = $('passkeys');
    const only = current.credentials.length === 1;
    list.replaceChildren(...current.credentials.map((credential) => passkeyItem(credential, only)));
    list.dataset.count = String(current.credentials.length);
    $('delete-account-confirm').hidden = true;
    $('signed-in-view').hidden = false;
    $('signed-out-panel').hidden = true;
  }

  function showSignedOut() {
    account = null;
    const who = $('whoami');
    who.dataset.username = '';
    who.textContent = 'Not signed in';
    $('display-name').textContent = '';
    $('greeting').hidden = true;
    keepStatusOutOfList();
    $('passkeys').replaceChildren();
    $('passkeys').dataset.count = '0';
    activity.clear();
    $('signed-in-view').hidden = true;
    $('signed-out-panel').hidden = false;
  }

  /** Names the page after the relying party it stands for (a tenant's own name on its host). */
  function showSite(site) {
    if (!site.rpName) return;
    $('site-name').textContent = site.rpName;
    document.title = `${site.rpName} – passkeys`;
  }

  /**
   * Asks the server whether anyone is signed in (GET /site, which never answers 401, so a signed-out
   * page logs no failed request), then who and which passkeys they have; shows the answer.
   */
  async function refreshView() {
    let site;
    try {
      site = await api('GET', '/site');
    } catch (err) {
      showSignedOut();
      throw err;
    }
    showSite(site);
    if (!site.signedIn) {
      showSignedOut();
      return null;
    }
    let session;
    try {
      session = await api('GET', '/session');
    } catch (err) {
      showSignedOut();
      if (err instanceof ServerError && err.httpStatus === 401) return null; // the session ended in between
      throw err;
    }
    const current = {
      username: session.username,
      displayName: session.displayName,
      userHandle: session.userHandle,
      rpId: session.rpId,
      credentials: [],
    };
    let list;
    try {
      list = await api('GET', '/credentials');
    } catch (err) {
      showSignedIn(current); // signed in, but without the list: the error says why
      throw err;
    }
    current.userHandle = list.userHandle || current.userHandle;
    current.rpId = list.rpId || current.rpId;
    current.credentials = list.credentials;
    showSignedIn(current);
    // The history is shown with the list; its failure is shown in its section, not as the outcome.
    await activity.refresh();
    return current;
  }

  // ---- recent activity ----------------------------------------------------------------------
  // The signed-in user's security events (GET /account/events), newest first, a page at a time.
  // Each refresh of the view shows the newest page again; "Show more" appends the next page.

  /** Swift's debugDescription of a string (`"Work \"laptop\""`) as the string itself. */
  function unquoteSwift(quoted) {
    if (quoted.length < 2 || quoted[0] !== '"' || quoted[quoted.length - 1] !== '"') return quoted;
    const escapes = { 0: '\0', t: '\t', n: '\n', r: '\r', '"': '"', "'": "'", '\\': '\\' };
    return quoted.slice(1, -1).replace(/\\(u\{([0-9a-fA-F]{1,8})\}|.)/g, (whole, escape, hex) => {
      if (hex) {
        const code = parseInt(hex, 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return Object.prototype.hasOwnProperty.call(escapes, escape) ? escapes[escape] : whole;
    });
  }

  /** The passkey an event is about: its name here now, else its provider's; '' when neither is known. */
  function eventPasskeyName(event) {
    const known = account && event.credentialId
      ? account.credentials.find((c) => c.id === event.credentialId) : null;
    if (known) return givenName(known);
    return event.authenticator ? providerName({ authenticatorName: event.authenticator.name }) : '';
  }

  /** The new name a rename event's detail (`renamed to "NAME"`) carries, or null. */
  function newName(detail) {
    const renamed = /^renamed to (".*")$/s.exec(detail);
    return renamed ? unquoteSwift(renamed[1]) : null;
  }

  /** One event as a sentence for a person. */
  function activitySentence(event) {
    const detail = typeof event.detail === 'string' ? event.detail : '';
    const passkey = eventPasskeyName(event);
    const dashed = (text) => (passkey ? `${text} — ${passkey}` : text);
    switch (event.type) {
      case 'user.created':
        return 'Account created';
      case 'passkey.registered':
        return dashed(detail === 'conditional' ? 'Passkey added automatically by your browser' : 'Passkey added');
      case 'passkey.renamed': {
        const name = newName(detail);
        if (name !== null) return `Passkey renamed to “${name}”`;
        return dashed(detail === 'name removed' ? 'Passkey name removed' : 'Passkey renamed');
      }
      case 'passkey.removed':
        return dashed('Passkey removed');
      case 'passkey.counter_regressed':
        return dashed('Warning: a sign-in counter went backwards; this passkey may have been copied');
      case 'device_key.enrolled':
        return detail === 'app attested' ? 'Device key added (app attested)' : 'Device key added';
      case 'device_key.renamed': {
        const name = newName(detail);
        if (name !== null) return `Device key renamed to “${name}”`;
        return detail === 'name removed' ? 'Device key name removed' : 'Device key renamed';
      }
      case 'device_key.removed':
        return 'Device key removed';
      case 'sign_in.succeeded':
        if (detail === 'device key') return 'Signed in with a device key';
        return passkey ? `Signed in with ${passkey}` : 'Signed in';
      case 'sign_in.refused': {
        const what = passkey ? `Sign-in with ${passkey} refused` : 'Sign-in refused';
        return detail ? `${what}: ${detail}` : what;
      }
      case 'session.ended':
        if (detail === 'signed out') return 'Signed out';
        if (detail === 'every session ended by an admin') return 'Signed out everywhere by an administrator';
        return detail ? `Session ended: ${detail}` : 'Session ended';
      case 'account.deleted':
        return 'Account deleted';
      case 'enrollment_ticket.issued':
        return detail ? `Enrollment link issued (${detail})` : 'Enrollment link issued';
      case 'enrollment_ticket.used':
        return 'Enrollment link used';
      case 'enrollment_ticket.revoked': {
        const revoked = /^(\d+) tickets? revoked$/.exec(detail);
        if (!revoked) return 'Enrollment links revoked';
        return revoked[1] === '1' ? 'Enrollment link revoked' : `${revoked[1]} enrollment links revoked`;
      }
      default:
        return detail ? `${event.type}: ${detail}` : String(event.type);
    }
  }

  function actorText(actor) {
    if (!actor || actor.type === 'user') return '';
    if (actor.type === 'admin') return actor.name ? `by admin key “${actor.name}”` : 'by an administrator';
    if (actor.type === 'system') return actor.name ? `by Latchkey (${actor.name})` : 'by Latchkey';
    return '';
  }

  function activityItem(event) {
    const item = $('activity-template').content.firstElementChild.cloneNode(true);
    item.dataset.type = String(event.type);
    item.dataset.eventId = String(event.id);
    if (event.credentialId) item.dataset.credentialId = event.credentialId;
    item.querySelector('.activity-text').textContent = activitySentence(event);
    showTime(item.querySelector('.activity-time'), event.time, 'unknown time', true);
    const client = event.client || {};
    const where = item.querySelector('.activity-client');
    where.textContent = client.address ? `from ${client.address}` : '';
    if (client.userAgent) where.title = client.userAgent;
    item.querySelector('.activity-actor').textContent = actorText(event.actor);
    return item;
  }

  const activity = {
    cursor: null,
    // Bumped by every refresh and clear, so a page that arrives late is dropped.
    generation: 0,

    setState(state) { $('activity').dataset.state = state; },

    show({ events, nextCursor }, append) {
      const list = $('activity');
      const items = (Array.isArray(events) ? events : []).map(activityItem);
      if (append) list.append(...items); else list.replaceChildren(...items);
      list.dataset.count = String(list.children.length);
      this.cursor = typeof nextCursor === 'string' && nextCursor ? nextCursor : null;
      $('activity-more').hidden = this.cursor === null;
      $('activity-empty').hidden = list.children.length > 0;
      $('activity-error').hidden = true;
      this.setState('ready');
    },

    failed(err) {
      const error = $('activity-error');
      error.textContent = `Recent activity could not be loaded: ${describeError(err)}`;
      error.hidden = false;
      this.setState('error');
    },

    /** The newest page; never throws. */
    async refresh() {
      const generation = ++this.generation;
      this.setState('loading');
      try {
        const page = await api('GET', '/account/events');
        if (generation === this.generation) this.show(page, false);
      } catch (err) {
        if (generation === this.generation) this.failed(err);
      }
    },

    /** The page after the ones shown. */
    async more() {
      if (!this.cursor) return;
      const generation = this.generation;
      const button = $('activity-more');
      button.disabled = true;
      this.setState('loading');
      try {
        const page = await api('GET', `/account/events?cursor=${encodeURIComponent(this.cursor)}`);
        if (generation === this.generation) this.show(page, true);
      } catch (err) {
        if (generation === this.generation) this.failed(err);
      } finally {
        button.disabled = busy;
      }
    },

    clear() {
      this.generation++;
      this.cursor = null;
      $('activity').replaceChildren();
      $('activity').dataset.count = '0';
      $('activity-more').hidden = true;
      $('activity-empty').hidden = true;
      $('activity-error').hidden = true;
      this.setState('idle');
    },
  };

  // ---- ceremonies -------------------------------------------------------------------------

  function requireWebAuthn() {
    if (!window.PublicKeyCredential || !navigator.credentials) {
      throw new Error('This browser does not support passkeys (WebAuthn).');
    }
  }

  async function createPasskey(username, displayName) {
    return registerWith({ username, displayName });
  }

  /** Registers a passkey with the options `request` asks for (a username, or an enrollment ticket). */
  async function registerWith(request) {
    requireWebAuthn();
    // The server decides resident key, user verification and attestation; its options reach the
    // browser unchanged.
    const reply = await api('POST', '/attestation/options', request);
    const publicKey = creationOptionsFromJSON(optionsFromReply(reply));
    const credential = await askBrowser('create', () => navigator.credentials.create({ publicKey }));
    if (!credential) throw new Error('The authenticator returned no passkey.');
    return api('POST', '/attestation/result', credentialToJSON(credential));
  }

  /** The server's request options, for `username` or (null) for any discoverable passkey. */
  async function requestSignIn(username, abortSignal) {
    const body = { userVerification: 'preferred' };
    if (username) body.username = username;
    return optionsFromReply(await api('POST', '/assertion/options', body, abortSignal));
  }

  /** Sends the assertion; a passkey the server does not know is reported to the browser. */
  async function finishSignIn(options, credential) {
    if (!credential) throw new Error('The authenticator returned no passkey.');
    try {
      return await api('POST', '/assertion/result', credentialToJSON(credential));
    } catch (err) {
      if (err instanceof ServerError && err.body.reason === 'unknownCredential') {
        const credentialId = err.body.credentialId || credential.id;
        const rpId = options.rpId || location.hostname;
        sendSignal('signalUnknownCredential', { rpId, credentialId });
        const advice = browserHas('signalUnknownCredential')
          ? 'Your browser has been told to forget it.'
          : 'You can delete it in your password manager.';
        throw new ServerError(err.httpStatus,
          `${err.message} This passkey is not registered here any more (it was removed, or its account was deleted). ${advice}`,
          err.body);
      }
      throw err;
    }
  }

  async function signIn(username) {
    requireWebAuthn();
    const options = await requestSignIn(username);
    const publicKey = requestOptionsFromJSON(options);
    const credential = await askBrowser('get', () => navigator.credentials.get({ publicKey }));
    return finishSignIn(options, credential);
  }

  function signedInMessage(result) {
    return `Signed in as ${result.username}.`;
  }

  // ---- autofill (conditional mediation) ---------------------------------------------------
  // While signed out, one conditional request waits for the person to pick a passkey from the
  // username field's autofill. It is aborted before any modal request (only one WebAuthn request
  // runs at a time) and renewed before its challenge expires.

  const autofill = {
    supported: false,
    controller: null,
    task: null,
    renewTimer: null,

    setState(state) { document.body.dataset.autofill = state; },

    start() {
      if (!this.supported || this.task || account || busy) return;
      const controller = new AbortController();
      this.controller = controller;
      this.setState('asking');
      this.task = this.wait(controller.signal).finally(() => {
        clearTimeout(this.renewTimer);
        if (this.controller === controller) {
          this.controller = null;
          this.task = null;
        }
      });
    },

    /** Aborts the pending request and waits until it has ended. */
    async stop() {
      const task = this.task;
      if (!task) return;
      this.controller.abort(new DOMException('The autofill request was withdrawn.', 'AbortError'));
      await task;
      this.setState('idle');
    },

    async renew() {
      if (busy) {
        this.renewTimer = setTimeout(() => { this.renew(); }, 5000);
        return;
      }
      await this.stop();
      this.start();
    },

    async wait(abortSignal) {
      let options;
      let credential;
      try {
        options = await requestSignIn(null, abortSignal);
        // Renew shortly before the server forgets the challenge (it lives `timeout` ms).
        const timeout = Number(options.timeout) || 300000;
        this.renewTimer = setTimeout(() => { this.renew(); }, Math.max(timeout - Math.min(10000, timeout / 10), 1000));
        this.setState('pending');
        credential = await navigator.credentials.get({
          mediation: 'conditional',
          publicKey: requestOptionsFromJSON(options),
          signal: abortSignal,
        });
      } catch (err) {
        if (abortSignal.aborted) return;
        this.setState('ended');
        // NotAllowedError: the browser ended the request without a choice; nothing went wrong.
        if (err && err.name === 'NotAllowedError') return;
        setStatus('error', `Passkey autofill is not available: ${describeError(err)}`, statusPlaces.autofill, errorCode(err));
        return;
      }
      this.setState('chosen');
      // This request is over; run() starts the next one once the outcome is known.
      this.controller = null;
      this.task = null;
      run('Signing in', async () => signedInMessage(await finishSignIn(options, credential)),
        { fromAutofill: true, announce: true, signsIn: true, place: statusPlaces.autofill });
    },
  };

  async function detectAutofill() {
    const pkc = window.PublicKeyCredential;
    if (!pkc || typeof pkc.isConditionalMediationAvailable !== 'function') return false;
    try {
      return Boolean(await pkc.isConditionalMediationAvailable());
    } catch (err) {
      console.warn('isConditionalMediationAvailable failed:', err);
      return false;
    }
  }

  // ---- automatic passkey upgrade (conditional create) ---------------------------------------
  // WebAuthn Level 3: right after a sign-in, the browser's password manager may make a passkey
  // for the person without asking them (typically when it has just filled their password). The
  // browser decides; refusing, or never answering, is its usual reply, so nothing is shown unless
  // a passkey was added. When the page offers it:
  //  - after a sign-in (buttons or autofill): every sign-in here is a passkey sign-in, but that
  //    passkey may live elsewhere (a security key, a phone); the server's excludeCredentials keeps
  //    a provider that already holds one of the user's passkeys from making another.
  //  - once per user and tab session, counted when the browser has answered (a request withdrawn
  //    for a sign-out, say, is offered again at the next sign-in).
  //  - not after a registration or an enrollment link (a passkey was just made), not for a session
  //    found when the page loads, and not on the signed-out enrollment page, where autofill holds
  //    the one WebAuthn request a page may have open and the link's button is a single tap.
  // Like autofill, the request is withdrawn before any action a person starts.

  const upgrade = {
    supported: false,
    controller: null,
    task: null,

    setState(state) { document.body.dataset.upgrade = state; },

    storageKey(username) { return `latchkey.upgradeOffered.${username}`; },

    offeredBefore(username) {
      try {
        return sessionStorage.getItem(this.storageKey(username)) !== null;
      } catch (err) {
        return false; // storage blocked: offer at every sign-in
      }
    },

    remember(username) {
      try {
        sessionStorage.setItem(this.storageKey(username), new Date().toISOString());
      } catch (err) {
        // storage blocked: nothing to remember it in
      }
    },

    start(username) {
      if (!this.supported || this.task || this.offeredBefore(username)) return;
      const controller = new AbortController();
      this.controller = controller;
      this.task = this.offer(username, controller.signal).finally(() => {
        if (this.controller === controller) {
          this.controller = null;
          this.task = null;
        }
      });
    },

    /** Withdraws the pending request and waits until it has ended. */
    async stop() {
      const task = this.task;
      if (!task) return;
      this.controller.abort(new DOMException('The passkey upgrade was withdrawn.', 'AbortError'));
      await task;
    },

    async offer(username, abortSignal) {
      this.setState('asking');
      let credential = null;
      try {
        const reply = await api('POST', '/attestation/options', { username, mediation: 'conditional' }, abortSignal);
        this.setState('pending');
        credential = await navigator.credentials.create({
          mediation: 'conditional',
          publicKey: creationOptionsFromJSON(optionsFromReply(reply)),
          signal: abortSignal,
        });
        if (!credential) throw new Error('The browser returned no passkey.');
        // Not withdrawn from here on: the password manager holds the passkey now.
        await api('POST', '/attestation/result', credentialToJSON(credential));
      } catch (err) {
        const withdrawn = abortSignal.aborted && !credential;
        this.setState(withdrawn ? 'withdrawn' : 'ended');
        if (!withdrawn) this.remember(username);
        console.debug('No automatic passkey upgrade:', err);
        // A passkey the server refused: tell the password manager which ones the account has.
        if (credential && account) signalAccount(account);
        return;
      }
      this.remember(username);
      this.setState('added');
      if (busy) return; // the action under way shows the new list
      try {
        const current = await refreshView();
        if (current) signalAccount(current);
        if (!busy) setStatus('ok', 'A passkey was added for you.', statusPlaces.passkeys);
      } catch (err) {
        console.debug('The passkey list could not be refreshed after the upgrade:', err);
      }
    },
  };

  async function detectUpgrade() {
    if (!browserHas('getClientCapabilities')) return false;
    try {
      return (await PublicKeyCredential.getClientCapabilities()).conditionalCreate === true;
    } catch (err) {
      console.debug('getClientCapabilities failed:', err);
      return false;
    }
  }

  // ---- account management -----------------------------------------------------------------

  /** Adds a passkey to the signed-in account; a session that signed in too long ago confirms with a sign-in first. */
  async function addPasskey() {
    if (!account) throw new Error('Sign in first.');
    const { username, displayName } = account;
    const add = () => createPasskey(username, displayName || username);
    let result;
    try {
      result = await add();
    } catch (err) {
      if (!(err instanceof ServerError && err.body.reason === 'reauthenticationRequired')) throw err;
      setStatus('busy', 'To add a passkey, first confirm it’s you with one you have…', statusPlaces.account);
      await signIn(username);
      result = await add();
    }
    return `Added another passkey for ${result.username}.`;
  }

  async function renamePasskey(credential, newName) {
    const name = newName.trim();
    if (!name) throw new Error('Enter a name for the passkey.');
    const reply = await api('PATCH', credentialPath(credential.id), { name });
    return `Renamed the passkey to “${reply.credential ? reply.credential.name : name}”.`;
  }

  async function removePasskey(credential) {
    await api('DELETE', credentialPath(credential.id));
    return `Removed ${thePasskey(credential)}.`;
  }

  async function deleteAccount() {
    const gone = account;
    if (!gone) throw new Error('Sign in first.');
    await api('DELETE', '/account');
    // No passkey of this user works any more.
    sendSignal('signalAllAcceptedCredentials', { rpId: gone.rpId, userId: gone.userHandle, allAcceptedCredentialIds: [] });
    return `Deleted the account ${gone.username} and its passkeys.`;
  }

  // ---- enrollment links ---------------------------------------------------------------------
  // A backend sends a person to `/#ticket=lk_ticket_...` to add a passkey to the account it made
  // for them: in the fragment, which the browser never sends, so no proxy or access log keeps it
  // (a link of an earlier Latchkey, `/?ticket=`, still works). The ticket works once; it leaves the
  // address bar as soon as the page has read it.

  const enrollment = { ticket: null };

  function readEnrollmentTicket() {
    const url = new URL(location.href);
    const fragment = new URLSearchParams(url.hash.slice(1));
    const ticket = fragment.get('ticket') || url.searchParams.get('ticket');
    if (!ticket) return;
    enrollment.ticket = ticket;
    url.searchParams.delete('ticket');
    fragment.delete('ticket');
    const rest = fragment.toString();
    history.replaceState(null, '', url.pathname + url.search + (rest ? '#' + rest : ''));
    $('enroll-panel').hidden = false;
  }

  async function enroll() {
    if (!enrollment.ticket) throw new Error('This page was not opened with an enrollment link.');
    const result = await registerWith({ enrollmentTicket: enrollment.ticket });
    enrollment.ticket = null;
    $('enroll-panel').hidden = true;
    return `Created a passkey for ${result.username}. You are signed in.`;
  }

  function readUsername() {
    const username = $('username').value.trim();
    if (!username) throw new Error('Enter a username first.');
    return username;
  }

  // ---- wiring -----------------------------------------------------------------------------

  function init() {
    readEnrollmentTicket();
    // A link opened while the page is open changes only the fragment, which reloads nothing.
    window.addEventListener('hashchange', readEnrollmentTicket);
    $('enroll').addEventListener('click', () => {
      run('Creating your passkey', enroll, { announce: true, place: statusPlaces.enroll });
    });

    $('account-form').addEventListener('submit', (event) => {
      event.preventDefault();
      run('Registering', async () => {
        const username = readUsername();
        const displayName = $('displayName').value.trim() || username;
        const result = await createPasskey(username, displayName);
        return `Registered a passkey for ${result.username}.`;
      }, { place: statusPlaces.form });
    });

    $('signin').addEventListener('click', () => {
      run('Signing in', async () => signedInMessage(await signIn(readUsername())),
        { announce: true, signsIn: true, place: statusPlaces.form });
    });

    $('signin-discoverable').addEventListener('click', () => {
      run('Signing in', async () => signedInMessage(await signIn(null)),
        { announce: true, signsIn: true, place: statusPlaces.discoverable });
    });

    // A person coming back to the field after autofill ended gets a fresh request.
    $('username').addEventListener('focus', () => autofill.start());

    $('add-passkey').addEventListener('click', () => {
      run('Adding a passkey', addPasskey, { announce: true, place: statusPlaces.account });
    });

    $('signout').addEventListener('click', () => {
      run('Signing out', async () => {
        await api('DELETE', '/session');
        return 'Signed out.';
      }, { place: statusPlaces.account });
    });

    $('delete-account').addEventListener('click', () => {
      if (!account) return;
      const count = account.credentials.length;
      $('delete-account-question').textContent =
        `Delete the account “${account.username}” and its ${count} ${count === 1 ? 'passkey' : 'passkeys'}? ` +
        'This cannot be undone.';
      $('delete-account-confirm').hidden = false;
      $('delete-account-no').focus();
    });
    $('activity-more').addEventListener('click', () => { activity.more(); });

    $('delete-account-no').addEventListener('click', () => { $('delete-account-confirm').hidden = true; });
    $('delete-account-yes').addEventListener('click', () => {
      run('Deleting the account', deleteAccount, { place: statusPlaces.deleteAccount });
    });

    loadPage();
  }

  async function loadPage() {
    autofill.supported = await detectAutofill();
    $('autofill-hint').hidden = !autofill.supported;
    autofill.setState(autofill.supported ? 'idle' : 'unsupported');
    upgrade.supported = await detectUpgrade();
    upgrade.setState(upgrade.supported ? 'idle' : 'unsupported');
    try {
      await refreshView();
    } catch (err) {
      setStatus('error', describeError(err));
    }
    $('status').dataset.ready = 'true';
    if (!account) autofill.start();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();

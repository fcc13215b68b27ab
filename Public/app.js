// Latchkey demo page: register and sign in with passkeys against the Latchkey HTTP API.
// No frameworks, no external resources. See docs/HTTP-API.md for the endpoints.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  // ---- base64url (no padding) -------------------------------------------------------------

  function bytesToBase64url(buffer) {
    const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function base64urlToBytes(text) {
    if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) {
      throw new TypeError('not a base64url string');
    }
    let b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4 !== 0) b64 += '=';
    const binary = atob(b64);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out.buffer;
  }

  // ---- JSON <-> WebAuthn objects ----------------------------------------------------------

  // The server puts the options next to "status" and "errorMessage": remove those two.
  function stripEnvelope(reply) {
    const options = Object.assign({}, reply);
    delete options.status;
    delete options.errorMessage;
    return options;
  }

  function descriptorsFromJSON(list) {
    return (list || []).map((d) => Object.assign({}, d, { id: base64urlToBytes(d.id) }));
  }

  function creationOptionsFromJSON(json) {
    if (window.PublicKeyCredential && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function') {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    const options = Object.assign({}, json);
    options.challenge = base64urlToBytes(json.challenge);
    options.user = Object.assign({}, json.user, { id: base64urlToBytes(json.user.id) });
    options.excludeCredentials = descriptorsFromJSON(json.excludeCredentials);
    return options;
  }

  function requestOptionsFromJSON(json) {
    if (window.PublicKeyCredential && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function') {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    const options = Object.assign({}, json);
    options.challenge = base64urlToBytes(json.challenge);
    options.allowCredentials = descriptorsFromJSON(json.allowCredentials);
    return options;
  }

  function credentialToJSON(credential) {
    if (typeof credential.toJSON === 'function') {
      try {
        return credential.toJSON();
      } catch (e) {
        // Fall through to the hand-written encoding.
      }
    }
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: bytesToBase64url(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      clientExtensionResults: typeof credential.getClientExtensionResults === 'function'
        ? credential.getClientExtensionResults() : {},
      response: { clientDataJSON: bytesToBase64url(response.clientDataJSON) },
    };
    if (response.attestationObject) {
      json.response.attestationObject = bytesToBase64url(response.attestationObject);
      if (typeof response.getTransports === 'function') json.response.transports = response.getTransports();
      if (typeof response.getAuthenticatorData === 'function') {
        json.response.authenticatorData = bytesToBase64url(response.getAuthenticatorData());
      }
      if (typeof response.getPublicKey === 'function') {
        const key = response.getPublicKey();
        if (key) json.response.publicKey = bytesToBase64url(key);
      }
      if (typeof response.getPublicKeyAlgorithm === 'function') {
        json.response.publicKeyAlgorithm = response.getPublicKeyAlgorithm();
      }
    } else {
      json.response.authenticatorData = bytesToBase64url(response.authenticatorData);
      json.response.signature = bytesToBase64url(response.signature);
      if (response.userHandle && response.userHandle.byteLength > 0) {
        json.response.userHandle = bytesToBase64url(response.userHandle);
      }
    }
    return json;
  }

  // ---- HTTP -------------------------------------------------------------------------------

  class ServerError extends Error {
    constructor(httpStatus, message) {
      super(message);
      this.name = 'ServerError';
      this.httpStatus = httpStatus;
    }
  }

  async function api(method, path, body) {
    const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok || !data || data.status !== 'ok') {
      const message = data && typeof data.errorMessage === 'string' && data.errorMessage
        ? data.errorMessage
        : `HTTP ${response.status} ${response.statusText}`.trim();
      throw new ServerError(response.status, message);
    }
    return data;
  }

  // ---- UI state ---------------------------------------------------------------------------

  let busy = false;
  let seq = 0;
  let currentUser = null;

  function setStatus(state, message) {
    const el = $('status');
    el.textContent = message;
    el.dataset.state = state;
    if (state !== 'busy') {
      seq += 1;
      el.dataset.seq = String(seq);
    }
  }

  function describeError(err) {
    if (err instanceof ServerError) return err.message;
    if (err && err.name && err.message) return `${err.name}: ${err.message}`;
    return String(err);
  }

  function setBusy(value) {
    busy = value;
    document.querySelectorAll('button').forEach((b) => { b.disabled = value; });
  }

  function showSession(username) {
    currentUser = username;
    const who = $('whoami');
    who.dataset.username = username || '';
    who.textContent = username ? `Signed in as ${username}` : 'Not signed in';
    $('signed-in-actions').hidden = !username;
    $('signed-out-panel').hidden = Boolean(username);
  }

  async function refreshSession() {
    try {
      const reply = await api('GET', '/session');
      showSession(reply.username);
    } catch (err) {
      if (err instanceof ServerError && err.httpStatus === 401) {
        showSession(null);
      } else {
        showSession(null);
        throw err;
      }
    }
  }

  async function run(label, action) {
    if (busy) return;
    setBusy(true);
    setStatus('busy', `${label}…`);
    let state = 'ok';
    let message = '';
    try {
      message = await action();
    } catch (err) {
      state = 'error';
      message = describeError(err);
    }
    try {
      await refreshSession();
    } catch (err) {
      if (state === 'ok') {
        state = 'error';
        message = describeError(err);
      }
    }
    setBusy(false);
    // The status is written last, after the session view is up to date.
    setStatus(state, message);
  }

  function webauthnAvailable() {
    if (!window.PublicKeyCredential || !navigator.credentials) {
      throw new Error('This browser does not support passkeys (WebAuthn).');
    }
  }

  // ---- ceremonies -------------------------------------------------------------------------

  async function registerPasskey(username, displayName) {
    webauthnAvailable();
    const reply = await api('POST', '/attestation/options', {
      username,
      displayName,
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: 'preferred',
      },
      attestation: 'none',
    });
    const publicKey = creationOptionsFromJSON(stripEnvelope(reply));
    const credential = await navigator.credentials.create({ publicKey });
    if (!credential) throw new Error('The authenticator returned no credential.');
    return api('POST', '/attestation/result', credentialToJSON(credential));
  }

  async function signIn(username) {
    webauthnAvailable();
    const body = { userVerification: 'preferred' };
    if (username) body.username = username;
    const reply = await api('POST', '/assertion/options', body);
    const publicKey = requestOptionsFromJSON(stripEnvelope(reply));
    const credential = await navigator.credentials.get({ publicKey });
    if (!credential) throw new Error('The authenticator returned no credential.');
    return api('POST', '/assertion/result', credentialToJSON(credential));
  }

  function readUsername() {
    const username = $('username').value.trim();
    if (!username) throw new Error('Enter a username first.');
    return username;
  }

  // ---- wiring -----------------------------------------------------------------------------

  function init() {
    $('account-form').addEventListener('submit', (event) => {
      event.preventDefault();
      run('Registering', async () => {
        const username = readUsername();
        const displayName = $('displayName').value.trim() || username;
        const result = await registerPasskey(username, displayName);
        return `Registered a passkey for ${result.username} (credential ${result.credentialId}).`;
      });
    });

    $('signin').addEventListener('click', () => {
      run('Signing in', async () => {
        const result = await signIn(readUsername());
        return `Signed in as ${result.username} (credential ${result.credentialId}).`;
      });
    });

    $('signin-discoverable').addEventListener('click', () => {
      run('Signing in', async () => {
        const result = await signIn(null);
        return `Signed in as ${result.username} (credential ${result.credentialId}).`;
      });
    });

    $('add-passkey').addEventListener('click', () => {
      run('Adding a passkey', async () => {
        if (!currentUser) throw new Error('Sign in first.');
        const result = await registerPasskey(currentUser, currentUser);
        return `Added a passkey for ${result.username} (credential ${result.credentialId}).`;
      });
    });

    $('signout').addEventListener('click', () => {
      run('Signing out', async () => {
        await api('POST', '/session/logout');
        return 'Signed out.';
      });
    });

    refreshSession()
      .then(() => { $('status').dataset.ready = 'true'; })
      .catch((err) => {
        $('status').dataset.ready = 'true';
        setStatus('error', describeError(err));
      });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();

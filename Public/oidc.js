// The OpenID provider's sign-in page: a passkey sign-in through the relying party's own ceremony routes, then the
// authorization request again (the server put it in `data-continue`), which now finds the session and sends the
// browser back to the app with a code (or the device page again, with its code). Usernameless by default (the browser's account picker), a username when one
// is typed or the app sent `login_hint`, and passkey autofill where the browser has it. Loaded after webauthn-json.js.
'use strict';

(function () {
  const main = document.getElementById('oidc');
  if (!main || main.dataset.step !== 'sign-in') return;
  const { optionsFromReply, requestOptionsFromJSON, credentialToJSON } = window.LatchkeyWebAuthnJSON;
  const form = document.getElementById('oidc-sign-in');
  const input = document.getElementById('oidc-username');
  const button = document.getElementById('oidc-sign-in-button');
  const status = document.getElementById('oidc-status');
  let autofill = null;

  function say(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind || 'info';
  }

  /** A POST of JSON to the relying party's routes, beside this page (`../`). */
  async function post(path, body, signal) {
    const response = await fetch(`../${path}`, {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body), signal,
    });
    const reply = await response.json().catch(() => ({}));
    if (!response.ok || reply.status === 'failed') {
      throw new Error(reply.errorMessage || `The server answered ${response.status}.`);
    }
    return reply;
  }

  async function options(username, signal) {
    const body = { userVerification: 'preferred' };
    if (username) body.username = username;
    return optionsFromReply(await post('assertion/options', body, signal));
  }

  /** Back to the authorization request: the session cookie the sign-in set lets it answer with a code. */
  function carryOn() {
    say('Signed in. Going back to the app…', 'ok');
    location.replace(main.dataset.continue);
  }

  async function signIn(event) {
    event.preventDefault();
    if (autofill) autofill.abort();
    button.disabled = true;
    say('Waiting for your passkey…');
    try {
      const username = input.value.trim();
      const publicKey = requestOptionsFromJSON(await options(username || null));
      const credential = await navigator.credentials.get({ publicKey });
      await post('assertion/result', credentialToJSON(credential));
      carryOn();
    } catch (err) {
      button.disabled = false;
      say(err && err.name === 'NotAllowedError'
        ? 'No passkey was used. Try again, or type your username.'
        : `Sign-in failed: ${err && err.message ? err.message : err}`, 'error');
    }
  }

  /** Passkey autofill: a conditional request waits for a pick from the username field's suggestions. */
  async function startAutofill() {
    if (!window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable) return;
    if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
    autofill = new AbortController();
    try {
      const publicKey = requestOptionsFromJSON(await options(null, autofill.signal));
      const credential = await navigator.credentials.get({ mediation: 'conditional', publicKey, signal: autofill.signal });
      await post('assertion/result', credentialToJSON(credential));
      carryOn();
    } catch (err) {
      // Withdrawn for a button press, or ended without a pick: the button is still there.
    }
  }

  if (!window.PublicKeyCredential || !navigator.credentials) {
    say('This browser does not support passkeys.', 'error');
    button.disabled = true;
    return;
  }
  form.addEventListener('submit', signIn);
  if (!main.dataset.loginHint) startAutofill();
})();

// The WebAuthn JSON both of Latchkey's pages use (the passkey page and the operator console): the server's options
// as the browser's, and a credential as the JSON the server reads. Browsers with WebAuthn Level 3 parse and serialise
// it themselves; for the others, a decoder that copies every member the server sent and turns the base64url ones
// into bytes, so nothing the server asked for (attestation, hints, extensions, ...) is overridden.
// Plain JavaScript, loaded before each page's own script: it defines `window.LatchkeyWebAuthnJSON` and nothing else.
'use strict';

window.LatchkeyWebAuthnJSON = (function () {
  // ---- base64url (no padding) -------------------------------------------------------------

  function bytesToBase64url(value) {
    const bytes = ArrayBuffer.isView(value)
      ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
      : new Uint8Array(value);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  /** Decodes base64url (padding tolerated); `what` names the member in the error. */
  function base64urlToBytes(text, what) {
    if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
      throw new TypeError(`The server sent ${what} that is not base64url.`);
    }
    const b64 = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out.buffer;
  }

  // ---- server JSON -> WebAuthn options ----------------------------------------------------

  /** The options are at the top level of the reply, next to "status" and "errorMessage". */
  function optionsFromReply(reply) {
    const options = Object.assign({}, reply);
    delete options.status;
    delete options.errorMessage;
    return options;
  }

  function requireObject(value, what) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new TypeError(`The server's options have no ${what}.`);
    }
    return value;
  }

  function descriptorsFromJSON(list, what) {
    if (list === undefined) return undefined;
    if (!Array.isArray(list)) throw new TypeError(`The server's ${what} is not a list.`);
    return list.map((descriptor, index) => {
      requireObject(descriptor, `${what}[${index}]`);
      return Object.assign({}, descriptor, { id: base64urlToBytes(descriptor.id, `${what}[${index}].id`) });
    });
  }

  // Extension inputs that carry bytes (WebAuthn Level 3 §10, the JSON forms).
  function prfValuesFromJSON(values, what) {
    const out = { first: base64urlToBytes(values.first, `${what}.first`) };
    if (values.second !== undefined) out.second = base64urlToBytes(values.second, `${what}.second`);
    return out;
  }

  function extensionsFromJSON(extensions) {
    if (extensions === undefined) return undefined;
    const out = Object.assign({}, requireObject(extensions, 'extensions object'));
    if (out.prf) {
      const prf = Object.assign({}, out.prf);
      if (prf.eval) prf.eval = prfValuesFromJSON(prf.eval, 'extensions.prf.eval');
      if (prf.evalByCredential) {
        const byCredential = {};
        for (const [id, values] of Object.entries(prf.evalByCredential)) {
          byCredential[id] = prfValuesFromJSON(values, `extensions.prf.evalByCredential.${id}`);
        }
        prf.evalByCredential = byCredential;
      }
      out.prf = prf;
    }
    if (out.largeBlob && out.largeBlob.write !== undefined) {
      out.largeBlob = Object.assign({}, out.largeBlob, {
        write: base64urlToBytes(out.largeBlob.write, 'extensions.largeBlob.write'),
      });
    }
    return out;
  }

  function withoutUndefined(object) {
    for (const key of Object.keys(object)) {
      if (object[key] === undefined) delete object[key];
    }
    return object;
  }

  /** Whether this browser's PublicKeyCredential has the static method `name`. */
  function browserHas(name) {
    return Boolean(window.PublicKeyCredential) && typeof PublicKeyCredential[name] === 'function';
  }

  function creationOptionsFromJSON(json) {
    if (browserHas('parseCreationOptionsFromJSON')) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    const user = requireObject(json.user, 'user');
    requireObject(json.rp, 'rp');
    return withoutUndefined(Object.assign({}, json, {
      challenge: base64urlToBytes(json.challenge, 'a challenge'),
      user: Object.assign({}, user, { id: base64urlToBytes(user.id, 'a user.id') }),
      excludeCredentials: descriptorsFromJSON(json.excludeCredentials, 'excludeCredentials'),
      extensions: extensionsFromJSON(json.extensions),
    }));
  }

  function requestOptionsFromJSON(json) {
    if (browserHas('parseRequestOptionsFromJSON')) {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    return withoutUndefined(Object.assign({}, json, {
      challenge: base64urlToBytes(json.challenge, 'a challenge'),
      allowCredentials: descriptorsFromJSON(json.allowCredentials, 'allowCredentials'),
      extensions: extensionsFromJSON(json.extensions),
    }));
  }

  // ---- WebAuthn credential -> JSON --------------------------------------------------------

  /** Extension outputs may hold bytes (prf results, largeBlob blobs): those become base64url. */
  function bytesAsBase64url(value) {
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return bytesToBase64url(value);
    if (Array.isArray(value)) return value.map(bytesAsBase64url);
    if (value && typeof value === 'object') {
      const out = {};
      for (const [key, member] of Object.entries(value)) out[key] = bytesAsBase64url(member);
      return out;
    }
    return value;
  }

  function credentialToJSON(credential) {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: bytesToBase64url(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      clientExtensionResults: typeof credential.getClientExtensionResults === 'function'
        ? bytesAsBase64url(credential.getClientExtensionResults()) : {},
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

  return Object.freeze({
    bytesToBase64url, base64urlToBytes, optionsFromReply, creationOptionsFromJSON, requestOptionsFromJSON,
    credentialToJSON, browserHas,
  });
})();

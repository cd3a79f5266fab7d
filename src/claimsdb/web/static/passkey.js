// Passkeys (WebAuthn) for signed re-reads: the server's JSON options in, the JSON response out.
// The server sends options with base64url fields (claimsdb.trust.passkeys); these functions turn them
// into the buffers navigator.credentials wants, ask the authenticator, and return what to POST back,
// base64url again. No framework, no inline script, no eval: it loads under a strict CSP.
//
//   const response = await window.claimsPasskey.register(options);  // options for credentials.create
//   const response = await window.claimsPasskey.assert(options);    // options for credentials.get
(function () {
  "use strict";

  function toBytes(text) {
    const base64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function toText(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map(function (d) {
      return Object.assign({}, d, { id: toBytes(d.id) });
    });
  }

  function creationOptions(options) {
    return Object.assign({}, options, {
      challenge: toBytes(options.challenge),
      user: Object.assign({}, options.user, { id: toBytes(options.user.id) }),
      excludeCredentials: descriptors(options.excludeCredentials),
    });
  }

  function requestOptions(options) {
    return Object.assign({}, options, {
      challenge: toBytes(options.challenge),
      allowCredentials: descriptors(options.allowCredentials),
    });
  }

  function credentialJson(credential, response) {
    const json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      response: response,
      clientExtensionResults: {},  // no extension is asked for
    };
    if (credential.authenticatorAttachment) {
      json.authenticatorAttachment = credential.authenticatorAttachment;
    }
    return json;
  }

  async function register(options) {
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    if (!credential) throw new Error("no passkey was created");
    return credentialJson(credential, {
      clientDataJSON: toText(credential.response.clientDataJSON),
      attestationObject: toText(credential.response.attestationObject),
    });
  }

  async function assert(options) {
    const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
    if (!credential) throw new Error("no passkey answered");
    const response = {
      clientDataJSON: toText(credential.response.clientDataJSON),
      authenticatorData: toText(credential.response.authenticatorData),
      signature: toText(credential.response.signature),
    };
    if (credential.response.userHandle) {
      response.userHandle = toText(credential.response.userHandle);
    }
    return credentialJson(credential, response);
  }

  window.claimsPasskey = Object.freeze({ register: register, assert: assert });
})();

// The web view's passkey steps (claimsdb.web.signing), over passkey.js: registering a passkey from an
// invitation's page, and signing a re-read from the queue's form. No inline script: it loads under the
// server's CSP (script-src 'self'; connect-src 'self').
(function () {
  "use strict";

  async function post(path, body) {
    const answer = await fetch(path, {
      method: "POST",
      body: new URLSearchParams(body),
      credentials: "same-origin",
    });
    let data;
    try {
      data = await answer.json();
    } catch (e) {
      data = { error: "the server answered " + answer.status };
    }
    if (!answer.ok || data.error) throw new Error(data.error || "the server answered " + answer.status);
    return data;
  }

  function say(element, text) {
    element.textContent = text;
    element.hidden = false;
  }

  function failed(error) {
    if (error && error.name === "NotAllowedError") {
      return "The passkey was not used (cancelled, or it timed out): nothing was recorded.";
    }
    return String((error && error.message) || error);
  }

  async function register(form, status) {
    const fields = { csrf: form.elements.csrf.value, token: form.elements.token.value };
    const options = await post("/passkey/options", fields);
    const response = await window.claimsPasskey.register(options);
    const done = await post("/passkey", Object.assign({}, fields, { response: JSON.stringify(response) }));
    say(status, done.message);
    form.hidden = true;
  }

  async function signReread(form, submitter) {
    const fields = new FormData(form, submitter);
    const prepared = await post("/queue/prepare", fields);
    const assertion = await window.claimsPasskey.assert(prepared.options);
    const done = await post("/queue/sign", {
      csrf: fields.get("csrf"),
      id: prepared.id,
      assertion: JSON.stringify(assertion),
    });
    window.location.assign(done.redirect);
  }

  function wire(form, status, step) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      const buttons = form.querySelectorAll("button");
      buttons.forEach(function (b) { b.disabled = true; });
      status.hidden = true;
      step(form, event.submitter).catch(function (error) {
        say(status, failed(error));
        buttons.forEach(function (b) { b.disabled = false; });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const registering = document.querySelector("form.passkey-register");
    if (registering) {
      const status = document.querySelector(".passkey-status");
      wire(registering, status, function (form) { return register(form, status); });
    }
    const reread = document.querySelector("form.reread[data-sign=passkey]");
    if (reread) wire(reread, reread.querySelector(".passkey-status"), signReread);
  });
})();

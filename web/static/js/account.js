// The account dialog, loaded when first opened: sign up or in with a
// passkey or a password, and, signed in, add a passkey, sign out (here or
// everywhere) or delete the account (docs/api.md, Accounts). The session
// is an HttpOnly cookie: the page never sees it.

import { t, translatePage } from "./i18n.js";
import { busy, el } from "./ui.js";

let dialog = null;
let account = null; // the signed-in account, or null

async function call(path, body) {
  return busy(async () => {
    const init = { method: body === undefined ? "GET" : "POST", headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch {
      throw new Error(t("error.network"));
    }
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const err = new Error((data && data.error) || `HTTP ${res.status}`);
      err.status = res.status;
      throw err;
    }
    return data;
  });
}

// The server's refusals, in the page's language.
function problem(err) {
  const msg = String(err.message || err);
  if (err.name === "NotAllowedError" || err.name === "AbortError") return t("account.passkeyCancelled");
  if (msg.startsWith("this passkey may have been copied")) return t("account.passkeyCopied");
  if (msg.startsWith("this passkey is registered already")) return t("account.passkeyRegistered");
  if (err.status === 401) return t("account.wrong");
  if (err.status === 409 && msg.includes("looks like another player")) return t("account.lookAlike");
  if (err.status === 409) return t("account.taken");
  if (err.status === 429) return t("account.tooMany");
  if (msg.startsWith("bad username")) return t("account.badName");
  if (msg.startsWith("bad password")) return t("account.badPassword");
  return t("error.server", { error: msg });
}

const b64 = {
  decode: (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
  encode: (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
};

function creationOptions(o) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(o);
  return { ...o, challenge: b64.decode(o.challenge), user: { ...o.user, id: b64.decode(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: b64.decode(c.id) })) };
}

function requestOptions(o) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(o);
  return { ...o, challenge: b64.decode(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: b64.decode(c.id) })) };
}

function credentialJSON(c) {
  if (c.toJSON) return c.toJSON();
  const r = {};
  for (const k of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
    if (c.response[k]) r[k] = b64.encode(c.response[k]);
  }
  return { id: c.id, rawId: b64.encode(c.rawId), type: c.type, response: r, clientExtensionResults: {} };
}

async function registerPasskey(name) {
  const begin = await call("/api/account/passkey/register/begin", name === undefined ? {} : { name });
  const cred = await navigator.credentials.create({ publicKey: creationOptions(begin.publicKey) });
  return call("/api/account/passkey/register/finish", credentialJSON(cred));
}

async function passkeySignIn() {
  const begin = await call("/api/account/passkey/signin/begin", {});
  const cred = await navigator.credentials.get({ publicKey: requestOptions(begin.publicKey) });
  return call("/api/account/passkey/signin/finish", credentialJSON(cred));
}

// Each label's key is set where it is used, so that the catalog test
// finds it.
const field = (id, type, autocomplete) => {
  const wrap = el("div", "account-field");
  const l = el("label");
  l.htmlFor = id;
  const input = el("input");
  Object.assign(input, { id, type, autocomplete, spellcheck: false });
  wrap.append(l, input);
  return wrap;
};

const button = (id, cls = "") => {
  const b = el("button", cls);
  Object.assign(b, { type: "button", id });
  return b;
};

function build() {
  dialog = el("dialog", "dialog account-dialog");
  dialog.id = "account-dialog";
  dialog.setAttribute("aria-labelledby", "account-title");
  const title = el("h2");
  title.id = "account-title";
  title.dataset.i18n = "account.title";
  const intro = el("p", "field-note");
  intro.dataset.i18n = "account.intro";
  const name = field("account-name", "text", "username webauthn");
  name.firstChild.dataset.i18n = "account.name";
  const password = field("account-password", "password", "current-password");
  password.firstChild.dataset.i18n = "account.password";
  const signIn = button("account-signin", "primary");
  signIn.dataset.i18n = "account.signIn";
  const signUp = button("account-signup");
  signUp.dataset.i18n = "account.signUp";
  const keySignIn = button("account-passkey-signin");
  keySignIn.dataset.i18n = "account.passkeySignIn";
  const keySignUp = button("account-passkey-signup");
  keySignUp.dataset.i18n = "account.passkeySignUp";
  // A form, so that password managers see the fields together.
  const out = el("form", "account-out");
  out.addEventListener("submit", (e) => e.preventDefault());
  const row = (...items) => {
    const r = el("div", "dialog-buttons account-actions");
    r.append(...items);
    return r;
  };
  out.append(intro, name, password, row(signIn, signUp), row(keySignIn, keySignUp));

  const who = el("p", "account-who");
  who.id = "account-who";
  const addKey = button("account-add-passkey");
  addKey.dataset.i18n = "account.addPasskey";
  const signOut = button("account-signout");
  signOut.dataset.i18n = "account.signOut";
  const signOutAll = button("account-signout-all");
  signOutAll.dataset.i18n = "account.signOutAll";
  const del = el("details", "advanced");
  const sum = el("summary");
  sum.dataset.i18n = "account.delete";
  const note = el("p", "field-note");
  note.dataset.i18n = "account.deleteNote";
  const confirm = field("account-confirm", "text", "off");
  confirm.firstChild.dataset.i18n = "account.name";
  const delButton = button("account-delete");
  delButton.dataset.i18n = "account.delete";
  del.append(sum, note, confirm, delButton);
  const inside = el("div", "account-in");
  inside.append(who, row(addKey, signOut, signOutAll), del);

  // Where passkeys cannot work, the page says why (render).
  const keyNote = el("p", "field-note");
  keyNote.id = "account-passkey-note";
  keyNote.hidden = true;
  const msg = el("p", "form-error");
  msg.id = "account-message";
  msg.setAttribute("role", "alert");
  // What was done, said as done (a passkey added).
  const done = el("p", "account-status");
  done.id = "account-status";
  done.setAttribute("role", "status");
  const close = button("account-close");
  close.dataset.i18n = "account.close";
  dialog.append(title, out, inside, keyNote, msg, done, row(close));
  document.body.append(dialog);
  translatePage(dialog);

  const $ = (id) => document.getElementById(id);
  const value = (id) => $(id).value.trim();
  const act = (id, fn) => $(id).addEventListener("click", async () => {
    $("account-message").textContent = $("account-status").textContent = "";
    try {
      const res = await fn();
      if (res && "account" in res) account = res.account;
      render();
      // The lobby's connection follows who is signed in.
      dispatchEvent(new Event("endodoi:account"));
    } catch (err) {
      $("account-message").textContent = problem(err);
    }
  });
  const cleared = () => {
    account = null;
    $("account-password").value = "";
    return null;
  };
  act("account-signin", () => call("/api/account/signin", { name: value("account-name"), password: $("account-password").value }));
  act("account-signup", () => call("/api/account/signup", { name: value("account-name"), password: $("account-password").value }));
  act("account-passkey-signin", passkeySignIn);
  act("account-passkey-signup", () => registerPasskey(value("account-name")));
  act("account-add-passkey", async () => {
    const res = await registerPasskey();
    $("account-status").textContent = t("account.passkeyAdded");
    return res;
  });
  act("account-signout", async () => cleared(await call("/api/account/signout", {})));
  act("account-signout-all", async () => cleared(await call("/api/account/signout-everywhere", {})));
  act("account-delete", async () => cleared(await call("/api/me/delete", { confirm: value("account-confirm") })));
  $("account-close").addEventListener("click", () => dialog.close());
}

function render() {
  dialog.querySelector(".account-out").hidden = !!account;
  dialog.querySelector(".account-in").hidden = !account;
  if (account) {
    document.getElementById("account-who").textContent = t("account.signedIn", { name: account.name });
  }
  const open = document.getElementById("account-open");
  // Signed in, the button shows the name, in no language.
  if (account) delete open.dataset.i18n;
  else open.dataset.i18n = "account.button";
  open.textContent = account ? account.name : t("account.button");
  const why = passkeysMissing();
  for (const id of ["account-passkey-signin", "account-passkey-signup", "account-add-passkey"]) document.getElementById(id).hidden = !!why;
  const note = document.getElementById("account-passkey-note");
  note.hidden = !why;
  if (why === "insecure") note.dataset.i18n = "account.passkeyInsecure";
  if (why === "unsupported") note.dataset.i18n = "account.passkeyUnsupported";
  if (why) translatePage(dialog);
}

/**
 * Why passkeys cannot work on this page ("insecure", "unsupported"), or "": a
 * browser offers them only in a secure context (HTTPS, or localhost), and
 * a passkey belongs to a site's name, never to an IP address.
 */
function passkeysMissing() {
  const ip = /^[\d.]+$/.test(location.hostname) || location.hostname.startsWith("[");
  if (!window.isSecureContext || ip) return "insecure";
  if (!window.PublicKeyCredential || !navigator.credentials) return "unsupported";
  return "";
}

/** Opens the account dialog, asking the server who is signed in. */
export async function openAccount() {
  if (!dialog) build();
  document.getElementById("account-message").textContent = document.getElementById("account-status").textContent = "";
  try {
    account = (await call("/api/me")).account;
  } catch (err) {
    document.getElementById("account-message").textContent = problem(err);
  }
  render();
  if (!dialog.open) dialog.showModal();
}

// DreamChat web client: a hash router over a friends sidebar and one main view at a time. Opened at `/admin`,
// the same page is the operator console (views/admin.js), with no sidebar.

import { describe, post, session } from "./lib/api.js";
import { syncZone } from "./lib/clock.js";
import { loadConfig } from "./lib/config.js";
import { h, toast } from "./lib/dom.js";
import { clearDrafts } from "./lib/drafts.js";
import { forgetHelpLines } from "./lib/help_lines.js";
import { forgetKept } from "./lib/offline_cache.js";
import "./lib/install.js"; // listens for the install prompt from the start
import { Presence } from "./lib/presence.js";
import { forgetDevice, registerWorker, syncPush } from "./lib/push.js";
import { renderAdmin } from "./views/admin.js";
import { renderAuth } from "./views/auth.js";
import { renderCharacter } from "./views/character.js";
import { renderChat } from "./views/chat.js";
import { renderDiscover } from "./views/discover.js";
import { renderEditor } from "./views/editor.js";
import { FriendsList, renderHome } from "./views/friends.js";
import { renderMemory } from "./views/memory.js";
import { renderSettings } from "./views/settings.js";

const root = document.getElementById("app");
const side = document.getElementById("side");
const main = document.getElementById("main");

const ADMIN = /^\/admin\/?$/.test(location.pathname);

const PERSON_ROUTES = [
  [/^\/login$/, "login", (ctx) => renderAuth(main, ctx)],
  [/^\/$/, "home", (ctx) => renderHome(main, ctx)],
  [/^\/discover(?:\?(.*))?$/, "discover", (ctx, query) => renderDiscover(main, ctx, query)],
  [/^\/character\/([\w-]+)$/, "discover", (ctx, id) => renderCharacter(main, ctx, id)],
  [/^\/new$/, "form", (ctx) => renderEditor(main, ctx, null)],
  [/^\/edit\/([\w-]+)$/, "form", (ctx, id) => renderEditor(main, ctx, id)],
  [/^\/chat\/([\w-]+)$/, "chat", (ctx, id) => renderChat(main, ctx, id)],
  [/^\/settings$/, "settings", (ctx) => renderSettings(main, ctx)],
  [/^\/settings\/protection$/, "settings", (ctx) => renderSettings(main, ctx, "protection")],
  [/^\/memory\/([\w-]+)$/, "memory", (ctx, id) => renderMemory(main, ctx, id)],
];

// The console routes its own screens (#/reports/<id>, #/escalations, …) under one shell with the badges.
const ADMIN_ROUTES = [
  [/^\/login$/, "login", (ctx) => renderAuth(main, ctx)],
  [/^(\/.*)$/, "admin", (ctx, path) => renderAdmin(main, ctx, path)],
];

const ROUTES = ADMIN ? ADMIN_ROUTES : PERSON_ROUTES;

let cleanup = null;
let friends = null;
let ready = false; // the client config is loaded: screens can be drawn
// the console is no device showing a chat of its own: it tells the server nothing about presence
const presence = ADMIN ? { show() {}, stop() {} } : new Presence();
const offline = document.getElementById("offline");

const ctx = {
  go: (path) => {
    location.hash = `#${path}`;
  },
  account: () => session.get()?.user || null,
  friends: () => friends,
  logout,
};

function currentPath() {
  return location.hash.replace(/^#/, "") || "/";
}

function route() {
  if (!ready) return;
  const path = currentPath();
  const loggedIn = Boolean(session.get());
  if (!loggedIn && path !== "/login") return location.replace("#/login");
  if (loggedIn && path === "/login") return location.replace("#/");
  const match = ROUTES.map(([pattern, view, render]) => [path.match(pattern), view, render]).find(([m]) => m);
  if (!match) return location.replace("#/");
  const [found, view, render] = match;
  cleanup?.();
  cleanup = null;
  root.dataset.view = view;
  syncSidebar(view, found[1]);
  main.scrollTop = 0;
  cleanup = render(ctx, found[1]) || null;
  if (view === "login") presence.stop();
  else if (!ADMIN) {  // the console shows no chat of the operator's own and keeps no clock for them
    presence.show(view === "chat" ? found[1] : null);
    syncZone(); // once per account and device, and again when the device's zone changes
  }
}

function syncSidebar(view, id) {
  if (view === "login" || ADMIN) {
    friends?.stop();
    friends = null;
    side.replaceChildren();
    return;
  }
  friends ??= new FriendsList(side, ctx);
  friends.setActive(view === "chat" || view === "memory" ? id : null, view);
}

async function logout() {
  const current = session.get();
  try {
    await post("/api/auth/logout", { refresh_token: current?.refresh_token });
  } catch {
    // the tokens are forgotten here either way; they expire on their own
  }
  presence.stop();
  await forgetDevice(); // this device stops getting this account's notifications
  // a shared computer must not keep what this person typed
  if (current?.user) {
    clearDrafts(current.user.id);
    forgetHelpLines(current.user.id);
    await forgetKept(current.user.id); // the chats kept for reading offline
  }
  session.clear();
  location.replace("#/login");
}

window.addEventListener("dreamchat:expired", () => {
  toast("登录已过期，请重新登录。", "error");
  location.replace("#/login");
});
window.addEventListener("hashchange", route);
window.addEventListener("dreamchat:offline", () => setOffline(true));
window.addEventListener("dreamchat:online", () => setOffline(false));
window.addEventListener("offline", () => setOffline(true));
window.addEventListener("online", () => {
  setOffline(false);
  if (ready) route(); // the screen loads again now that the server can be reached
  else start();
});

function setOffline(now) {
  if (offline.hidden === !now) return;
  offline.hidden = !now;
  document.body.classList.toggle("is-offline", now);
}

// A tapped notification: the service worker asks the open page to show that chat.
navigator.serviceWorker?.addEventListener("message", (event) => {
  if (event.data?.type !== "open") return;
  const url = new URL(event.data.url, location.origin);
  if (url.origin === location.origin && url.hash.startsWith("#/chat/")) location.hash = url.hash;
});
registerWorker();
if (session.get()) syncPush().catch(() => {});
if (!navigator.onLine) setOffline(true);
window.addEventListener("unhandledrejection", (event) => {
  toast(describe(event.reason), "error");
});
start();

// The first screen waits for the client config (the kept copy when there is one).
function start() {
  loadConfig().then(() => {
    ready = true;
    route();
  }, (error) => {
    main.replaceChildren(h("p", { class: "form-error center", role: "alert", text: describe(error) }));
  });
}

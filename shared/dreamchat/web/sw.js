// DreamChat's service worker: keeps the app shell for offline use, shows pushed messages, opens the
// chat a notification is about. The server fills in VERSION and SHELL (see api/routers/web.py).

const VERSION = "__VERSION__";
const SHELL = ["__SHELL__"];
const CACHE = `dreamchat-shell-${VERSION}`;
const APP_ICON = "/static/icons/icon-192.png";
const BADGE = "/static/icons/badge-96.png";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "no-cache" })))),
  );
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("dreamchat-shell-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

// The API is never cached (it is private and changes); the shell comes from the network when it can,
// so a new version shows at once, and from the cache when the network fails.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  const shell = request.mode === "navigate" ? "/" : url.pathname;
  if (!SHELL.includes(shell)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(shell, response.clone());
        return response;
      } catch (error) {
        const kept = await cache.match(shell);
        if (kept) return kept;
        throw error;
      }
    })(),
  );
});

function isUrl(text) {
  return /^https?:\/\//i.test(text || "");
}

function isOpen(client, url) {
  return client.visibilityState === "visible" && client.focused && new URL(client.url).hash === new URL(url, self.location.origin).hash;
}

// One notification per friend (its tag): a later turn replaces the earlier one and alerts again.
self.addEventListener("push", (event) => {
  let note;
  try {
    note = event.data ? event.data.json() : null;
  } catch {
    note = null;
  }
  if (!note || !note.ai_user_id) return;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      if (windows.some((client) => isOpen(client, note.url))) return; // the open chat shows it itself
      const emoji = !isUrl(note.avatar) && note.avatar && note.avatar.length <= 8 ? `${note.avatar} ` : "";
      await self.registration.showNotification(`${emoji}${note.name}`, {
        body: note.body,
        tag: note.tag,
        renotify: true,
        icon: isUrl(note.avatar) ? note.avatar : APP_ICON,
        badge: BADGE,
        timestamp: note.timestamp ? note.timestamp * 1000 : Date.now(),
        lang: "zh-CN",
        data: { url: note.url, ai_user_id: note.ai_user_id, message_id: note.message_id },
      });
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.waitUntil(openNotification(event.notification));
});

// A tapped notification opens its chat: in a window of the app that is open, else in a new one.
async function openNotification(notification) {
  notification.close();
  const url = new URL(notification.data?.url || "/", self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (!open) return self.clients.openWindow(url);
  open.postMessage({ type: "open", url });
  return open.focus().catch(() => open); // focusing needs the tap's activation; the chat is shown anyway
}

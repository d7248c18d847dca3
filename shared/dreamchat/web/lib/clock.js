// The person's own clock: the device's IANA time zone goes to the server (PUT /api/profile) when the
// account has not heard it from this device yet — at registration, and after a trip to another zone.
// Night windows, scheduled heartbeats ("每天 9:30") and the time the AI sees follow it.

import { put, session } from "./api.js";

const KEY = "dreamchat.timezone";

export function deviceZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

export async function syncZone() {
  const user = session.get()?.user;
  const zone = deviceZone();
  if (!user || !zone) return;
  const key = `${KEY}.${user.id}`;
  if (localStorage.getItem(key) === zone) return;
  try {
    await put("/api/profile", { timezone: zone });
    localStorage.setItem(key, zone);
  } catch {
    // a zone the server does not know (or no network): each AI user's own zone stays in use; tried again later
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") syncZone();
});

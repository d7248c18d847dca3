// Presence: while the page is visible it tells the server which chat it shows (null: the list), every
// 30 s and at once when that changes; when the page is hidden or closed it says so, and stops. The
// server then pushes only what no open page shows.

import { api, session } from "./api.js";

const BEAT_MS = 30_000;
const DEVICE_KEY = "dreamchat.device";

// One id per tab (sessionStorage): each open page is a device of its own.
function deviceId() {
  let id = sessionStorage.getItem(DEVICE_KEY);
  if (!id) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

export class Presence {
  constructor() {
    this.where = null; // the open chat's AI user id, or null for the list and other screens
    this.timer = null;
    this.active = false;
    document.addEventListener("visibilitychange", () => this.sync());
    window.addEventListener("pagehide", () => this.leave());
    window.addEventListener("pageshow", () => this.sync());
  }

  // The screen changed: `aiUserId` is the open chat's, or null.
  show(aiUserId) {
    const changed = aiUserId !== this.where || !this.active;
    this.where = aiUserId;
    if (changed) this.sync();
  }

  // Logged out: the server forgets this device's presence.
  stop() {
    this.leave();
  }

  sync() {
    if (!session.get() || document.visibilityState !== "visible") return this.leave();
    this.active = true;
    this.send(true);
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (document.visibilityState === "visible") this.send(true);
    }, BEAT_MS);
  }

  leave() {
    clearInterval(this.timer);
    this.timer = null;
    if (!this.active) return;
    this.active = false;
    if (session.get()) this.send(false);
  }

  send(visible) {
    const body = { ai_user_id: this.where, device: deviceId(), visible };
    api("POST", "/api/presence", body, { keepalive: true }).catch(() => {
      // presence is a hint: a lost call only means a push more or less
    });
  }
}

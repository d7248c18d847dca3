// This device's notifications: the service worker, the browser's push subscription, and the server's copy.

import { api, get, post } from "./api.js";

export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

export function registerWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null);
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function sameKey(subscription, key) {
  const current = subscription.options?.applicationServerKey;
  if (!current) return true; // the browser does not say: trust it
  const a = new Uint8Array(current);
  const b = keyBytes(key);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function registration() {
  await registerWorker();
  return navigator.serviceWorker.ready;
}

// "on" (this device gets notifications), "off", "denied" (blocked in the browser) or "unsupported".
export async function pushState() {
  if (!pushSupported()) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  if (Notification.permission !== "granted") return "off";
  const reg = await navigator.serviceWorker.getRegistration("/");
  const subscription = reg ? await reg.pushManager.getSubscription() : null;
  return subscription ? "on" : "off";
}

// How long the browser's push service may take to hand back a subscription: past it the switch turns off
// and says so (issue 40: it stayed on when the subscription never came back).
export const SUBSCRIBE_TIMEOUT_MS = 10_000;

// A failure to say to the person as it is (`message`), not as an HTTP error.
export class PushError extends Error {}

function withTimeout(promise, ms, message) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new PushError(message)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// Asks for permission (call it from a tap), subscribes with the server's key and hands the subscription over;
// "on" only once the browser has the subscription and the server its copy.
export async function enablePush() {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "off";
  const { public_key: key } = await get("/api/push/key");
  const reg = await registration();
  let subscription = await reg.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    const asked = reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) })
      .catch(() => { throw new PushError("这个浏览器的推送服务没有接受订阅，通知没有开启。"); });
    subscription = await withTimeout(asked, SUBSCRIBE_TIMEOUT_MS, "浏览器的推送服务一直没有回应，通知没有开启，请稍后再试。");
  }
  await post("/api/push/subscriptions", subscription.toJSON());
  return pushState();
}

// This device stops getting notifications (for this account and in the browser).
export async function disablePush() {
  const reg = await navigator.serviceWorker.getRegistration("/");
  const subscription = reg ? await reg.pushManager.getSubscription() : null;
  if (!subscription) return "off";
  await forgetOnServer(subscription);
  await subscription.unsubscribe();
  return "off";
}

// At start, when notifications are on: the server keeps this device under the account now logged in,
// with the subscription the browser has now (browsers renew them).
export async function syncPush() {
  if (!pushSupported() || Notification.permission !== "granted") return;
  const reg = await navigator.serviceWorker.getRegistration("/");
  const subscription = reg ? await reg.pushManager.getSubscription() : null;
  if (!subscription) return;
  const { public_key: key } = await get("/api/push/key");
  if (!sameKey(subscription, key)) {
    await subscription.unsubscribe();
    return enablePush();
  }
  await post("/api/push/subscriptions", subscription.toJSON());
}

// Logging out: this account no longer pushes to this device (the browser keeps its subscription for the next).
export async function forgetDevice() {
  if (!pushSupported()) return;
  const reg = await navigator.serviceWorker.getRegistration("/");
  const subscription = reg ? await reg.pushManager.getSubscription() : null;
  if (subscription) await forgetOnServer(subscription).catch(() => {});
}

async function forgetOnServer(subscription) {
  try {
    await api("DELETE", "/api/push/subscriptions", { endpoint: subscription.endpoint });
  } catch (error) {
    if (error.status !== 404) throw error;
  }
}

export const getPushSettings = () => get("/api/push/settings");
export const setShowContent = (show) => api("PUT", "/api/push/settings", { show_content: show });

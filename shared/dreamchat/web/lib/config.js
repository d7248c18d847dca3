// What the server tells the client once (GET /api/client-config): the night windows, the emotion labels and
// the input limits, each defined once on the server. The service worker never caches the API, so the last copy
// is kept here, in localStorage: the app opens with it at once (offline too) and takes the fresh copy meanwhile.

import { api } from "./api.js";

const KEY = "dreamchat.config";
let current = null;

// Resolves once there is a copy to use; rejects only when there is none and the server cannot be reached.
export async function loadConfig() {
  const fresh = api("GET", "/api/client-config", undefined, { auth: false }).then(keep);
  const kept = read();
  if (!kept) return fresh;
  current = kept;
  fresh.catch(() => {});  // offline: the kept copy serves
  return kept;
}

export function config() {
  if (!current) throw new Error("the client config is not loaded yet");
  return current;
}

export const limits = () => config().limits;

// A night window as people read it: "HH:00–HH:00".
export function nightText(night) {
  const hour = (h) => `${String(h).padStart(2, "0")}:00`;
  return `${hour(night.start)}–${hour(night.end)}`;
}

function keep(body) {
  current = body;
  try {
    localStorage.setItem(KEY, JSON.stringify(body));
  } catch {
    // storage full or blocked: this page still has it
  }
  return body;
}

function read() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY));
    // a copy kept before the server sent the moderation or the media bounds is not used: the fresh one is waited for
    const current = ["report_reason_chars", "voice_seconds"].every((name) => Number.isInteger(kept?.limits?.[name]));
    return kept?.night && kept?.emotions && current ? kept : null;
  } catch {
    return null;
  }
}

// Issue 37's bounds (domain/bounds.py): what the report form and the console check.
export function moderationLimits() {
  const { report_reason_chars, note_chars, suspension_reason_chars } = limits();
  return { report_reason_chars, note_chars, suspension_reason_chars };
}

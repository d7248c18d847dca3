// "Add to Home Screen": Chromium offers its prompt through `beforeinstallprompt` (kept here until the
// person taps 安装); Safari has none, so the settings screen explains its Share menu instead.

let prompt = null;
const listeners = new Set();

window.addEventListener("beforeinstallprompt", (event) => {
  event.preventDefault();
  prompt = event;
  listeners.forEach((listener) => listener());
});
window.addEventListener("appinstalled", () => {
  prompt = null;
  listeners.forEach((listener) => listener());
});

export function installed() {
  return window.matchMedia("(display-mode: standalone)").matches || navigator.standalone === true;
}

export function canPrompt() {
  return prompt !== null;
}

export function isIos() {
  return /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
}

export async function promptInstall() {
  if (!prompt) return false;
  const event = prompt;
  prompt = null;
  await event.prompt();
  const choice = await event.userChoice;
  return choice.outcome === "accepted";
}

export function onInstallChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

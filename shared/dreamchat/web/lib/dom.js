// DOM helpers. Text always goes in as text nodes: nothing a person or a model wrote is parsed as HTML.

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "value") el.value = value;
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// Static, trusted SVG markup only (never data).
const ICONS = {
  back: '<path d="M15 5l-7 7 7 7"/>',
  send: '<path d="M4 12l16-8-6 16-2.5-6.5z"/><path d="M11.5 13.5L20 4"/>',
  plus: '<path d="M12 5v14M5 12h14"/>',
  search: '<circle cx="11" cy="11" r="6.5"/><path d="M20 20l-4.2-4.2"/>',
  more: '<circle cx="5" cy="12" r="1.3"/><circle cx="12" cy="12" r="1.3"/><circle cx="19" cy="12" r="1.3"/>',
  brain: '<path d="M9 4.5a3 3 0 0 0-3 3 3 3 0 0 0-2 5 3 3 0 0 0 2 5 3 3 0 0 0 3 2.5 2.5 2.5 0 0 0 3-1V5.5A2.5 2.5 0 0 0 9 4.5z"/><path d="M15 4.5a3 3 0 0 1 3 3 3 3 0 0 1 2 5 3 3 0 0 1-2 5 3 3 0 0 1-3 2.5 2.5 2.5 0 0 1-3-1"/>',
  edit: '<path d="M4 20h4L19 9l-4-4L4 16z"/><path d="M14 6l4 4"/>',
  trash: '<path d="M5 7h14M10 7V4.5h4V7M7 7l1 13h8l1-13"/>',
  logout: '<path d="M14 4h5v16h-5M10 8l-4 4 4 4M6 12h10"/>',
  heart: '<path d="M12 20s-7-4.4-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.6-7 10-7 10z"/>',
  clock: '<circle cx="12" cy="12" r="8"/><path d="M12 8v4l3 2"/>',
  refresh: '<path d="M19 12a7 7 0 1 1-2-4.9M19 4v4h-4"/>',
  compress: '<path d="M8 4v5H3M16 4v5h5M8 20v-5H3M16 20v-5h5"/>',
  sparkle: '<path d="M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8z"/><path d="M19 16l.7 1.8 1.8.7-1.8.7L19 21l-.7-1.8-1.8-.7 1.8-.7z"/>',
  close: '<path d="M6 6l12 12M18 6L6 18"/>',
  // a gear (a toothed wheel round a hub): the earlier ring with rays read as brightness (issue 40)
  settings: '<circle cx="12" cy="12" r="3"/><path d="M19.4 15a1.65 1.65 0 0 0 .33 1.82l.06.06a2 2 0 1 1-2.83 2.83l-.06-.06a1.65 1.65 0 0 0-1.82-.33 1.65 1.65 0 0 0-1 1.51V21a2 2 0 1 1-4 0v-.09A1.65 1.65 0 0 0 9 19.4a1.65 1.65 0 0 0-1.82.33l-.06.06a2 2 0 1 1-2.83-2.83l.06-.06A1.65 1.65 0 0 0 4.68 15a1.65 1.65 0 0 0-1.51-1H3a2 2 0 1 1 0-4h.09A1.65 1.65 0 0 0 4.6 9a1.65 1.65 0 0 0-.33-1.82l-.06-.06a2 2 0 1 1 2.83-2.83l.06.06A1.65 1.65 0 0 0 9 4.68a1.65 1.65 0 0 0 1-1.51V3a2 2 0 1 1 4 0v.09a1.65 1.65 0 0 0 1 1.51 1.65 1.65 0 0 0 1.82-.33l.06-.06a2 2 0 1 1 2.83 2.83l-.06.06A1.65 1.65 0 0 0 19.4 9a1.65 1.65 0 0 0 1.51 1H21a2 2 0 1 1 0 4h-.09a1.65 1.65 0 0 0-1.51 1z"/>',
  bell: '<path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z"/><path d="M10 20a2 2 0 0 0 4 0"/><path d="M4 4l16 16"/>',
  pin: '<path d="M9 4h6l-1 6 3 3H7l3-3z"/><path d="M12 13v7"/>',
  moon: '<path d="M19 14.5A7.5 7.5 0 0 1 9.5 5a7.5 7.5 0 1 0 9.5 9.5z"/>',
  flag: '<path d="M6 21V4M6 4h11l-2 4 2 4H6"/>',
  mic: '<rect x="9" y="3" width="6" height="11" rx="3"/><path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21M9 21h6"/>',
  image: '<rect x="3.5" y="5" width="17" height="14" rx="2.5"/><circle cx="9" cy="10" r="1.6"/><path d="M20.5 16l-5-5-8 8"/>',
  camera: '<path d="M4 8h3.5l1.5-2.5h6L16.5 8H20v11H4z"/><circle cx="12" cy="13" r="3.5"/>',
  play: '<path d="M8 5.5v13l10.5-6.5z" fill="currentColor"/>',
  pause: '<path d="M8 5.5v13M16 5.5v13" stroke-width="3.2"/>',
  phone: '<path d="M5 4h3.5l1.8 4.5-2.3 1.4a11 11 0 0 0 5.6 5.6l1.4-2.3L19.5 15v3.5a2 2 0 0 1-2 2A15.5 15.5 0 0 1 3 6a2 2 0 0 1 2-2z"/>',
};

export function icon(name, label) {
  const span = document.createElement("span");
  span.className = "icon";
  span.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true">${ICONS[name] || ""}</svg>`;
  if (label) span.append(h("span", { class: "sr-only", text: label }));
  return span;
}

const AVATAR_COLORS = ["#7c6cf2", "#f0719a", "#2fb6a3", "#f59e0b", "#4f8ef7", "#a46ee8", "#e8774f", "#3aa4c9"];

function hue(text) {
  let sum = 0;
  for (const ch of text) sum = (sum * 31 + ch.codePointAt(0)) >>> 0;
  return AVATAR_COLORS[sum % AVATAR_COLORS.length];
}

export function isImageUrl(value) {
  return /^(https?:\/\/|data:image\/|\/)/i.test(value || "");
}

// An avatar is an image URL, an emoji (or a few characters), or else the name's first character.
export function avatar(aiUser, size = "md") {
  const value = (aiUser.avatar || "").trim();
  const el = h("span", { class: `avatar avatar-${size}`, "aria-hidden": "true" });
  if (isImageUrl(value)) {
    const img = h("img", { src: value, alt: "", loading: "lazy", referrerpolicy: "no-referrer" });
    img.addEventListener("error", () => clear(el, initial(aiUser.name)), { once: true });
    el.append(img);
    return el;
  }
  if (value) {
    el.classList.add("avatar-emoji");
    el.textContent = [...value].slice(0, 2).join("");
    return el;
  }
  el.style.background = hue(aiUser.name || "?");
  el.textContent = initial(aiUser.name);
  return el;
}

// Every AI friend is labelled as one, wherever its name is shown (the friend list, the chat header, discover).
export function aiBadge() {
  return h("span", { class: "ai-badge", title: "AI 角色，不是真人" }, "AI");
}

function initial(name) {
  return [...(name || "?").trim()][0] || "?";
}

let toastTimer = null;

export function toast(message, kind = "info") {
  const box = document.getElementById("toasts");
  const item = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status", text: message });
  clear(box, item);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => item.classList.add("toast-out"), kind === "error" ? 5000 : 2600);
  setTimeout(() => item.remove(), kind === "error" ? 5400 : 3000);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Two taps instead of a modal: the first arms the button for a few seconds.
export function confirmButton(label, armedLabel, onConfirm, className = "btn btn-ghost btn-danger") {
  let armed = null;
  const button = h("button", { type: "button", class: className, text: label });
  button.addEventListener("click", async () => {
    if (!armed) {
      button.textContent = armedLabel;
      button.classList.add("armed");
      armed = setTimeout(() => {
        armed = null;
        button.textContent = label;
        button.classList.remove("armed");
      }, 4000);
      return;
    }
    clearTimeout(armed);
    armed = null;
    button.disabled = true;
    try {
      await onConfirm();
    } finally {
      button.disabled = false;
      button.textContent = label;
      button.classList.remove("armed");
    }
  });
  return button;
}

export function autosize(textarea, max = 160) {
  textarea.style.height = "auto";
  textarea.style.height = `${Math.min(textarea.scrollHeight, max)}px`;
}

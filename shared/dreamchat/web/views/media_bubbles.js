// How a message with media is drawn, and what plays and shows it: a voice note (play, a progress bar, its length,
// its words on tap), a photo (a thumbnail that opens full size). The bytes need the login, so they are fetched with
// the token and shown from a blob: URL, once per media id. One voice note plays at a time, page-wide.

import { raw } from "../lib/api.js";
import { h, icon } from "../lib/dom.js";
import { clock, photoText, seconds, transcript } from "../lib/media.js";

const sources = new Map();  // media id -> Promise of a blob: URL
const ready = new Map();  // media id -> its blob: URL once fetched (a redrawn row shows it at once)

// The bytes of `GET /api/media/{id}` (in AWS a 302 to a short-lived signed URL, which fetch follows) as a blob: URL.
export function mediaSource(mediaId) {
  if (!sources.has(mediaId)) {
    const url = raw("GET", `/api/media/${encodeURIComponent(mediaId)}`)
      .then((response) => response.blob())
      .then((blob) => {
        const url = URL.createObjectURL(blob);
        ready.set(mediaId, url);
        return url;
      });
    url.catch(() => sources.delete(mediaId));  // asked again next time
    sources.set(mediaId, url);
  }
  return sources.get(mediaId);
}

// A message's own recording or photo before it has a media id is shown from the local blob.
const sourceOf = (item) => (item.localUrl ? Promise.resolve(item.localUrl) : mediaSource(item.media_id));

// ---- the voice note player ----

const player = { audio: null, key: null, total: 0 };

const keyOf = (item) => item.media_id || item.localUrl;

export function playing(item) {
  return player.key !== null && player.key === keyOf(item);
}

// Plays this note (stopping any other), or pauses it when it is the one playing.
export async function toggleVoice(item, onError) {
  const key = keyOf(item);
  if (player.key === key && player.audio && !player.audio.paused) {
    player.audio.pause();
    return;
  }
  stopVoice();
  player.key = key;
  player.total = Number(item.duration_s) || 0;
  showPlayer();
  try {
    const url = await sourceOf(item);
    if (player.key !== key) return;  // another note was tapped meanwhile
    player.audio = new Audio(url);
    for (const name of ["timeupdate", "play", "pause"]) player.audio.addEventListener(name, () => showPlayer());
    player.audio.addEventListener("ended", stopVoice);
    await player.audio.play();
  } catch (error) {
    if (player.key === key) stopVoice();
    if (error?.name !== "AbortError") onError(error);
  }
}

export function stopVoice() {
  const audio = player.audio;
  player.audio = null;
  player.key = null;
  if (audio) {
    audio.pause();
    audio.removeAttribute("src");
  }
  showPlayer();
}

// The share of the note played, 0-1: a recording made in the browser often has no length in its header, so the
// server's length stands in for the element's.
function progress() {
  const audio = player.audio;
  if (!audio) return 0;
  const total = Number.isFinite(audio.duration) && audio.duration > 0 ? audio.duration : player.total;
  return total ? Math.min(1, audio.currentTime / total) : 0;
}

// Draws the player's state on every voice bubble in the page (rows are redrawn often, the player lives on).
export function showPlayer(root = document) {
  for (const bubble of root.querySelectorAll(".bubble-voice")) {
    const on = player.key !== null && bubble.dataset.key === player.key;
    const going = on && player.audio && !player.audio.paused;
    const share = on ? progress() : 0;
    bubble.classList.toggle("voice-playing", Boolean(going));
    bubble.querySelector(".voice-bar").style.width = `${(share * 100).toFixed(1)}%`;
    const track = bubble.querySelector(".voice-track");
    track.setAttribute("aria-valuenow", String(Math.round(share * 100)));
    const button = bubble.querySelector(".voice-play");
    button.replaceChildren(icon(going ? "pause" : "play", going ? "暂停" : "播放语音"));
    bubble.querySelector(".voice-time").textContent =
      on && player.audio ? clock(player.audio.currentTime) : seconds(bubble.dataset.duration);
  }
}

// ---- bubbles ----

// A voice note: ▶, the progress bar, its length; 文字 shows what was said under it.
export function voiceBubble(item) {
  const duration = Number(item.duration_s) || 0;
  const words = transcript(item);
  const open = Boolean(item.showWords);
  // longer notes draw wider, as in every chat app
  const width = `${Math.round(Math.min(260, 190 + duration * 1.5))}px`;
  const bubble = h("div", { class: "bubble bubble-voice", dataset: { key: keyOf(item) || "", duration: String(duration) } },
  h("button", { type: "button", class: "voice-play", "aria-label": `播放语音，${seconds(duration)}` }, icon("play", "播放语音")),
  h("div", { class: "voice-track", role: "progressbar", "aria-label": "播放进度", "aria-valuemin": "0",
    "aria-valuemax": "100", "aria-valuenow": "0" }, h("div", { class: "voice-bar" })),
  h("span", { class: "voice-time", text: seconds(duration) }),
  h("button", { type: "button", class: "voice-words-btn", "aria-expanded": String(open), text: "文字",
    "aria-label": open ? "收起文字" : "显示语音的文字" }));
  bubble.style.width = width;  // through the CSSOM: the page's CSP refuses style attributes
  const said = open ? h("div", { class: `voice-words${words ? "" : " voice-unheard"}`, text: wordsText(item, words) }) : null;
  return [bubble, said];
}

// The person's note sent from this page has its words once the server has stored it (the next poll brings them).
function wordsText(item, words) {
  if (words) return words;
  return item.local ? "文字马上就好……" : "未转写：TA 暂时听不了语音，等能听的时候会补上。";
}

// A photo: a thumbnail the size of the bubble (fetched once it scrolls into view), opening full size on tap;
// what the person typed beside it follows as a bubble of its own.
export function photoBubble(item) {
  const { description, caption } = photoText(item);
  const box = item.width && item.height ? { width: String(item.width), height: String(item.height) } : {};
  const img = h("img", { class: "photo-thumb", alt: description || "图片", decoding: "async", ...box,
    dataset: { mediaId: item.media_id || "" } });
  const known = item.localUrl || ready.get(item.media_id);
  if (known) img.src = known;
  return [
    h("button", { type: "button", class: "bubble bubble-photo", "aria-label": `查看大图${description ? `：${description}` : ""}` }, img),
    caption ? h("div", { class: "bubble", text: caption }) : null,
  ];
}

// Thumbnails get their bytes once they come near the screen (and at once when already fetched).
let watcher = null;
export function loadThumbnails(root) {
  watcher ??= new IntersectionObserver((entries) => {
    for (const entry of entries.filter((e) => e.isIntersecting)) {
      watcher.unobserve(entry.target);
      fill(entry.target);
    }
  }, { rootMargin: "300px 0px" });
  for (const img of root.querySelectorAll("img.photo-thumb:not([src])")) {
    if (img.dataset.mediaId) watcher.observe(img);
  }
}

function fill(img) {
  mediaSource(img.dataset.mediaId).then((url) => {
    img.src = url;
  }, () => img.classList.add("photo-missing"));
}

// ---- the full-size viewer: a tap anywhere or Escape closes it ----

export async function openViewer(item) {
  const { description } = photoText(item);
  const img = h("img", { class: "viewer-img", alt: description || "图片" });
  const dialog = h("dialog", { class: "viewer", "aria-label": "查看图片" }, img,
    h("button", { type: "button", class: "icon-btn viewer-close", title: "关闭" }, icon("close", "关闭")));
  dialog.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  img.src = await sourceOf(item);
}

// Voice notes and photos in the chat: the composer's two buttons (hold to record; take or pick a photo), the upload,
// and the taps on a media bubble. A recording or photo shows at once from its local blob, is uploaded
// (`POST /api/ai-users/{id}/media`, or a presigned upload when it is too large for one request), then goes to
// the send queue like a typed message, carrying its media id; an upload the server refuses says why and gives
// back what was typed. `chat` is the ChatView (views/chat.js).

import { api, get, postSigned } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { autosize, h, icon, toast } from "../lib/dom.js";
import {
  cancelling, clock, keepFile, microphoneError, releaseOutcome, uploadError, voiceSeconds,
} from "../lib/media.js";
import { downscale } from "../lib/photo.js";
import { recordingName, VoiceRecorder } from "../lib/recorder.js";
import { loadThumbnails, openViewer, showPlayer, stopVoice, toggleVoice } from "./media_bubbles.js";
import { tooLong } from "./chat_turns.js";

const TICK_MS = 200;
const HINT = "上滑或左滑取消";
const HINT_CANCEL = "松开手指，取消发送";

// The composer's media controls, built once with the rest of the chat's shell (views/chat_render.js buildUi).
export function mediaControls() {
  const camera = h("input", { type: "file", accept: "image/*", capture: "environment", class: "sr-only", tabindex: "-1",
    "aria-hidden": "true", id: "photo-camera" });
  const album = h("input", { type: "file", accept: "image/*", class: "sr-only", tabindex: "-1", "aria-hidden": "true",
    id: "photo-album" });
  const menuItem = (iconName, label, input) => h("button", { type: "button", class: "menu-item", role: "menuitem",
    onclick: () => input.click() }, icon(iconName), label);
  const photoMenu = h("div", { class: "menu photo-menu", role: "menu", hidden: true },
    menuItem("camera", "拍照", camera), menuItem("image", "从相册选择", album));
  const photo = h("button", { type: "button", class: "icon-btn composer-btn photo-btn", title: "图片：拍照或从相册选择",
    "aria-haspopup": "menu" }, icon("image", "图片：拍照或从相册选择"));
  const mic = h("button", { type: "button", class: "icon-btn composer-btn mic-btn", title: "按住说话" },
    icon("mic", "按住说话"));
  const recording = h("div", { class: "recording", role: "status", hidden: true },
    h("span", { class: "rec-dot", "aria-hidden": "true" }),
    h("span", { class: "rec-time", text: "0:00" }),
    h("span", { class: "rec-hint", text: HINT }));
  return { camera, album, photoMenu, photo, mic, recording,
    photoWrap: h("div", { class: "menu-wrap photo-wrap" }, photo, photoMenu) };
}

export class ChatMedia {
  constructor(chat) {
    this.chat = chat;
    this.press = null;  // the recording under the finger: {recorder, x, y, slid, released, timer}
  }

  get ui() {
    return this.chat.ui;
  }

  listen() {
    const ui = this.ui;
    ui.photo.addEventListener("click", (event) => {
      event.stopPropagation();
      ui.photoMenu.hidden = !ui.photoMenu.hidden;
      if (!ui.photoMenu.hidden) document.addEventListener("click", () => { ui.photoMenu.hidden = true; }, { once: true });
    });
    for (const input of [ui.camera, ui.album]) {
      input.addEventListener("change", () => {
        const file = input.files?.[0];
        input.value = "";
        ui.photoMenu.hidden = true;
        if (file) this.sendPhoto(file);
      });
    }
    this.listenMic(ui.mic);
    ui.list.addEventListener("click", (event) => this.onListClick(event));
  }

  listenMic(mic) {
    mic.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      mic.setPointerCapture?.(event.pointerId);
      this.startRecording(event.clientX, event.clientY);
    });
    mic.addEventListener("pointermove", (event) => this.slide(event.clientX, event.clientY));
    mic.addEventListener("pointerup", () => this.release());
    mic.addEventListener("pointercancel", () => this.release(true));
    mic.addEventListener("contextmenu", (event) => event.preventDefault());  // a long press is the recording
    // from the keyboard (Enter or Space: a click with no pointer), one press starts and the next sends
    mic.addEventListener("click", (event) => {
      if (event.detail !== 0) return;
      if (this.press) this.release();
      else this.startRecording(0, 0);
    });
  }

  // ---- recording ----

  async startRecording(x, y) {
    if (this.press) return;
    const press = { recorder: new VoiceRecorder(), x, y, slid: false, released: false, started: false, timer: null };
    this.press = press;
    this.showRecording(press);
    try {
      await press.recorder.start();
    } catch (error) {
      this.endPress(press);
      this.chat.showNotice(microphoneError(error));
      return;
    }
    press.started = true;
    this.chat.hideNotice();
    if (press.released) this.finish(press);  // let go while the browser asked for the microphone
    else press.timer = setInterval(() => this.tick(press), TICK_MS);
  }

  tick(press) {
    const elapsed = press.recorder.elapsedMs();
    this.ui.recording.querySelector(".rec-time").textContent = clock(elapsed / 1000);
    if (elapsed >= voiceSeconds() * 1000) {
      toast(`已录满 ${voiceSeconds()} 秒，自动发送`, "info");
      this.release();
    }
  }

  slide(x, y) {
    const press = this.press;
    if (!press || press.released || (!press.x && !press.y)) return;
    press.slid = cancelling(x - press.x, y - press.y);
    this.showRecording(press);
  }

  release(cancel = false) {
    const press = this.press;
    if (!press || press.released) return;
    press.released = true;
    if (cancel) press.slid = true;
    if (press.started) this.finish(press);
  }

  async finish(press) {
    const outcome = releaseOutcome(press.recorder.elapsedMs(), press.slid);
    this.endPress(press);
    if (outcome !== "send") {
      press.recorder.cancel();
      toast(outcome === "cancel" ? "已取消，没有发送" : "说话时间太短，没有发送", "info");
      return;
    }
    let note;
    try {
      note = await press.recorder.stop();
    } catch {
      toast("录音没有成功，请再试一次。", "error");
      return;
    }
    this.upload({ blob: note.blob, name: recordingName(note.type), kind: "audio", duration_s: note.seconds }, "");
  }

  endPress(press) {
    clearInterval(press.timer);
    if (this.press === press) this.press = null;
    this.ui.recording.hidden = true;
    this.ui.mic.classList.remove("recording-on");
  }

  showRecording(press) {
    const panel = this.ui.recording;
    panel.hidden = false;
    panel.classList.toggle("rec-cancel", press.slid);
    panel.querySelector(".rec-hint").textContent = press.slid ? HINT_CANCEL : HINT;
    this.ui.mic.classList.add("recording-on");
  }

  // ---- photos ----

  // What was typed goes with the photo as its caption.
  async sendPhoto(file) {
    const textarea = this.ui.textarea;
    const caption = textarea.value.trim();
    if ([...caption].length > limits().message_chars) {
      this.chat.showNotice(tooLong());
      return;
    }
    textarea.value = "";
    autosize(textarea);
    this.chat.showCount();
    const { blob, width, height } = await downscale(file);
    this.upload({ blob, name: blob === file ? file.name : "photo.jpg", kind: "image", width, height }, caption);
  }

  // ---- one media message: shown, uploaded, sent ----

  async upload({ blob, name, kind, duration_s = null, width = 0, height = 0 }, caption) {
    const chat = this.chat;
    const item = chat.history.addLocal(caption, Date.now() / 1000);
    Object.assign(item, { media_kind: kind, localUrl: URL.createObjectURL(blob), duration_s, uploading: true,
      width: width || null, height: height || null });
    chat.holdCrisis = false;
    chat.render({ toBottom: true });
    let body;
    try {
      body = await keepFile(api, postSigned, `/api/ai-users/${chat.id}/media`, blob, name);
    } catch (error) {
      chat.history.remove(item);
      if (caption) chat.putBack([caption]);
      chat.render();
      toast(uploadError(error), "error");
      return;
    }
    Object.assign(item, { media_id: body.media_id, uploading: false, duration_s: body.duration_s ?? duration_s });
    chat.queue.dispatch({ type: "send", item, text: caption });
    chat.persistDraft();
  }

  // A media message the chat did not take stays in the list with 重发 (its upload is kept by the server).
  resend(item) {
    item.unsent = false;
    this.chat.hideNotice();
    this.chat.queue.dispatch({ type: "send", item, text: item.content });
  }

  // Its turn over, the person's note or photo takes its stored copy: the words heard, what was seen (the stream
  // carries only the AI's side, and polling asks for what came after the reply).
  async settle() {
    const chat = this.chat;
    if (!chat.history.items.some((item) => item.local && item.media_id && !item.unsent)) return;
    try {
      const body = await get(`/api/ai-users/${chat.id}/messages?limit=20`);
      if (chat.alive && chat.history.merge(body.messages || [])) chat.render();
    } catch {
      // shown as sent; its words come with the next reload
    }
  }

  // ---- taps on media bubbles ----

  onListClick(event) {
    const rowEl = event.target.closest(".msg");
    const item = rowEl && this.chat.history.find(rowEl.dataset.id);
    if (!item) return;
    if (event.target.closest(".voice-play")) {
      toggleVoice(item, () => toast("这条语音暂时放不出来，请稍后再试。", "error"));
    } else if (event.target.closest(".voice-words-btn")) {
      item.showWords = !item.showWords;
      this.chat.render();
    } else if (event.target.closest(".bubble-photo")) {
      openViewer(item).catch(() => toast("这张图片暂时打不开，请稍后再试。", "error"));
    } else if (event.target.closest(".resend-btn")) {
      this.resend(item);
    }
  }

  // After the rows are drawn: thumbnails fetched as they come into view, the player's state on its bubble.
  drawn() {
    loadThumbnails(this.ui.list);
    showPlayer(this.ui.list);
  }

  close() {
    if (this.press) this.release(true);
    stopVoice();
  }
}

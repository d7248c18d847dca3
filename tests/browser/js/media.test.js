// Voice notes and photos without devices (shared/dreamchat/web/lib/media.js, views/media_bubbles.js, and the
// media parts of chat_history.js and chat_turns.js): the recording type, the photo's size, what a release does,
// the words behind a note, the upload errors, how a media message is sent, matched and drawn.

import { ApiError } from "/static/lib/api.js";
import { loadConfig } from "/static/lib/config.js";
import {
  cancelling, clock, fitSize, keepFile, microphoneError, photoText, recordingType, releaseOutcome, seconds, transcript,
  uploadError,
} from "/static/lib/media.js";
import { History } from "/static/views/chat_history.js";
import { rows } from "/static/views/chat_render.js";
import { chatBody } from "/static/views/chat_turns.js";
import { photoBubble, voiceBubble } from "/static/views/media_bubbles.js";
import { assert, equal, test } from "./harness.js";

const LIMITS = { message_chars: 2000, report_reason_chars: 500, voice_seconds: 45, voice_bytes: 3 * 1048576,
  image_side: 1280, image_bytes: 5 * 1048576 };
localStorage.setItem("dreamchat.config", JSON.stringify({ night: {}, emotions: {}, limits: LIMITS, categories: [] }));
await loadConfig();

test("Opus in WebM is asked for where it is recorded, else MP4, else whatever the browser picks", () => {
  equal(recordingType(() => true), "audio/webm;codecs=opus");
  equal(recordingType((type) => type === "audio/mp4"), "audio/mp4");
  equal(recordingType(() => false), "");
});

test("a photo's longer side is brought to the limit, its shape kept, never enlarged", () => {
  equal(fitSize(4000, 3000, 1600), { width: 1600, height: 1200 });
  equal(fitSize(3000, 4000, 1600), { width: 1200, height: 1600 });
  equal(fitSize(800, 600, 1600), { width: 800, height: 600 });
  equal(fitSize(16000, 10, 1600), { width: 1600, height: 1 });
});

test("a release cancels after a slide up or left, drops a press under a second, else sends", () => {
  assert(cancelling(0, -60) && cancelling(-60, 0) && cancelling(-80, -80));
  assert(!cancelling(0, -59) && !cancelling(59, 0) && !cancelling(200, 200), "down or right is not a cancel");
  equal(releaseOutcome(5000, true), "cancel");
  equal(releaseOutcome(999, false), "short");
  equal(releaseOutcome(1000, false), "send");
  equal(releaseOutcome(200, true), "cancel");
});

test("the timer reads m:ss and a note's length at least 1″", () => {
  equal([clock(0), clock(7.9), clock(60), clock(-1)], ["0:00", "0:07", "1:00", "0:00"]);
  equal([seconds(2.6), seconds(0.2), seconds(null)], ["3″", "1″", "1″"]);
});

test("the words of the person's note follow [语音]; an unheard one has none; the AI's reply is its text", () => {
  equal(transcript({ role: "user", content: "[语音] 今天好累" }), "今天好累");
  equal(transcript({ role: "user", content: "[语音（未转写）]" }), null);
  equal(transcript({ role: "user", content: "[语音：没有听到说话]" }), "（没有听到说话）");
  equal(transcript({ role: "assistant", content: "早安呀" }), "早安呀");
  equal(transcript({ role: "user", content: "" }), null);
});

test("a photo's message splits into what was seen and the caption typed beside it", () => {
  equal(photoText({ content: "[图片：一只橘猫。] 我家的猫" }), { description: "一只橘猫。", caption: "我家的猫" });
  equal(photoText({ content: "[图片：一张图片]" }), { description: "一张图片", caption: "" });
  equal(photoText({ content: "看看" }), { description: "", caption: "看看" });
});

test("each refused upload is said in Chinese with the server's own bounds", () => {
  const refused = (status, code, retry = null) => uploadError(new ApiError(status, code, "x", retry));
  assert(refused(422, "media_duration").includes("45 秒"), refused(422, "media_duration"));
  equal(refused(422, "media_size"), "文件太大了：图片最多 5 MB，语音最多 3 MB。");
  equal(refused(413, "payload_too_large"), refused(422, "media_size"));
  for (const code of ["media_type", "media_pixels", "media_decode"]) assert(/[\u4e00-\u9fff]/.test(refused(422, code)), code);
  assert(new Set(["media_type", "media_pixels", "media_decode"].map((c) => refused(422, c))).size === 3, "each its own");
  equal(refused(429, "rate_limited", 90), "操作太频繁了，请 2 分钟后再试。");
  assert(uploadError(new ApiError(0, "network", "x")).includes("网络"));
});

test("a microphone refused, missing or busy is told apart", () => {
  const said = ["NotAllowedError", "NotFoundError", "NotReadableError", "unsupported", "Other"]
    .map((name) => microphoneError({ name }));
  assert(said[0].includes("没有麦克风权限"), said[0]);
  equal(new Set(said).size, 5);
});

test("a media message goes to /chat by its media id, with the caption only when one was typed", () => {
  equal(chatBody({ text: "你好", item: { id: "local-1" } }), { content: "你好" });
  equal(chatBody({ text: "", item: { media_id: "med_1" } }), { media_id: "med_1" });
  equal(chatBody({ text: "我家的猫", item: { media_id: "med_1" } }), { content: "我家的猫", media_id: "med_1" });
});

test("the stored copy of a media message replaces its local one by media id, not by words", () => {
  const history = new History();
  const typed = history.addLocal("你好", 1);
  const note = history.addLocal("", 2);
  Object.assign(note, { media_id: "med_1", media_kind: "audio", localUrl: "blob:x", uploading: false });
  history.merge([
    { id: "m2", role: "user", content: "[语音] 你好", media_id: "med_1", media_kind: "audio", duration_s: 3 },
    { id: "m1", role: "user", content: "你好" },
  ]);
  equal(history.items.length, 2);
  equal([note.id, note.content, note.local, note.localUrl], ["m2", "[语音] 你好", false, "blob:x"]);
  equal(typed.id, "m1");
});

test("an AI voice reply keeps its media and its words", () => {
  const history = new History();
  history.addReply({ message_id: "a1", content: "早安", timestamp: 5, media_id: "med_9", media_kind: "audio", duration_s: 4 });
  history.addReply({ message_id: "a2", content: "还在吗", timestamp: 6 });
  equal(history.items.map((i) => [i.media_kind, i.media_id, i.duration_s]), [["audio", "med_9", 4], [undefined, undefined, undefined]]);
});

test("a voice bubble shows play, progress and length; its words only once opened, 未转写 when none", () => {
  const [bubble, none] = voiceBubble({ id: "m", role: "user", content: "[语音] 你好", media_id: "med_1", duration_s: 7 });
  equal(none, null);
  equal(bubble.querySelector(".voice-time").textContent, "7″");
  assert(bubble.querySelector(".voice-play").getAttribute("aria-label").includes("7″"));
  equal(bubble.querySelector("[role=progressbar]").getAttribute("aria-valuenow"), "0");
  const [, words] = voiceBubble({ role: "user", content: "[语音] 你好", media_id: "med_1", showWords: true });
  equal(words.textContent, "你好");
  const [, unheard] = voiceBubble({ role: "user", content: "[语音（未转写）]", media_id: "med_2", showWords: true });
  assert(unheard.textContent.startsWith("未转写"), unheard.textContent);
});

test("a photo bubble is a button with the description as its alt text, the caption a bubble after it", () => {
  const [button, caption] = photoBubble({ content: "[图片：一只橘猫。] 我家的猫", media_id: "med_3", width: 1200, height: 1600 });
  equal(button.tagName, "BUTTON");
  const img = button.querySelector("img");
  equal([img.alt, img.getAttribute("width"), img.getAttribute("src")], ["一只橘猫。", "1200", null]);
  equal(caption.textContent, "我家的猫");
  const [, none] = photoBubble({ content: "[图片：一张图片]", media_id: "med_4", localUrl: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" });
  equal(none, null);
});

test("rows draw the AI's voice reply as a voice bubble and a plain message as words", () => {
  const nodes = rows([
    { id: "a", role: "assistant", content: "早安", timestamp: 1, media_id: "med_9", media_kind: "audio", duration_s: 4 },
    { id: "b", role: "assistant", content: "还在吗", timestamp: 2 },
  ], { name: "小梦", avatar: "" });
  const bubbles = nodes.filter((n) => n.classList.contains("msg")).map((n) => n.querySelector(".bubble").className);
  equal(bubbles, ["bubble bubble-voice", "bubble"]);
  assert(!nodes[1].textContent.includes("早安"), "a voice reply's words wait for a tap");
});

test("a file too large for one request goes to the store through a presigned upload, then is claimed", async () => {
  const calls = [];
  const posted = [];
  const kept = { media_id: "md1.ai_x", kind: "image", width: 1600, height: 1200 };
  const call = async (method, path, body) => {
    calls.push([method, path, body instanceof FormData ? "form" : body]);
    if (path === "/api/ai-users/ai_x/media") throw new ApiError(413, "too_large", "too large");
    if (path.endsWith("/uploads")) return { media_id: "md1.ai_x", url: "https://store/b", fields: { key: "k", tag: "t" } };
    return kept;
  };
  const post = async (url, form) => posted.push([url, [...form.keys()]]);
  const blob = new Blob([new Uint8Array(10)], { type: "image/heic" });
  equal(await keepFile(call, post, "/api/ai-users/ai_x/media", blob, "p.heic"), kept);
  equal(calls, [
    ["POST", "/api/ai-users/ai_x/media", "form"],
    ["POST", "/api/ai-users/ai_x/media/uploads", { content_type: "image/heic", size: 10 }],
    ["POST", "/api/ai-users/ai_x/media/uploads/md1.ai_x/done", undefined],
  ]);
  equal(posted, [["https://store/b", ["key", "tag", "file"]]]);  // the signed fields first, the file last
});

test("without a store for presigned uploads (409) the 413 stands; any other refusal is not retried", async () => {
  const blob = new Blob([new Uint8Array(3)], { type: "image/jpeg" });
  const noStore = async (method, path) => {
    throw new ApiError(path.endsWith("/uploads") ? 409 : 413, "x", "x");
  };
  let caught = null;
  try { await keepFile(noStore, async () => {}, "/m", blob, "p.jpg"); } catch (error) { caught = error; }
  equal(caught?.status, 413);
  let asked = 0;
  const refused = async () => { asked += 1; throw new ApiError(422, "media_type", "type"); };
  caught = null;
  try { await keepFile(refused, async () => {}, "/m", blob, "p.jpg"); } catch (error) { caught = error; }
  equal([caught?.status, asked], [422, 1]);
});

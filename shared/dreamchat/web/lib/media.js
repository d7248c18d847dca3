// Voice notes and photos, the rules without the browser's devices: which recording type to ask for, how far a
// photo is scaled down, what a press on the record button comes to, the words a message's media stands for,
// and what to tell the person when an upload is refused. No DOM, no network: tests/browser/js/media.test.js.

import { describe } from "./api.js";
import { limits } from "./config.js";

// Opus in WebM where the browser records it (Chromium, Firefox), else AAC in MP4 (Safari); "" lets it choose.
export const RECORDING_TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/mp4"];

export function recordingType(isSupported) {
  return RECORDING_TYPES.find((type) => isSupported(type)) || "";
}

// A shorter press is a slip, not a message (the server would refuse a silent one anyway).
export const MIN_RECORDING_MS = 1000;
// How far the finger moves (CSS px, up or to the left) before releasing it cancels the recording.
export const CANCEL_DISTANCE = 60;
export const PHOTO_QUALITY = 0.85;

// The server's own bounds (GET /api/client-config).
export const voiceSeconds = () => limits().voice_seconds;
export const photoSide = () => limits().image_side;
const megabytes = (bytes) => `${Math.round(bytes / 1048576)} MB`;
const sizes = () => `图片最多 ${megabytes(limits().image_bytes)}，语音最多 ${megabytes(limits().voice_bytes)}`;

// The size a photo is drawn at: the longer side at most `max`, the shape kept, never enlarged.
export function fitSize(width, height, max) {
  const scale = max > 0 ? Math.min(1, max / Math.max(width, height, 1)) : 1;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

// Where the finger has gone since the press: far enough up or left means "let go to cancel".
export function cancelling(dx, dy) {
  return dy <= -CANCEL_DISTANCE || dx <= -CANCEL_DISTANCE;
}

// What releasing the button does: "cancel" (slid away), "short" (under a second: dropped with a hint), or "send".
export function releaseOutcome(elapsedMs, slidAway) {
  if (slidAway) return "cancel";
  return elapsedMs < MIN_RECORDING_MS ? "short" : "send";
}

// "0:07" for the running timer and the player.
export function clock(seconds) {
  const whole = Math.max(0, Math.floor(Number(seconds) || 0));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

// 7″ beside a voice note, as chat apps write it (at least 1″: a note is never 0 long).
export function seconds(duration) {
  return `${Math.max(1, Math.round(Number(duration) || 0))}″`;
}

const UNHEARD = "[语音（未转写）]";
const VOICE = "[语音] ";
const SILENT = "[语音：没有听到说话]";  // heard, and nothing was said
const PHOTO = /^\[图片：([^\]]*)\](?: ([\s\S]*))?$/;

// The words behind a voice note shown on tap: the AI's reply is its own text; the person's is what the server
// heard (after "[语音] "), or null when nobody could listen yet (shown as 未转写).
export function transcript(item) {
  const content = String(item.content || "");
  if (item.role !== "user") return content || null;
  if (content.startsWith(UNHEARD)) return null;
  if (content.startsWith(SILENT)) return `（没有听到说话）${content.slice(SILENT.length)}`;
  return content.startsWith(VOICE) ? content.slice(VOICE.length) : content || null;
}

// A photo's message: what the server saw in it (its alt text) and what the person typed beside it.
export function photoText(item) {
  const match = PHOTO.exec(String(item.content || ""));
  if (!match) return { description: "", caption: String(item.content || "") };
  return { description: match[1], caption: match[2] || "" };
}

function uploadErrors() {
  return {
    media_type: "这种文件发不了：图片请用 JPEG、PNG、WebP 或 HEIC，语音请用常见的录音格式。",
    media_size: `文件太大了：${sizes()}。`,
    media_pixels: "这张图片的像素太多了（可能是超大的全景图），请换一张。",
    media_duration: `语音最长 ${voiceSeconds()} 秒，而且要有声音。`,
    media_decode: "这个文件打不开，可能已经损坏，请换一个再试。",
  };
}

// What to tell the person when an upload was refused: the rule the server named (422), too large (413), too
// often (429), else the usual words.
export function uploadError(error) {
  if (error?.status === 422 && uploadErrors()[error.code]) return uploadErrors()[error.code];
  return describe(error, {
    413: `文件太大了：${sizes()}。`,
    404: "找不到这位 AI 朋友了，TA 可能已被删除。",
    network: "网络好像断了，没有发出去。联网后再试一次吧。",
  });
}

// Why the microphone could not be used, from getUserMedia's or MediaRecorder's error.
export function microphoneError(error) {
  const name = error?.name || "";
  if (name === "NotAllowedError" || name === "SecurityError") {
    return "没有麦克风权限：请在浏览器的网站设置里允许 DreamChat 使用麦克风，然后再按住说话。";
  }
  if (name === "NotFoundError" || name === "OverconstrainedError") return "没有找到麦克风，请连接麦克风后再试。";
  if (name === "NotReadableError") return "麦克风正被别的应用占用，请关掉它后再试。";
  if (name === "unsupported") return "这个浏览器不能录音，请换用最新版的 Chrome、Safari 或 Edge。";
  return "录音没有成功，请再试一次。";
}

// Keeps a file on the server: as a form through the API; a file larger than one request may carry there (413:
// behind API Gateway and Lambda, about 4 MB) goes straight to the blob store through a presigned upload and is
// then claimed, with the same checks (`POST …/media/uploads`, the post, `…/uploads/{id}/done`). Where the server
// has no such store (409 `presigned_uploads_unavailable`) the 413 stands. `call(method, path, body)` is the API,
// `post(url, form)` a plain POST to the store that resolves when it answered 2xx.
export async function keepFile(call, post, base, blob, name) {
  const form = new FormData();
  form.append("file", blob, name);
  try {
    return await call("POST", base, form);
  } catch (error) {
    if (error?.status !== 413 || !blob.type) throw error;
    let signed;
    try {
      signed = await call("POST", `${base}/uploads`, { content_type: blob.type, size: blob.size });
    } catch (refused) {
      throw refused?.status === 409 ? error : refused;
    }
    const direct = new FormData();
    for (const [field, value] of Object.entries(signed.fields)) direct.append(field, value);
    direct.append("file", blob, name);  // S3 reads the fields first, the file last
    await post(signed.url, direct);
    return await call("POST", `${base}/uploads/${signed.media_id}/done`);
  }
}

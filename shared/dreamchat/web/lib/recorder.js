// One voice note from the microphone with MediaRecorder: start() asks for the microphone (rejecting with the
// browser's error, e.g. NotAllowedError), stop() resolves with the recording, cancel() drops it. The tracks are
// stopped either way, so the browser's "recording" indicator goes away with the note.

import { recordingType } from "./media.js";

// Speech needs little: 32 kbps Opus is clear voice, and a full-length note stays far under the size limit.
// bench/media_cost.py prices storage at this rate.
export const VOICE_BITS_PER_SECOND = 32000;

export class VoiceRecorder {
  constructor() {
    this.stream = null;
    this.recorder = null;
    this.chunks = [];
    this.startedAt = 0;
  }

  static available() {
    return Boolean(navigator.mediaDevices?.getUserMedia && window.MediaRecorder);
  }

  async start() {
    if (!VoiceRecorder.available()) throw Object.assign(new Error("no MediaRecorder"), { name: "unsupported" });
    this.stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const type = recordingType((t) => MediaRecorder.isTypeSupported(t));
    try {
      const options = { audioBitsPerSecond: VOICE_BITS_PER_SECOND, ...(type ? { mimeType: type } : {}) };
      this.recorder = new MediaRecorder(this.stream, options);
      this.recorder.addEventListener("dataavailable", (event) => event.data.size && this.chunks.push(event.data));
      this.recorder.start(250);  // chunks as it goes: a stop right after a second still has the sound
    } catch (error) {
      this.release();
      throw error;
    }
    this.startedAt = performance.now();
  }

  elapsedMs() {
    return this.startedAt ? performance.now() - this.startedAt : 0;
  }

  // Resolves with {blob, type, seconds} once the recorder has handed over its last chunk.
  stop() {
    const recorder = this.recorder;
    const seconds = this.elapsedMs() / 1000;
    if (!recorder || recorder.state === "inactive") return Promise.reject(new Error("not recording"));
    return new Promise((resolve, reject) => {
      recorder.addEventListener("stop", () => {
        const type = (recorder.mimeType || this.chunks[0]?.type || "audio/webm").split(";")[0];
        const blob = new Blob(this.chunks, { type });
        this.release();
        resolve({ blob, type, seconds });
      }, { once: true });
      recorder.addEventListener("error", (event) => {
        this.release();
        reject(event.error || new Error("recording failed"));
      }, { once: true });
      recorder.stop();
    });
  }

  cancel() {
    if (this.recorder && this.recorder.state !== "inactive") this.recorder.stop();
    this.release();
  }

  release() {
    for (const track of this.stream?.getTracks() || []) track.stop();
    this.stream = null;
    this.recorder = null;
    this.chunks = [];
    this.startedAt = 0;
  }
}

// The file name the upload carries (the server reads the type from the bytes; a name only helps people reading logs).
export function recordingName(type) {
  return type.includes("mp4") ? "voice.m4a" : type.includes("ogg") ? "voice.ogg" : "voice.webm";
}

// A chat turn carried out: the send queue's effects (lib/send_queue.js) become requests, and the AI's side of
// each turn is shown event by event, each message after its typing delay. `chat` is the ChatView (views/chat.js).

import { describe, events, get, post, raw } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { sleep, toast } from "../lib/dom.js";
import { helpLines, rememberHelpLines } from "../lib/help_lines.js";
import { READ_NOTE, READ_NOTE_KIND, readNoteDue } from "../lib/read_note.js";
import { blockedNotice } from "../lib/protection.js";

const MAX_TYPING_MS = 30000;
// events that come before the AI's messages: the AI is still thinking after them
const BEFORE_MESSAGES = new Set(["thinking", "safety", "notice"]);

function sendErrors() {
  const max = limits().message_chars;
  return {
    network: "网络好像断了，消息没有发出去。内容已经放回输入框，联网后再发一次吧。",
    404: "找不到这位 AI 朋友了，TA 可能已被删除。",
    403: "你们现在还不是好友，先加好友再聊天吧。",
    413: tooLong(),
    422: `一条消息最多 ${max} 字，而且不能是空的。`,
  };
}
const RETRY_ERRORS = { 409: "这条消息可能还在回复中、已经有了回复，或者后面又有了新消息，稍后刷新看看。" };

// A photo or voice note goes by its media id, with what was typed beside it (if anything) as its content.
export function chatBody(turn) {
  const mediaId = turn.item?.media_id;
  if (!mediaId) return { content: turn.text };
  return turn.text ? { content: turn.text, media_id: mediaId } : { media_id: mediaId };
}

export const tooLong = () => `一条消息最多 ${limits().message_chars} 字，请分几次发送。`;

export class Turns {
  constructor(chat) {
    this.chat = chat;
    this.shown = Promise.resolve();  // settles once every event handed to show() has been shown
  }

  get queue() {
    return this.chat.queue;
  }

  perform(effect) {
    const chat = this.chat;
    if (effect.type === "start") this.start(effect.turn, effect.fromHold);
    else if (effect.type === "hold") chat.render({ toBottom: true });
    else if (effect.type === "accepted") {
      chat.persistDraft();  // stored by the server: the draft no longer needs it
      chat.render();
    } else if (effect.type === "restore") this.restore(effect);
    else if (effect.type === "refused") this.refused(effect.turn, effect.error);
    else if (effect.type === "busy" && effect.event.type === "heartbeat") toast(heartbeatText({ reason: "conversation" }));
    else if (effect.type === "settled") {
      chat.poll();
      chat.media.settle();
    }
  }

  start(turn, fromHold) {
    if (!this.chat.alive) return;
    if (fromHold) this.chat.history.moveLast(turn.item);
    if (turn.kind === "message") this.deliver(turn);
    else if (turn.kind === "retry") this.redo(turn);
    else this.heartbeat(turn);
  }

  thinking(on) {
    this.chat.thinking = on;
    if (on) this.chat.render({ toBottom: true });
    this.chat.setTyping(false);
  }

  async deliver(turn) {
    this.thinking(true);
    const request = () => raw("POST", `/api/ai-users/${this.chat.id}/chat`, chatBody(turn), { accept: "text/event-stream" });
    await this.converse(turn, request);
  }

  // After a failed turn: the stored message is answered again, never stored twice.
  async redo(turn) {
    Object.assign(turn.item, { failed: false, unanswered: false });
    this.chat.hideNotice();
    this.thinking(true);
    const request = async () => {
      const messageId = encodeURIComponent(await this.storedId(turn.item));
      return raw("POST", `/api/ai-users/${this.chat.id}/messages/${messageId}/retry`, undefined, { accept: "text/event-stream" });
    };
    await this.converse(turn, request);
  }

  async converse(turn, request) {
    let response;
    try {
      response = await request();
    } catch (error) {
      this.queue.dispatch({ type: "rejected", turn, error });
      return;
    }
    this.queue.dispatch({ type: "accepted", turn });
    this.queue.dispatch({ type: "finished", turn, outcome: await this.stream(response, turn.item) });
  }

  // A message sent in this page has no stored id yet: it is the latest stored message, or it cannot be retried.
  async storedId(item) {
    if (!item.local && !String(item.id).startsWith("local-")) return item.id;
    const body = await get(`/api/ai-users/${this.chat.id}/messages?limit=1`);
    const last = (body.messages || [])[0];
    const same = item.media_id ? last?.media_id === item.media_id : last?.content === item.content;
    if (!last || last.role !== "user" || !same) throw new Error("not the latest message");
    Object.assign(item, last, { local: false });
    return last.id;
  }

  // A heartbeat on demand, to try what normally happens after hours of silence.
  async heartbeat(turn) {
    let outcome;
    try {
      outcome = await post(`/api/heartbeat/trigger/${this.chat.id}`);
    } catch (error) {
      this.queue.dispatch({ type: "rejected", turn, error });
      return;
    }
    this.queue.dispatch({ type: "accepted", turn });
    const sent = outcome.status === "sent" ? outcome.messages || [] : [];
    for (const m of sent) {
      const data = { message_id: m.id, content: m.content, delay_ms: m.delay_ms, timestamp: m.timestamp, kind: m.kind,
        media_id: m.media_id, media_kind: m.media_kind, duration_s: m.duration_s };
      this.show({ event: "message", data: JSON.stringify(data) }, null);
    }
    if (!sent.length) toast(heartbeatText(outcome));
    await this.shown;
    this.queue.dispatch({ type: "finished", turn, outcome: "replied" });
  }

  // The turn's events, each shown in turn; its outcome once the last one has been shown.
  async stream(response, item) {
    let outcome = "broken";
    try {
      for await (const event of events(response)) {
        if (outcome === "broken" && event.event === "done") outcome = "replied";
        if (outcome === "broken" && event.event === "error") outcome = "failed";
        this.show(event, item);
      }
    } catch {
      // handled below: the stream ended without its last event
    }
    if (outcome === "broken") this.show({ event: "broken" }, item);
    await this.shown;
    return outcome;
  }

  // The message, and any held behind it, go back to the composer in the order they were typed.
  // A photo or voice note stays where it was, with 重发: it is uploaded already, and its caption goes with it.
  restore({ items, texts, error }) {
    this.thinking(false);
    const back = [];
    items.forEach((item, at) => {
      if (item.media_id) item.unsent = true;
      else {
        this.chat.history.remove(item);
        back.push(texts[at]);
      }
    });
    this.chat.putBack(back);
    if (this.blocked(error)) return;
    this.chat.render();
    this.chat.showNotice(describe(error, sendErrors()));
  }

  refused(turn, error) {
    if (turn.kind === "heartbeat") {
      toast(describe(error), "error");
      return;
    }
    this.thinking(false);
    turn.item.failed = true;
    if (this.blocked(error)) return;
    this.chat.render();
    this.chat.showNotice(describe(error, RETRY_ERRORS));
  }

  // A refusal for a protection (minors' mode, a guardian's consent, the daily limit) is a system card in the
  // chat, said by the app and never by the AI; true when it was one.
  blocked(error) {
    const notice = blockedNotice(error);
    if (!notice) return false;
    this.chat.history.addNotice(notice.text, notice.kind);
    this.chat.render({ toBottom: true });
    return true;
  }

  show(event, item) {
    // a failure in one event must not stop the ones after it: the queue waits for them all
    this.shown = this.shown.then(() => this.chat.alive && this.present(event, item)).catch((error) => console.error(error));
  }

  async present(event, local) {
    const chat = this.chat;
    let data = {};
    try {
      data = event.data ? JSON.parse(event.data) : {};
    } catch {
      // a malformed event is shown as a broken connection below
    }
    if (!BEFORE_MESSAGES.has(event.event)) chat.thinking = false;
    if (event.event === "thinking") {
      chat.setTyping(chat.typing);
    } else if (event.event === "safety") {
      this.crisis(data, local);
    } else if (event.event === "notice") {
      if (data.text) chat.history.addNotice(String(data.text), data.kind);
      // a person from DreamChat has the chat: no AI reply is coming, so no 已读 (that would read as the AI's silence)
      if (data.kind === "staff" && local) local.withStaff = true;
      chat.render({ toBottom: true });
    } else if (event.event === "message") {
      chat.setTyping(true);
      await sleep(Math.min(Math.max(Number(data.delay_ms) || 0, 0), MAX_TYPING_MS));
      chat.setTyping(false);
      chat.history.addReply(data);
      chat.render({ toBottom: true });
      chat.markSeen();
    } else if (event.event === "done") {
      if (data.replied === false && local && !local.withStaff) {
        // 已读 comes after a human-like pause, as the server says (not the instant the message lands)
        chat.setTyping(false);
        await sleep(Math.min(Math.max(Number(data.read_after_ms) || 0, 0), MAX_TYPING_MS));
      }
      if (local) local.read = data.replied === false && !local.withStaff;
      if (local?.read && data.reason === "read_no_reply") this.explainRead();
      if (data.topic_ended) chat.history.addDivider("这个话题聊完了，TA 会把它整理进记忆");
      chat.setTyping(false);
      chat.render();
      chat.ctx.friends()?.refresh();
    } else if (event.event === "error") {
      chat.setTyping(false);
      if (local) local.failed = true;
      chat.render();
      chat.showNotice("TA 暂时没法回复（模型服务出了问题）。你的消息已经保存，可以点消息下的「重试」。");
    } else if (event.event === "broken") {
      chat.setTyping(false);
      chat.showNotice("连接中断了，TA 的回复可能稍后才出现。", "offline");
    }
  }

  // The first 已读不回 is explained in one line (lib/read_note.js), once in the view, until dismissed.
  explainRead() {
    const history = this.chat.history;
    if (!readNoteDue(this.chat.account.id) || history.items.some((item) => item.kind === READ_NOTE_KIND)) return;
    history.addNotice(READ_NOTE, READ_NOTE_KIND);
  }

  // Help lines for a person in crisis, shown as a card after their message (it stays: views/chat_render.js).
  crisis(data, local) {
    if (data.kind !== "crisis" || !local) return;
    const accountId = this.chat.account.id;
    const resources = Array.isArray(data.resources) ? data.resources : [];
    rememberHelpLines(accountId, resources);
    local.crisis = resources.length ? resources : helpLines(accountId);
    this.chat.holdCrisis = true; // the card's heading stays in view as the answers come (chat.stick)
    this.chat.render({ toBottom: true });
  }
}

function heartbeatText(outcome) {
  const reason = outcome.reason || "";
  if (outcome.status === "failed") return "TA 现在没法发消息（模型服务出了问题）。";
  if (reason.includes("not to disturb")) return "TA 想了想，决定现在先不打扰你。";
  if (reason.includes("no chat model")) return "没有配置对话模型时，TA 不会主动发消息。";
  if (reason.includes("cap")) return "今天 TA 主动找你的次数已经到上限了。";
  if (reason.includes("same words")) return "TA 想说的话，24 小时内已经说过了。";
  if (reason.includes("conversation")) return "你们正聊着呢，TA 不会另外打扰你。";
  return "TA 这次没有发消息。";
}

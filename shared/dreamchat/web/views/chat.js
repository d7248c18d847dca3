// One conversation: history on scroll, sending over SSE, typing delays, 已读不回, heartbeat messages by polling.
// The parts: which turn is in flight and what waits behind it is the send queue's (lib/send_queue.js); the
// messages shown are a History (chat_history.js); Turns (chat_turns.js) sends and shows the AI's side; what is
// drawn is built in chat_render.js. ChatView here loads, polls, keeps the composer and ties them together.

import { del, describe, get, post } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { autosize, avatar, clear, h, toast } from "../lib/dom.js";
import { loadDraft, saveDraft } from "../lib/drafts.js";
import { KEPT_MESSAGES, kept, keepMessages, keptLabel } from "../lib/offline_cache.js";
import { helpLines } from "../lib/help_lines.js";
import { dismissReadNote, READ_NOTE_KIND } from "../lib/read_note.js";
import { takeLoginNotices } from "../lib/protection.js";
import { SendQueue } from "../lib/send_queue.js";
import { Controls } from "./chat_controls.js";
import { ChatMedia } from "./chat_media.js";
import { History } from "./chat_history.js";
import { aiDisclosure, buildUi, messageMenu, removeFriend, rows, stopCompanion } from "./chat_render.js";
import { tooLong, Turns } from "./chat_turns.js";
import { levelBadge } from "./friends.js";
import { reportDialog } from "./report.js";

const PAGE = 30;
const POLL_MS = 4000;
const LONG_PRESS_MS = 500;

export function renderChat(main, ctx, id) {
  const chat = new ChatView(ctx, id);
  main.replaceChildren(chat.ui.root);
  return chat.open();
}

class ChatView {
  constructor(ctx, id) {
    this.ctx = ctx;
    this.id = id;
    this.account = ctx.account();
    this.alive = true;
    this.aiUser = ctx.friends()?.find(id) || null;
    this.typing = false;  // "对方正在输入…"
    this.thinking = false;  // "对方正在思考…": from sending until the first message (or 已读)
    this.polling = false;
    this.history = new History();
    this.turns = new Turns(this);
    this.queue = new SendQueue((effect) => this.turns.perform(effect));
    this.controls = new Controls(this);
    this.ui = buildUi(ctx, id, {
      triggerHeartbeat: () => this.queue.dispatch({ type: "heartbeat" }),
      removeFriend: () => removeFriend(ctx, id, this.aiUser),
      stopCompanion: () => stopCompanion(ctx, id, this.aiUser, () => {
        this.history.addNotice("你已停止 TA 的陪伴。TA 不会再主动发消息；你再写给 TA 时，陪伴会恢复。", "stopped");
        this.render({ toBottom: true });
      }),
      report: () => reportDialog({ kind: "ai_user", ai_user_id: id, name: this.aiUser?.name }),
      search: () => this.controls.openSearch(),
    });
    this.media = new ChatMedia(this);
  }

  // Starts loading and listening; returns what stops it.
  open() {
    const ui = this.ui;
    ui.textarea.value = loadDraft(this.account.id, this.id);
    autosize(ui.textarea);
    this.showCount();
    this.showAiUser();
    this.listen();
    const onVisible = () => {
      if (document.visibilityState !== "visible") return;
      this.markSeen();  // what arrived while the tab was hidden is seen now
      this.poll();
    };
    const onOnline = () => {
      this.hideNotice("offline");
      this.poll();
    };
    const onFriends = () => this.alive && !this.typing && this.setTyping(false);  // the relationship badge
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("online", onOnline);
    window.addEventListener("dreamchat:friends", onFriends);
    const timer = setInterval(() => document.visibilityState === "visible" && this.poll(), POLL_MS);
    this.loadAiUser();
    this.loadInitial();
    return () => {
      this.alive = false;
      this.media.close();
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("online", onOnline);
      window.removeEventListener("dreamchat:friends", onFriends);
    };
  }

  // ---- the AI user in the header ----

  showAiUser() {
    const aiUser = this.aiUser || { name: "…", avatar: "" };
    clear(this.ui.avatarSlot, avatar(aiUser, "sm"));
    this.ui.name.textContent = aiUser.name;
    this.setTyping(this.typing);
    this.ui.editItem.hidden = !aiUser.is_owner;
    this.ui.reportItem.hidden = aiUser.is_owner !== false;  // someone else's AI user, once that is known
    this.showEmpty();
    if (this.history.loaded) this.render();
  }

  async loadAiUser() {
    try {
      const fresh = await get(`/api/ai-users/${this.id}`);
      const friend = this.ctx.friends()?.find(this.id);
      this.aiUser = { ...fresh, relationship: friend?.relationship };
      if (this.alive) this.showAiUser();
    } catch (error) {
      if (!this.alive) return;
      // offline, the friend as last listed (the kept list) stands in: the chat reads as it was
      if (error.code === "network" && this.aiUser) this.showAiUser();
      else this.showNotice(describe(error, { 404: "找不到这位 AI 朋友，TA 可能已被删除。" }));
    }
  }

  setTyping(on) {
    this.typing = on;
    this.ui.typing.hidden = !on;
    const level = this.ctx.friends()?.find(this.id)?.relationship || this.aiUser?.relationship;
    // a slow model (a reasoner can take 20 s) must not look like nothing is happening
    const text = on ? "对方正在输入…" : this.thinking ? "对方正在思考…" : "";
    clear(this.ui.status, text ? h("span", { class: "typing-text", text }) : levelBadge(level));
    if (on) this.stick();
  }

  // ---- drawing ----

  nearBottom() {
    const log = this.ui.log;
    return log.scrollHeight - log.scrollTop - log.clientHeight < 140;
  }

  // To the newest message; but after a live crisis card, never past its heading (issue 40: the AI's answers
  // below it scrolled "你并不孤单" away), until the person sends again.
  stick() {
    const log = this.ui.log;
    const card = this.holdCrisis ? [...log.querySelectorAll(".crisis-card")].pop() : null;
    const top = card ? card.getBoundingClientRect().top - log.getBoundingClientRect().top + log.scrollTop - 8 : Infinity;
    log.scrollTop = Math.min(log.scrollHeight, top);
  }

  render({ toBottom = false, keepOffset = false } = {}) {
    const { log, list, empty, intro } = this.ui;
    const history = this.history;
    const wasNear = this.nearBottom();
    const fromBottom = log.scrollHeight - log.scrollTop;
    const items = history.ordered(this.queue.held);
    const help = helpLines(this.account.id);
    clear(list, rows(items, this.aiUser, { pending: (item) => this.queue.isUnsent(item), help }));
    empty.hidden = !history.loaded || history.items.length > 0;
    // where the conversation begins, however long it is: the other side is an AI
    intro.hidden = !history.loaded || history.hasMore;
    if (!intro.hidden) clear(intro, aiDisclosure(this.aiUser));
    this.media.drawn();
    if (keepOffset) log.scrollTop = log.scrollHeight - fromBottom;
    else if (toBottom || wasNear) this.stick();
  }

  showEmpty() {
    const aiUser = this.aiUser || { name: "TA" };
    clear(this.ui.empty, avatar(aiUser, "xl"), h("p", { class: "empty-title", text: `和 ${aiUser.name} 打个招呼吧` }),
      h("p", { class: "muted", text: "TA 会记住你们聊过的事。" }));
  }

  showNotice(text, kind = "error") {
    const notice = this.ui.notice;
    notice.hidden = false;
    notice.className = `notice notice-${kind}`;
    notice.textContent = text;
  }

  hideNotice(kind) {
    if (!kind || this.ui.notice.classList.contains(`notice-${kind}`)) this.ui.notice.hidden = true;
  }

  // ---- history ----

  async loadInitial() {
    const history = this.history;
    try {
      const body = await get(`/api/ai-users/${this.id}/messages?limit=${PAGE}`);
      if (!this.alive) return;
      history.merge(body.messages || []);
      // the AI disclosure of this login, shown once, as the app's words
      for (const notice of takeLoginNotices(this.account.id)) history.addNotice(String(notice.text), notice.kind);
      this.offerRetry(body.retry_message_id);
      const greeted = !history.items.length && await this.greet();
      if (!this.alive) return;
      history.hasMore = morePages(body, PAGE);
      history.loaded = true;
      this.keepForOffline(body.messages || [], history.hasMore);
      this.showEmpty();
      this.render({ toBottom: true });
      this.ctx.friends()?.markRead(this.id);
      if (greeted) this.markSeen();  // the greeting is seen, not unread
      this.fillScreen();
    } catch (error) {
      if (!this.alive) return;
      history.loaded = true;
      history.hasMore = false;
      this.ui.older.textContent = "";
      if (error.code === "network" && await this.showKept()) return;
      this.showNotice(describe(error, { 404: "找不到这段对话，这位 AI 朋友可能已被删除。" }));
    }
    this.showOlderStatus();
  }

  // The last KEPT_MESSAGES messages, kept on this device for reading offline (a page shows fewer: one more read).
  keepForOffline(messages, more) {
    const account = this.account?.id;
    if (!more || messages.length >= KEPT_MESSAGES) return keepMessages(account, this.id, messages);
    get(`/api/ai-users/${this.id}/messages?limit=${KEPT_MESSAGES}`)
      .then((body) => keepMessages(account, this.id, body.messages || []))
      .catch(() => {});  // kept next time
  }

  // Offline: the last messages kept on this device, under a line that says they are (true when there were some).
  async showKept() {
    const found = await kept(this.account?.id, `chat:${this.id}`);
    if (!found || !this.alive) return false;
    this.history.merge(found.value);
    this.keptNote ??= h("p", { class: "kept-note", role: "status" });
    this.keptNote.textContent = keptLabel(found.at);
    this.ui.log.insertBefore(this.keptNote, this.ui.list);
    this.showEmpty();
    this.render({ toBottom: true });
    return true;
  }

  // A new chat is not empty: the AI user's opening message, stored by the server once per friendship.
  async greet() {
    try {
      const body = await post(`/api/ai-users/${this.id}/greet`);
      return Boolean(body?.message && this.history.merge([body.message]));
    } catch {
      return false;  // no greeting then; the chat works without it
    }
  }

  async loadOlder() {
    const history = this.history;
    const first = history.firstStored();
    if (!history.hasMore || history.loadingOlder || !first) return;
    history.loadingOlder = true;
    this.showOlderStatus();
    try {
      const body = await get(`/api/ai-users/${this.id}/messages?before=${encodeURIComponent(first.id)}&limit=${PAGE}`);
      if (!this.alive) return;
      const added = history.prepend(body.messages || []);
      history.hasMore = added > 0 && morePages(body, PAGE);
      this.render({ keepOffset: true });
    } catch (error) {
      if (this.alive) toast(describe(error), "error");
    } finally {
      history.loadingOlder = false;
      this.showOlderStatus();
    }
    this.fillScreen();
  }

  // A short history must still be scrollable to reach older pages.
  fillScreen() {
    const log = this.ui.log;
    if (this.alive && this.history.hasMore && log.scrollHeight <= log.clientHeight + 40) this.loadOlder();
  }

  showOlderStatus() {
    const history = this.history;
    if (history.loadingOlder) this.ui.older.textContent = "正在加载更早的消息…";
    else if (!history.hasMore && history.items.length > PAGE / 2) this.ui.older.textContent = "没有更早的消息了";
    else this.ui.older.textContent = "";
  }

  // A reload after a failed turn: the server names the person's message still without an answer.
  offerRetry(messageId) {
    const item = this.history.unanswered(messageId);
    if (!item || item.failed) return;
    Object.assign(item, { failed: true, unanswered: true });
    this.queue.dispatch({ type: "unanswered", item });
  }

  // Heartbeat messages (and replies that a broken connection missed) arrive here, without a reload.
  async poll() {
    if (!this.alive || !this.history.loaded || this.queue.busy || this.controls.busy || this.polling) return;
    const last = this.history.lastStored();
    const startedBefore = this.queue.state.started;
    this.polling = true;
    try {
      const query = last ? `after=${encodeURIComponent(last.id)}&limit=50` : `limit=${PAGE}`;
      const body = await get(`/api/ai-users/${this.id}/messages?${query}`);
      this.hideNotice("offline");
      this.keptNote?.remove(); // what shows now is the server's again
      // a turn started meanwhile: its messages are shown by the stream, with their delays
      if (!this.alive || this.queue.state.started !== startedBefore || this.queue.busy) return;
      if (this.history.merge(body.messages || [])) {
        this.render();
        this.markSeen();
      }
    } catch (error) {
      // never hide a message about a failed send behind this one
      const notice = this.ui.notice;
      const quiet = notice.hidden || notice.classList.contains("notice-offline");
      if (this.alive && error.code === "network" && quiet) this.showNotice("网络连接已断开，正在重试…", "offline");
    } finally {
      this.polling = false;
    }
  }

  // The person has seen what the open chat shows: tell the server, so the chat list counts no unread.
  markSeen() {
    const history = this.history;
    this.ctx.friends()?.markRead(this.id);
    const last = history.lastStored();
    if (!last || document.visibilityState !== "visible" || (history.readUpTo && history.readUpTo >= last.id)) return;
    history.readUpTo = last.id;
    post(`/api/ai-users/${this.id}/read`, { message_id: last.id }).catch(() => {
      history.readUpTo = null;  // told again with the next message or poll
    });
  }

  // ---- the composer ----

  persistDraft() {
    const texts = [...this.queue.unsent().map((turn) => turn.text), this.ui.textarea.value];
    saveDraft(this.account.id, this.id, texts.filter((text) => text.trim()).join("\n"));
  }

  showCount() {
    const { textarea, counter, send } = this.ui;
    const length = [...textarea.value].length;
    const max = limits().message_chars;
    counter.hidden = length < max - 500;  // shown as the end comes near
    counter.textContent = `${length} / ${max}`;
    counter.classList.toggle("over", length > max);
    send.disabled = !textarea.value.trim();
  }

  send() {
    const textarea = this.ui.textarea;
    const text = textarea.value.trim();
    if (!text) return;
    this.holdCrisis = false;
    if ([...text].length > limits().message_chars) {
      this.showNotice(tooLong());
      return;
    }
    this.hideNotice();
    const item = this.history.addLocal(text, Date.now() / 1000);
    textarea.value = "";
    autosize(textarea);
    this.showCount();
    this.queue.dispatch({ type: "send", item, text });
    this.persistDraft();
  }

  // Texts the server did not take go back into the box, before what was typed since.
  putBack(texts) {
    const textarea = this.ui.textarea;
    textarea.value = [...texts, textarea.value].filter((t) => t.trim()).join("\n");
    autosize(textarea);
    this.showCount();
    this.persistDraft();
  }

  // ---- one message's menu: long-press (touch) or right-click ----

  closeActions() {
    this.ui.list.querySelector(".msg-menu")?.remove();
  }

  showActions(rowEl) {
    const item = this.history.find(rowEl.dataset.id);
    if (!item || item.divider) return;
    this.closeActions();
    const stored = !item.local && !this.queue.isUnsent(item);
    const report = stored && item.role === "assistant"
      ? () => this.reportMessage(item) : null;
    const extra = stored || (item.local && !this.queue.busy) ? this.controls.menuItems(item) : [];
    const menu = messageMenu(() => this.copy(item), stored ? () => this.removeMessage(item) : null, report, extra);
    rowEl.querySelector(".msg-body").append(menu);
    menu.querySelector("button").focus();
    setTimeout(() => document.addEventListener("click", (event) => {
      if (!menu.contains(event.target)) menu.remove();
    }, { once: true, capture: true }), 0);
  }

  reportMessage(item) {
    this.closeActions();
    reportDialog({ kind: "message", ai_user_id: this.id, message_id: item.id, name: this.aiUser?.name });
  }

  async copy(item) {
    this.closeActions();
    try {
      await navigator.clipboard.writeText(item.content);
    } catch {
      const box = h("textarea", { value: item.content, readonly: true, class: "sr-only" });
      document.body.append(box);
      box.select();
      document.execCommand("copy");
      box.remove();
    }
    toast("已复制", "ok");
  }

  async removeMessage(item) {
    try {
      await del(`/api/ai-users/${this.id}/messages/${encodeURIComponent(item.id)}`);
      this.history.remove(item);
      this.closeActions();
      this.render();
      toast("已删除（也从 TA 的短期记忆里删掉了）", "ok");
      this.ctx.friends()?.refresh();
    } catch (error) {
      toast(describe(error, { 404: "这条消息已经不在了。" }), "error");
    }
  }

  // ---- what the person does in the page ----

  listen() {
    const ui = this.ui;
    ui.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    ui.textarea.addEventListener("input", () => {
      autosize(ui.textarea);
      this.showCount();
      this.persistDraft();
    });
    ui.textarea.addEventListener("keydown", (event) => {
      // the key reads 发送 on touch keyboards too (enterkeyhint), so Enter sends everywhere; Shift+Enter is a new line
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    ui.list.addEventListener("click", (event) => {
      if (event.target.closest(".notice-dismiss")) {
        dismissReadNote(this.account.id);
        for (const item of this.history.items.filter((i) => i.kind === READ_NOTE_KIND)) this.history.remove(item);
        this.render();
        return;
      }
      const retry = event.target.closest(".retry-btn");
      const item = retry && this.history.find(retry.closest(".msg").dataset.id);
      if (item) this.queue.dispatch({ type: "retry", item });
    });
    ui.list.addEventListener("contextmenu", (event) => {
      const rowEl = event.target.closest(".msg");
      if (!rowEl || !event.target.closest(".bubble")) return;
      event.preventDefault();
      this.showActions(rowEl);
    });
    let pressTimer = null;
    const cancelPress = () => clearTimeout(pressTimer);
    ui.list.addEventListener("pointerdown", (event) => {
      const rowEl = event.target.closest(".msg");
      if (event.pointerType !== "touch" || !rowEl || !event.target.closest(".bubble")) return;
      cancelPress();
      pressTimer = setTimeout(() => this.showActions(rowEl), LONG_PRESS_MS);
    });
    for (const name of ["pointerup", "pointercancel", "pointermove"]) ui.list.addEventListener(name, cancelPress);
    this.controls.listen(ui.list);
    this.media.listen();
    ui.log.addEventListener("scroll", () => {
      if (ui.log.scrollTop < 80) this.loadOlder();
    });
  }
}

// next_cursor is set when older messages remain (a full page is the fallback sign).
function morePages(body, limit) {
  const count = (body.messages || []).length;
  if (!count) return false;
  return "next_cursor" in body ? body.next_cursor != null : count >= limit;
}

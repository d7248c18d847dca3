// One conversation: history on scroll, sending over SSE, typing delays, 已读不回, heartbeat messages by polling.

import { del, describe, events, get, patch, post, raw } from "../lib/api.js";
import { autosize, avatar, clear, confirmButton, h, icon, sleep, toast } from "../lib/dom.js";
import { loadDraft, saveDraft } from "../lib/drafts.js";
import { chatStamp } from "../lib/time.js";
import { levelBadge } from "./friends.js";

const PAGE = 30;
const POLL_MS = 4000;
const MAX_TYPING_MS = 30000;
const MAX_CHARS = 2000;
const STAMP_GAP_S = 5 * 60;
const LONG_PRESS_MS = 500;

const SEND_ERRORS = {
  network: "网络好像断了，消息没有发出去。内容已经放回输入框，联网后再发一次吧。",
  404: "找不到这位 AI 朋友了，TA 可能已被删除。",
  403: "你们现在还不是好友，先加好友再聊天吧。",
  413: "一条消息最多 2000 字，请分几次发送。",
  422: "一条消息最多 2000 字，而且不能是空的。",
};

export function renderChat(main, ctx, id) {
  const account = ctx.account();
  const state = {
    alive: true, items: [], hasMore: true, loadingOlder: false, loaded: false, unsent: [],
    queue: [], showing: false, active: 0, sends: 0, polling: false, seq: 0, waiting: [], readUpTo: null, aiUser: ctx.friends()?.find(id) || null,
  };

  const ui = buildUi(ctx, id, state);
  main.replaceChildren(ui.root);
  ui.textarea.value = loadDraft(account.id, id);
  autosize(ui.textarea);
  showCount();
  showAiUser();

  // ---- the AI user in the header ----

  function showAiUser() {
    const aiUser = state.aiUser || { name: "…", avatar: "" };
    clear(ui.avatarSlot, avatar(aiUser, "sm"));
    ui.name.textContent = aiUser.name;
    setTyping(state.typing);
    ui.editItem.hidden = !aiUser.is_owner;
    showEmpty();
    if (state.loaded) render();
  }

  async function loadAiUser() {
    try {
      const fresh = await get(`/api/ai-users/${id}`);
      const friend = ctx.friends()?.find(id);
      state.aiUser = { ...fresh, relationship: friend?.relationship };
      if (state.alive) showAiUser();
    } catch (error) {
      if (state.alive) showNotice(describe(error, { 404: "找不到这位 AI 朋友，TA 可能已被删除。" }));
    }
  }

  function setTyping(on) {
    state.typing = on;
    ui.typing.hidden = !on;
    const level = ctx.friends()?.find(id)?.relationship || state.aiUser?.relationship;
    // from sending until the first message (or 已读) the AI is thinking: a slow model must not look like nothing
    const text = on ? "对方正在输入…" : state.thinking ? "对方正在思考…" : "";
    clear(ui.status, text ? h("span", { class: "typing-text", text }) : levelBadge(level));
    if (on) stick();
  }

  // ---- rendering ----

  function nearBottom() {
    return ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 140;
  }

  function stick() {
    ui.log.scrollTop = ui.log.scrollHeight;
  }

  function render({ toBottom = false, keepOffset = false } = {}) {
    const wasNear = nearBottom();
    const fromBottom = ui.log.scrollHeight - ui.log.scrollTop;
    // messages held back until the AI's turn ends stay last, where they will be stored
    const ordered = [...state.items.filter((item) => !item.queued), ...state.items.filter((item) => item.queued)];
    clear(ui.list, rows(ordered, state.aiUser));
    ui.empty.hidden = !state.loaded || state.items.length > 0;
    if (keepOffset) ui.log.scrollTop = ui.log.scrollHeight - fromBottom;
    else if (toBottom || wasNear) stick();
  }

  function showEmpty() {
    const aiUser = state.aiUser || { name: "TA" };
    clear(ui.empty, avatar(aiUser, "xl"), h("p", { class: "empty-title", text: `和 ${aiUser.name} 打个招呼吧` }),
      h("p", { class: "muted", text: "TA 会记住你们聊过的事。" }));
  }

  function showNotice(text, kind = "error") {
    ui.notice.hidden = false;
    ui.notice.className = `notice notice-${kind}`;
    ui.notice.textContent = text;
  }

  function hideNotice(kind) {
    if (!kind || ui.notice.classList.contains(`notice-${kind}`)) ui.notice.hidden = true;
  }

  // ---- history ----

  async function loadInitial() {
    try {
      const body = await get(`/api/ai-users/${id}/messages?limit=${PAGE}`);
      if (!state.alive) return;
      merge(body.messages || []);
      offerRetry(body.retry_message_id);
      if (!state.items.length) await greet();
      if (!state.alive) return;
      state.hasMore = morePages(body, PAGE);
      state.loaded = true;
      showEmpty();
      render({ toBottom: true });
      ctx.friends()?.markRead(id);
      if (state.greeted) markSeen();  // the greeting is seen, not unread
      fillScreen();
    } catch (error) {
      if (!state.alive) return;
      state.loaded = true;
      state.hasMore = false;
      ui.older.textContent = "";
      showNotice(describe(error, { 404: "找不到这段对话，这位 AI 朋友可能已被删除。" }));
    }
    showOlderStatus();
  }

  // A new chat is not empty: the AI user's opening message, stored by the server once per friendship.
  async function greet() {
    try {
      const body = await post(`/api/ai-users/${id}/greet`);
      if (body?.message && merge([body.message])) state.greeted = true;
    } catch {
      // no greeting then; the chat works without it
    }
  }

  async function loadOlder() {
    const first = state.items.find((item) => !item.local && !item.divider);
    if (!state.hasMore || state.loadingOlder || !first) return;
    state.loadingOlder = true;
    showOlderStatus();
    try {
      const body = await get(`/api/ai-users/${id}/messages?before=${encodeURIComponent(first.id)}&limit=${PAGE}`);
      if (!state.alive) return;
      const older = (body.messages || []).filter((m) => !known(m.id));
      state.items.unshift(...older);
      state.hasMore = older.length > 0 && morePages(body, PAGE);
      render({ keepOffset: true });
    } catch (error) {
      if (state.alive) toast(describe(error), "error");
    } finally {
      state.loadingOlder = false;
      showOlderStatus();
    }
    fillScreen();
  }

  // A short history must still be scrollable to reach older pages.
  function fillScreen() {
    if (state.alive && state.hasMore && ui.log.scrollHeight <= ui.log.clientHeight + 40) loadOlder();
  }

  function showOlderStatus() {
    if (state.loadingOlder) ui.older.textContent = "正在加载更早的消息…";
    else if (!state.hasMore && state.items.length > PAGE / 2) ui.older.textContent = "没有更早的消息了";
    else ui.older.textContent = "";
  }

  function known(messageId) {
    return state.items.some((item) => item.id === messageId);
  }

  function merge(messages) {
    let changed = false;
    for (const message of messages) {
      if (known(message.id)) continue;
      const local = message.role === "user" &&
        state.items.find((item) => item.local && item.role === "user" && item.content === message.content);
      if (local) Object.assign(local, message, { local: false });
      else state.items.push({ ...message });
      changed = true;
    }
    return changed;
  }

  // A reload after a failed turn: the server names the person's message still without an answer.
  function offerRetry(messageId) {
    const item = messageId && state.items.find((entry) => entry.id === messageId && entry.role === "user");
    if (item && !item.failed) Object.assign(item, { failed: true, unanswered: true });
  }

  // Heartbeat messages (and replies that a broken connection missed) arrive here, without a reload.
  async function poll() {
    if (!state.alive || !state.loaded || state.active || state.showing || state.polling) return;
    const last = [...state.items].reverse().find((item) => !item.local && !item.divider);
    const sendsBefore = state.sends;
    state.polling = true;
    try {
      const query = last ? `after=${encodeURIComponent(last.id)}&limit=50` : `limit=${PAGE}`;
      const body = await get(`/api/ai-users/${id}/messages?${query}`);
      hideNotice("offline");
      // a send started meanwhile: its messages are shown by the stream, with their delays
      if (!state.alive || state.sends !== sendsBefore || state.active || state.showing) return;
      if (merge(body.messages || [])) {
        render();
        markSeen();
      }
    } catch (error) {
      // never hide a message about a failed send behind this one
      const quiet = ui.notice.hidden || ui.notice.classList.contains("notice-offline");
      if (state.alive && error.code === "network" && quiet) showNotice("网络连接已断开，正在重试…", "offline");
    } finally {
      state.polling = false;
    }
  }

  // The person has seen what the open chat shows: tell the server, so the chat list counts no unread.
  function markSeen() {
    ctx.friends()?.markRead(id);
    const last = [...state.items].reverse().find((item) => !item.local && !item.divider && item.id);
    if (!last || document.visibilityState !== "visible" || (state.readUpTo && state.readUpTo >= last.id)) return;
    state.readUpTo = last.id;
    post(`/api/ai-users/${id}/read`, { message_id: last.id }).catch(() => {
      state.readUpTo = null;  // told again with the next message or poll
    });
  }

  // ---- sending ----

  function persistDraft() {
    saveDraft(account.id, id, [...state.unsent, ui.textarea.value].filter((text) => text.trim()).join("\n"));
  }

  function showCount() {
    const length = [...ui.textarea.value].length;
    ui.counter.hidden = length < MAX_CHARS - 500;
    ui.counter.textContent = `${length} / ${MAX_CHARS}`;
    ui.counter.classList.toggle("over", length > MAX_CHARS);
    ui.send.disabled = !ui.textarea.value.trim();
  }

  async function send() {
    const text = ui.textarea.value.trim();
    if (!text) return;
    if ([...text].length > MAX_CHARS) {
      showNotice(SEND_ERRORS[413]);
      return;
    }
    hideNotice();
    const local = { id: `local-${++state.seq}`, role: "user", content: text, timestamp: Date.now() / 1000, local: true, pending: true };
    state.items.push(local);
    state.unsent.push(text);
    state.sends += 1;
    ui.textarea.value = "";
    autosize(ui.textarea);
    showCount();
    persistDraft();
    // While the AI is answering, a new message waits for the turn to end: it is stored, and shown, after the replies.
    if (state.active || state.showing || state.waiting.length) {
      local.queued = true;
      state.waiting.push({ local, text });
      render({ toBottom: true });
      return;
    }
    await deliver(local, text);
  }

  function sendWaiting() {
    if (!state.alive || state.active || state.showing || !state.waiting.length) return;
    const { local, text } = state.waiting.shift();
    state.items.splice(state.items.indexOf(local), 1);
    state.items.push(local);
    local.queued = false;
    deliver(local, text);
  }

  async function deliver(local, text) {
    state.active += 1;
    state.thinking = true;
    render({ toBottom: true });
    setTyping(false);
    let response;
    try {
      response = await raw("POST", `/api/ai-users/${id}/chat`, { content: text }, { accept: "text/event-stream" });
    } catch (error) {
      state.active -= 1;
      failed(local, text, error);
      return;
    }
    // accepted: the server has stored the message, so the draft no longer needs it
    state.unsent.splice(state.unsent.indexOf(text), 1);
    persistDraft();
    local.pending = false;
    render();
    await stream(response, local);
  }

  async function stream(response, local) {
    let ended = false;
    try {
      for await (const event of events(response)) {
        ended ||= event.event === "done" || event.event === "error";
        enqueue(event, local);
      }
    } catch {
      // handled below: the stream ended without its last event
    } finally {
      state.active -= 1;
      if (!ended) enqueue({ event: "broken" }, local);
      sendWaiting();
    }
  }

  // The message, and any waiting behind it, go back to the composer in the order they were typed.
  function failed(local, text, error) {
    state.thinking = false;
    setTyping(false);
    const back = [{ local, text }, ...state.waiting.splice(0)];
    for (const entry of back) {
      state.items.splice(state.items.indexOf(entry.local), 1);
      state.unsent.splice(state.unsent.indexOf(entry.text), 1);
    }
    const typed = ui.textarea.value;
    ui.textarea.value = [...back.map((entry) => entry.text), typed].filter((t) => t.trim()).join("\n");
    autosize(ui.textarea);
    showCount();
    persistDraft();
    render();
    showNotice(describe(error, SEND_ERRORS));
  }

  function enqueue(event, local) {
    state.queue.push({ event, local });
    pump();
  }

  async function pump() {
    if (state.showing) return;
    state.showing = true;
    while (state.queue.length && state.alive) {
      const { event, local } = state.queue.shift();
      await present(event, local);
    }
    state.showing = false;
    if (state.alive && !state.active && state.waiting.length) sendWaiting();
    else if (state.alive && !state.active) poll();
  }

  async function present(event, local) {
    let data = {};
    try {
      data = event.data ? JSON.parse(event.data) : {};
    } catch {
      // a malformed event is shown as a broken connection below
    }
    if (event.event !== "thinking") state.thinking = false;
    if (event.event === "thinking") {
      setTyping(state.typing);
    } else if (event.event === "message") {
      setTyping(true);
      await sleep(Math.min(Math.max(Number(data.delay_ms) || 0, 0), MAX_TYPING_MS));
      setTyping(false);
      if (!known(data.message_id)) {
        state.items.push({
          id: data.message_id, role: "assistant", content: data.content, timestamp: data.timestamp, kind: data.kind || "chat",
        });
      }
      render({ toBottom: true });
      markSeen();
    } else if (event.event === "done") {
      if (data.replied === false && local) {
        // 已读 comes after a human-like pause, as the server says (not the instant the message lands)
        setTyping(false);
        await sleep(Math.min(Math.max(Number(data.read_after_ms) || 0, 0), MAX_TYPING_MS));
      }
      if (local) local.read = data.replied === false;
      if (data.topic_ended) state.items.push({ id: `divider-${++state.seq}`, divider: "这个话题聊完了，TA 会把它整理进记忆" });
      setTyping(false);
      render();
      ctx.friends()?.refresh();
    } else if (event.event === "error") {
      setTyping(false);
      if (local) local.failed = true;
      render();
      showNotice("TA 暂时没法回复（模型服务出了问题）。你的消息已经保存，可以点消息下的「重试」。");
    } else if (event.event === "broken") {
      setTyping(false);
      showNotice("连接中断了，TA 的回复可能稍后才出现。", "offline");
    }
  }

  // After a failed turn: the stored message is answered again, never stored twice.
  async function retryTurn(item) {
    if (state.active || state.showing) return;
    item.failed = false;
    item.unanswered = false;
    hideNotice();
    state.active += 1;
    state.sends += 1;
    state.thinking = true;
    render({ toBottom: true });
    setTyping(false);
    let response;
    try {
      let messageId = item.id;
      if (item.local || String(messageId).startsWith("local-")) {
        const body = await get(`/api/ai-users/${id}/messages?limit=1`);
        const last = (body.messages || [])[0];
        if (!last || last.role !== "user" || last.content !== item.content) throw new Error("not the latest message");
        Object.assign(item, last, { local: false });
        messageId = last.id;
      }
      response = await raw("POST", `/api/ai-users/${id}/messages/${encodeURIComponent(messageId)}/retry`, undefined,
        { accept: "text/event-stream" });
    } catch (error) {
      state.active -= 1;
      state.thinking = false;
      item.failed = true;
      setTyping(false);
      render();
      showNotice(describe(error, { 409: "这条消息可能还在回复中、已经有了回复，或者后面又有了新消息，稍后刷新看看。" }));
      return;
    }
    await stream(response, item);
  }

  // Long-press (touch) or right-click: copy or delete one message.
  function closeActions() {
    ui.list.querySelector(".msg-menu")?.remove();
  }

  function showActions(rowEl) {
    const item = state.items.find((entry) => entry.id === rowEl.dataset.id);
    if (!item || item.divider) return;
    closeActions();
    const stored = !item.local && !item.pending && !item.queued;
    const menu = h("div", { class: "msg-menu", role: "menu", "aria-label": "消息操作" },
      h("button", { type: "button", role: "menuitem", class: "menu-item", onclick: () => copy(item) }, "复制"),
      stored ? confirmButton("删除", "确认删除", () => removeMessage(item), "menu-item danger") : null);
    for (const button of menu.querySelectorAll("button")) button.setAttribute("role", "menuitem");
    rowEl.querySelector(".msg-body").append(menu);
    menu.querySelector("button").focus();
    setTimeout(() => document.addEventListener("click", (event) => {
      if (!menu.contains(event.target)) menu.remove();
    }, { once: true, capture: true }), 0);
  }

  async function copy(item) {
    closeActions();
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

  async function removeMessage(item) {
    try {
      await del(`/api/ai-users/${id}/messages/${encodeURIComponent(item.id)}`);
      state.items.splice(state.items.indexOf(item), 1);
      closeActions();
      render();
      toast("已删除（也从 TA 的短期记忆里删掉了）", "ok");
      ctx.friends()?.refresh();
    } catch (error) {
      toast(describe(error, { 404: "这条消息已经不在了。" }), "error");
    }
  }

  // A heartbeat on demand, to try what normally happens after hours of silence.
  async function triggerHeartbeat() {
    state.active += 1;
    state.sends += 1;
    try {
      const outcome = await post(`/api/heartbeat/trigger/${id}`);
      const sent = outcome.status === "sent" ? outcome.messages || [] : [];
      for (const m of sent) {
        const data = { message_id: m.id, content: m.content, delay_ms: m.delay_ms, timestamp: m.timestamp, kind: m.kind };
        enqueue({ event: "message", data: JSON.stringify(data) }, null);
      }
      if (!sent.length) toast(heartbeatText(outcome));
    } catch (error) {
      toast(describe(error), "error");
    } finally {
      state.active -= 1;
    }
  }

  // ---- events ----

  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  ui.textarea.addEventListener("input", () => {
    autosize(ui.textarea);
    showCount();
    persistDraft();
  });
  ui.textarea.addEventListener("keydown", (event) => {
    // the key reads 发送 on touch keyboards too (enterkeyhint), so Enter sends everywhere; Shift+Enter is a new line
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  ui.list.addEventListener("click", (event) => {
    const retry = event.target.closest(".retry-btn");
    if (!retry) return;
    const item = state.items.find((entry) => entry.id === retry.closest(".msg").dataset.id);
    if (item) retryTurn(item);
  });
  ui.list.addEventListener("contextmenu", (event) => {
    const rowEl = event.target.closest(".msg");
    if (!rowEl || !event.target.closest(".bubble")) return;
    event.preventDefault();
    showActions(rowEl);
  });
  let pressTimer = null;
  const cancelPress = () => clearTimeout(pressTimer);
  ui.list.addEventListener("pointerdown", (event) => {
    const rowEl = event.target.closest(".msg");
    if (event.pointerType !== "touch" || !rowEl || !event.target.closest(".bubble")) return;
    cancelPress();
    pressTimer = setTimeout(() => showActions(rowEl), LONG_PRESS_MS);
  });
  for (const name of ["pointerup", "pointercancel", "pointermove"]) ui.list.addEventListener(name, cancelPress);
  ui.log.addEventListener("scroll", () => {
    if (ui.log.scrollTop < 80) loadOlder();
  });
  ui.removeFriend = () => removeFriend(ctx, id, state.aiUser);
  ui.triggerHeartbeat = triggerHeartbeat;
  const onVisible = () => {
    if (document.visibilityState !== "visible") return;
    markSeen();  // what arrived while the tab was hidden is seen now
    poll();
  };
  const onOnline = () => {
    hideNotice("offline");
    poll();
  };
  const onFriends = () => state.alive && !state.typing && setTyping(false);  // the relationship badge
  document.addEventListener("visibilitychange", onVisible);
  window.addEventListener("online", onOnline);
  window.addEventListener("dreamchat:friends", onFriends);
  const timer = setInterval(() => document.visibilityState === "visible" && poll(), POLL_MS);

  loadAiUser();
  loadInitial();
  return () => {
    state.alive = false;
    clearInterval(timer);
    document.removeEventListener("visibilitychange", onVisible);
    window.removeEventListener("online", onOnline);
    window.removeEventListener("dreamchat:friends", onFriends);
  };
}

// next_cursor is set when older messages remain (a full page is the fallback sign).
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

function morePages(body, limit) {
  const count = (body.messages || []).length;
  if (!count) return false;
  return "next_cursor" in body ? body.next_cursor != null : count >= limit;
}

// Messages with time stamps after a pause, topic dividers, and the AI's avatar on the first of a run.
function rows(items, aiUser) {
  const out = [];
  let previous = null;
  for (const item of items) {
    if (item.divider) {
      out.push(h("div", { class: "divider", text: item.divider }));
      previous = null;
      continue;
    }
    if (previous && previous.topic_id && item.topic_id && previous.topic_id !== item.topic_id) {
      out.push(h("div", { class: "divider", text: "新的话题" }));
      previous = null;
    }
    const stamp = !previous || item.timestamp - previous.timestamp > STAMP_GAP_S;
    if (stamp && item.timestamp) out.push(h("div", { class: "stamp", text: chatStamp(item.timestamp) }));
    const first = stamp || !previous || previous.role !== item.role;
    out.push(row(item, aiUser, first));
    previous = item;
  }
  return out;
}

function row(item, aiUser, first) {
  const mine = item.role === "user";
  const heartbeat = item.kind === "heartbeat";
  const classes = ["msg", mine ? "msg-me" : "msg-ai", first ? "msg-first" : "", heartbeat ? "msg-heartbeat" : "",
    item.pending ? "msg-pending" : ""].filter(Boolean).join(" ");
  const side = mine ? null : first && aiUser ? avatar(aiUser, "sm") : h("span", { class: "avatar-gap" });
  return h("div", { class: classes, dataset: { id: item.id, role: item.role } },
    side,
    h("div", { class: "msg-body" },
      heartbeat && first ? h("div", { class: "msg-tag" }, icon("heart"), "主动来找你") : null,
      h("div", { class: "bubble", text: item.content }),
      item.read || item.read_no_reply ? h("div", { class: "msg-meta read-receipt", text: "已读" }) : null,
      item.pending ? h("div", { class: "msg-meta", text: "发送中…" }) : null,
      item.failed ? h("div", { class: "msg-meta msg-failed" }, h("span", { text: item.unanswered ? "还没有回复" : "回复失败" }),
        h("button", { type: "button", class: "retry-btn", text: "重试" })) : null));
}

function buildUi(ctx, id, state) {
  const textarea = h("textarea", {
    id: "composer-input", rows: "1", placeholder: "说点什么…", "aria-label": "输入消息", enterkeyhint: "send",
  });
  const send = h("button", { type: "submit", class: "send-btn", title: "发送", disabled: true }, icon("send", "发送"));
  const editItem = h("a", { class: "menu-item", href: `#/edit/${id}`, role: "menuitem" }, icon("edit"), "编辑资料");
  const menu = h("div", { class: "menu", role: "menu", hidden: true },
    editItem,
    h("button", {
      type: "button", class: "menu-item", role: "menuitem",
      onclick: () => {
        menu.hidden = true;
        ui.triggerHeartbeat();
      },
    }, icon("heart"), "让 TA 现在来找我"),
    h("button", {
      type: "button", class: "menu-item menu-pin", role: "menuitem",
      onclick: () => {
        menu.hidden = true;
        toggleFriend(ctx, id, "pinned");
      },
    }, icon("pin"), h("span", { text: "置顶聊天" })),
    h("button", {
      type: "button", class: "menu-item menu-mute", role: "menuitem",
      onclick: () => {
        menu.hidden = true;
        toggleFriend(ctx, id, "muted");
      },
    }, icon("bell"), h("span", { text: "消息免打扰" })),
    h("button", {
      type: "button", class: "menu-item danger", role: "menuitem",
      onclick: () => {
        menu.hidden = true;
        ui.removeFriend();
      },
    }, icon("trash"), "删除好友"));
  const toggleMenu = (event) => {
    event.stopPropagation();
    menu.hidden = !menu.hidden;
    const friend = ctx.friends()?.find(id);
    menu.querySelector(".menu-pin > span:last-child").textContent = friend?.pinned ? "取消置顶" : "置顶聊天";
    menu.querySelector(".menu-mute > span:last-child").textContent = friend?.muted ? "取消免打扰" : "消息免打扰";
    if (!menu.hidden) document.addEventListener("click", () => { menu.hidden = true; }, { once: true });
  };
  const ui = {
    textarea, send, editItem, removeFriend: null, triggerHeartbeat: null,
    avatarSlot: h("span", { class: "bar-avatar" }),
    name: h("b", { class: "chat-name" }),
    status: h("small", { class: "chat-status", "aria-live": "polite" }),
    typing: h("div", { class: "msg msg-ai msg-first typing", hidden: true, "aria-hidden": "true" },
      h("span", { class: "avatar-gap" }),
      h("div", { class: "msg-body" }, h("div", { class: "bubble typing-bubble" },
        h("span", { class: "dot" }), h("span", { class: "dot" }), h("span", { class: "dot" })))),
    list: h("div", { class: "msg-list" }),
    older: h("div", { class: "older" }),
    empty: h("div", { class: "chat-empty", hidden: true }),
    notice: h("div", { class: "notice", role: "alert", hidden: true }),
    counter: h("span", { class: "counter composer-counter", hidden: true }),
  };
  ui.log = h("div", { class: "log", role: "log", "aria-label": "聊天记录" }, ui.older, ui.empty, ui.list, ui.typing);
  ui.form = h("form", { class: "composer" }, h("div", { class: "composer-box" }, textarea, ui.counter), send);
  ui.root = h("section", { class: "chat" },
    h("header", { class: "bar" },
      h("button", { type: "button", class: "icon-btn back-btn", title: "返回", onclick: () => ctx.go("/") }, icon("back", "返回")),
      ui.avatarSlot,
      h("div", { class: "bar-title" }, ui.name, ui.status),
      h("a", { class: "btn btn-soft btn-sm", href: `#/memory/${id}`, title: "查看 TA 的记忆" }, icon("brain"), h("span", { text: "记忆" })),
      h("div", { class: "menu-wrap" },
        h("button", { type: "button", class: "icon-btn", title: "更多", "aria-haspopup": "menu", onclick: toggleMenu },
          icon("more", "更多")),
        menu)),
    ui.log, ui.notice, ui.form);
  return ui;
}

async function toggleFriend(ctx, id, field) {
  const friend = ctx.friends()?.find(id);
  const on = !friend?.[field];
  try {
    await patch(`/api/friends/${id}`, { [field]: on });
    await ctx.friends()?.refresh();
    const said = { pinned: on ? "已置顶" : "已取消置顶", muted: on ? "已设为消息免打扰" : "已取消免打扰" };
    toast(said[field], "ok");
  } catch (error) {
    toast(describe(error), "error");
  }
}

function removeFriend(ctx, id, aiUser) {
  const forget = h("input", { type: "checkbox", id: "forget-memories" });
  const dialog = h("dialog", { class: "dialog" },
    h("form", { method: "dialog", class: "dialog-body" },
      h("h3", { text: `删除好友「${aiUser?.name || ""}」？` }),
      h("p", { class: "muted", text: "删除后 TA 不会再出现在好友列表里，也不会再主动找你。" }),
      h("label", { class: "check", for: "forget-memories" }, forget, h("span", { text: "同时清除 TA 关于我的全部记忆" })),
      h("div", { class: "dialog-actions" },
        h("button", { value: "cancel", class: "btn btn-soft", text: "取消" }),
        h("button", { value: "remove", class: "btn btn-danger-solid", text: "删除好友" }))));
  dialog.addEventListener("close", async () => {
    dialog.remove();
    if (dialog.returnValue !== "remove") return;
    try {
      await del(`/api/friends/${id}?forget=${forget.checked}`);
      await ctx.friends()?.refresh();
      toast(forget.checked ? "已删除好友，并清除了记忆" : "已删除好友", "ok");
      ctx.go("/");
    } catch (error) {
      toast(describe(error), "error");
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}

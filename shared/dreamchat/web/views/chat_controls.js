// The person's controls in a chat (API: README, "chat"): 换一个回答 and the arrows (or a swipe) between the
// answers kept, editing their last message, 👍/👎, 让 TA 记住这条, and searching the history. `chat` is the
// ChatView (views/chat.js); the streams are shown by its Turns (views/chat_turns.js).

import { describe, get, post, put, raw } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { autosize, clear, h, toast } from "../lib/dom.js";
import { chatStamp } from "../lib/time.js";

const RELOAD = 30;
const SEARCH_PAGE = 20;
const SWIPE_PX = 60;
const CHANGED = { 409: "这段对话刚刚有了新消息，只有最后一轮可以换回答或编辑。" };
const REMEMBER_ERRORS = { 409: "TA 记住的事已经到上限了，先在「记忆」里删掉一些吧。", 404: "这条消息已经不在了。" };

const stored = (item) => Boolean(item.id) && !item.local && !item.divider && !item.notice;
// the person's message sent in this page is stored once its turn is over, before the page learns its id
const mine = (item) => item.role === "user" && !item.divider && !item.notice;

export class Controls {
  constructor(chat) {
    this.chat = chat;
    this.busy = false;  // a new answer or an edit is streaming: polling waits
  }

  get base() {
    return `/api/ai-users/${this.chat.id}/messages`;
  }

  // The latest exchange as the page shows it: the person's last stored message and the AI's chat messages after it.
  exchange() {
    const answer = [];
    for (const item of [...this.chat.history.items].reverse()) {
      if (item.divider || item.notice) continue;
      if (mine(item)) return { person: item, answer };
      if (!stored(item)) return null;
      if (item.role !== "assistant" || (item.kind && item.kind !== "chat")) return null;
      answer.unshift(item);
    }
    return null;
  }

  // The message menu's items beyond 复制/删除/举报 for this message.
  menuItems(item) {
    if (!(stored(item) || mine(item)) || item.role === "staff") return [];
    const exchange = this.exchange();
    const menuItem = (label, onclick) => h("button", { type: "button", role: "menuitem", class: "menu-item", onclick }, label);
    const out = [];
    if (item.role === "assistant") {
      out.push(menuItem("👍 赞", () => this.rate(item, 1)), menuItem("👎 踩", () => this.rate(item, -1)));
      if (exchange?.answer.includes(item)) out.push(menuItem("换一个回答", () => this.regenerate(exchange)));
    }
    if (exchange && exchange.person === item && !item.media_id) out.push(menuItem("编辑", () => this.edit(exchange)));
    out.push(menuItem("让 TA 记住这条", () => this.remember(item)));
    return out;
  }

  listen(list) {
    list.addEventListener("click", (event) => {
      const button = event.target.closest(".alt-btn");
      const item = button && this.chat.history.find(button.closest(".msg").dataset.id);
      if (item) this.choose(item, Number(button.dataset.index));
    });
    let start = null;
    list.addEventListener("pointerdown", (event) => {
      const rowEl = event.target.closest(".msg-ai");
      start = rowEl && event.target.closest(".bubble") ? { x: event.clientX, id: rowEl.dataset.id } : null;
    });
    list.addEventListener("pointerup", (event) => {
      const item = start && this.chat.history.find(start.id);
      const dx = start ? event.clientX - start.x : 0;
      start = null;
      if (!item?.alternatives || item.alternatives.length < 2 || Math.abs(dx) < SWIPE_PX) return;
      const index = (item.alternative || 0) + (dx > 0 ? -1 : 1);  // a swipe to the right goes back
      if (index >= 0 && index < item.alternatives.length) this.choose(item, index);
    });
  }

  ready() {
    this.chat.closeActions();
    if (!this.chat.queue.busy && !this.busy) return true;
    toast("等 TA 回完这条再试", "info");
    return false;
  }

  async regenerate(exchange) {
    if (!this.ready()) return;
    const path = `${this.base}/${encodeURIComponent(exchange.answer[0].id)}/regenerate`;
    await this.stream(() => raw("POST", path, undefined, { accept: "text/event-stream" }), () => {
      for (const item of exchange.answer) this.chat.history.remove(item);
      return exchange.person;
    });
  }

  edit(exchange) {
    if (!this.ready()) return;
    const max = limits().message_chars;
    const text = h("textarea", { id: "edit-message", rows: "3", maxlength: String(max), value: exchange.person.content });
    const save = h("button", { type: "submit", class: "btn btn-primary", text: "保存并重新回答" });
    const form = h("form", { class: "dialog-body edit-form" },
      h("h3", { text: "编辑消息" }),
      h("label", { class: "field", for: "edit-message" }, h("span", { text: "改好后，TA 会重新回答" }), text),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn-soft", text: "取消", onclick: () => dialog.close() }), save));
    const dialog = h("dialog", { class: "dialog", "aria-label": "编辑消息" }, form);
    text.addEventListener("input", () => {
      save.disabled = !text.value.trim();
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      dialog.close();
      this.sendEdit(exchange, text.value.trim());
    });
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    autosize(text);
    text.focus();
  }

  async sendEdit(exchange, content) {
    if (!content || content === exchange.person.content) return;
    const path = `${this.base}/${encodeURIComponent(await this.idOf(exchange.person))}`;
    await this.stream(() => raw("PUT", path, { content }, { accept: "text/event-stream" }), () => {
      for (const item of [exchange.person, ...exchange.answer]) this.chat.history.remove(item);
      return this.chat.history.addLocal(content, Date.now() / 1000);
    });
  }

  // A stream that replaces the latest exchange: `replace` takes the old one off the page once the server agreed.
  async stream(request, replace) {
    const chat = this.chat;
    this.busy = true;
    try {
      let response;
      try {
        response = await request();
      } catch (error) {
        toast(describe(error, CHANGED), "error");
        return;
      }
      const person = replace();
      chat.turns.thinking(true);
      await chat.turns.stream(response, person);
      await this.reload();
    } finally {
      this.busy = false;
    }
  }

  // The latest page again, as stored now: what a new answer, an edit or a choice changed.
  async reload() {
    const history = this.chat.history;
    try {
      const fresh = (await get(`${this.base}?limit=${RELOAD}`)).messages || [];
      const ids = new Set(fresh.map((m) => m.id));
      const oldest = fresh[0]?.id;
      history.items = history.items.filter((item) => !(stored(item) && oldest && item.id >= oldest && !ids.has(item.id)));
      for (const message of fresh) Object.assign(history.find(message.id) || {}, message);
      history.merge(fresh);
      this.chat.render();
    } catch (error) {
      toast(describe(error), "error");
    }
  }

  async choose(item, index) {
    if (!this.ready()) return;
    try {
      await put(`${this.base}/${encodeURIComponent(item.id)}/alternative`, { index });
      await this.reload();
    } catch (error) {
      toast(describe(error, CHANGED), "error");
    }
  }

  async rate(item, rating) {
    this.chat.closeActions();
    try {
      const rated = await post(`${this.base}/${encodeURIComponent(item.id)}/feedback`, { rating });
      item.rating = rated.rating;
      this.chat.render();
      toast("谢谢反馈", "ok");
    } catch (error) {
      toast(describe(error), "error");
    }
  }

  async remember(item) {
    this.chat.closeActions();
    try {
      await post(`/api/memory/${this.chat.id}/core`, { message_id: await this.idOf(item) });
      toast("TA 记住了这条（可以在「记忆」里查看和修改）", "ok");
    } catch (error) {
      toast(describe(error, REMEMBER_ERRORS), "error");
    }
  }

  // A message sent in this page learns its stored id on demand: the latest page, merged, names it.
  async idOf(item) {
    if (!item.local) return item.id;
    await this.reload();
    if (item.local) throw new Error("not stored yet");
    return item.id;
  }

  openSearch() {
    new Search(this).open();
  }
}

// Search in the history: newest hits first, 更早的结果 goes further back.
class Search {
  constructor(controls) {
    this.controls = controls;
    this.query = "";
    this.cursor = null;
    this.input = h("input", {
      id: "chat-search", type: "search", maxlength: String(limits().search_chars), placeholder: "搜索聊天记录",
      enterkeyhint: "search", "aria-label": "搜索内容",
    });
    this.status = h("p", { class: "muted search-status", role: "status" });
    this.results = h("ol", { class: "search-results" });
    this.more = h("button", { type: "button", class: "btn btn-soft", text: "更早的结果", hidden: true, onclick: () => this.load() });
    this.form = h("form", { class: "dialog-body chat-search" },
      h("h3", { text: "搜索聊天记录" }),
      h("div", { class: "search-row" }, this.input, h("button", { type: "submit", class: "btn btn-primary", text: "搜索" })),
      this.status, this.results, this.more,
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn-soft", text: "关闭", onclick: () => this.dialog.close() })));
    this.dialog = h("dialog", { class: "dialog dialog-search", "aria-label": "搜索聊天记录" }, this.form);
  }

  open() {
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.query = this.input.value.trim();
      this.cursor = null;
      clear(this.results);
      if (this.query) this.load();
    });
    this.dialog.addEventListener("close", () => this.dialog.remove());
    document.body.append(this.dialog);
    this.dialog.showModal();
    this.input.focus();
  }

  async load() {
    const before = this.cursor ? `&before=${encodeURIComponent(this.cursor)}` : "";
    this.status.textContent = "正在搜索…";
    try {
      const body = await get(`${this.controls.base}?q=${encodeURIComponent(this.query)}&limit=${SEARCH_PAGE}${before}`);
      const hits = [...(body.messages || [])].reverse();
      this.results.append(...hits.map((m) => this.hit(m)));
      this.cursor = body.next_cursor;
      this.more.hidden = !this.cursor;
      const count = this.results.children.length;
      this.status.textContent = count ? `找到 ${count} 条${this.cursor ? "，还可以往前找" : ""}` : "没有找到相关的消息";
    } catch (error) {
      this.status.textContent = describe(error, { 422: `搜索内容最多 ${limits().search_chars} 个字。` });
    }
  }

  hit(message) {
    const who = message.role === "user" ? "我" : "TA";
    return h("li", { class: "search-hit" },
      h("small", { class: "muted", text: `${who} · ${chatStamp(message.timestamp)}` }),
      h("p", { text: message.content }));
  }
}

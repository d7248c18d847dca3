// What the console's screens share: a screen's heading, a status filter, a list paged with 加载更多, the
// messages a report or escalation names (each one's author, flagged ones marked), a field with a counter.

import { describe, get } from "../lib/api.js";
import { clear, h, icon } from "../lib/dom.js";
import { fullStamp } from "../lib/time.js";

export const stamp = (ts) => (ts ? fullStamp(ts) : "—");

// A screen's own heading, with a way back: the list it belongs to (a link), or wherever it was opened from (a function).
export function screenHead(title, back = null, ...extra) {
  return h("div", { class: "admin-head" },
    typeof back === "function"
      ? h("button", { type: "button", class: "icon-btn icon-btn-sm", title: "返回", onclick: back }, icon("back", "返回"))
      : back ? h("a", { class: "icon-btn icon-btn-sm", href: back, title: "返回列表" }, icon("back", "返回列表")) : null,
    h("h2", { class: "admin-title", text: title }), ...extra);
}

// One choice of several (待处理 / 已处理 …) as a row of radio buttons; `onPick(value)` when it changes.
export function statusFilter(name, options, current, onPick) {
  return h("div", { class: "segmented admin-filter", role: "radiogroup", "aria-label": "状态" },
    Object.entries(options).map(([value, label]) => {
      const input = h("input", { type: "radio", name, value, id: `${name}-${value}`, checked: value === current });
      input.addEventListener("change", () => input.checked && onPick(value));
      return h("label", { class: "seg-option", for: `${name}-${value}` }, input, h("span", { text: label }));
    }));
}

// A list read a page at a time: `path` without a cursor, `field` the body's list, `row(item)` its element.
export class PagedList {
  constructor(path, field, row, empty) {
    this.path = path;
    this.field = field;
    this.row = row;
    this.emptyText = empty;
    this.cursor = null;
    this.list = h("ul", { class: "admin-list" });
    this.status = h("p", { class: "muted center", text: "加载中…" });
    this.more = h("button", { type: "button", class: "btn btn-soft", hidden: true, text: "加载更多", onclick: () => this.load() });
    this.el = h("div", { class: "admin-paged" }, this.list, this.status, h("div", { class: "center" }, this.more));
  }

  async load() {
    this.more.disabled = true;
    try {
      const separator = this.path.includes("?") ? "&" : "?";
      const cursor = this.cursor ? `${separator}cursor=${encodeURIComponent(this.cursor)}` : "";
      const body = await get(`${this.path}${cursor}`);
      this.list.append(...(body[this.field] || []).map((item) => this.row(item)));
      this.cursor = body.next_cursor || null;
      this.more.hidden = !this.cursor;
      this.status.hidden = this.list.children.length > 0;
      this.status.textContent = this.emptyText;
    } catch (error) {
      this.status.hidden = false;
      this.status.textContent = describe(error);
    } finally {
      this.more.disabled = false;
    }
    return this;
  }
}

const AUTHORS = { user: "用户", assistant: "AI", staff: "工作人员", system: "系统" };

// The messages an operator may read (what a report or an escalation names), oldest first.
export function messageLog(messages, { marked = () => false, markLabel = "" } = {}) {
  if (!messages.length) return h("p", { class: "muted", text: "没有可显示的消息。" });
  return h("ol", { class: "admin-messages", "aria-label": "相关消息" }, messages.map((message) => {
    const isMarked = marked(message);
    return h("li", { class: `admin-message from-${message.role}${isMarked ? " is-marked" : ""}`, dataset: { id: message.id } },
      h("div", { class: "admin-message-meta" },
        h("span", { class: `who who-${message.role}`, text: AUTHORS[message.role] || message.role }),
        h("time", { class: "line-time", text: stamp(message.timestamp) }),
        isMarked ? h("span", { class: "flag flag-warn", text: markLabel }) : null),
      h("div", { class: "admin-message-text", text: message.content }));
  }));
}

// A textarea with its live count against `max`; `value()` is the trimmed text.
export function countedText(id, label, max, placeholder, rows = 3) {
  const input = h("textarea", { id, rows: String(rows), maxlength: String(max), placeholder });
  const counter = h("span", { class: "counter", text: `0 / ${max}` });
  input.addEventListener("input", () => {
    counter.textContent = `${[...input.value].length} / ${max}`;
  });
  const field = h("label", { class: "field", for: id },
    h("span", { class: "field-label-row" }, h("span", { text: label }), counter), input);
  return { field, input, value: () => input.value.trim(), reset: () => { input.value = ""; counter.textContent = `0 / ${max}`; } };
}

// A definition list of facts about a report, an escalation or an account.
export function facts(pairs) {
  return h("dl", { class: "admin-facts" }, pairs.filter(Boolean).flatMap(([term, value]) =>
    [h("dt", { text: term }), h("dd", {}, value ?? "—")]));
}

export function accountLink(accountId, label = null) {
  return accountId ? h("a", { href: `#/accounts/${accountId}`, class: "admin-link", text: label || accountId }) : "—";
}

export function fail(body, error) {
  clear(body, h("p", { class: "form-error center", role: "alert", text: describe(error) }));
}

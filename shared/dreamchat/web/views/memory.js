// The memory of one pair: the context the model would see now, the self-soul and relationship,
// and the four tiers side by side, each memory correctable or deletable in place. What is drawn is built in
// memory_render.js; MemoryView here loads, runs 压缩 / 提炼, and edits a memory where it is shown.

import { ApiError, describe, get, post, put } from "../lib/api.js";
import { config, limits } from "../lib/config.js";
import { avatar, clear, confirmButton, h, icon, toast } from "../lib/dom.js";
import { clockSeconds, dayPrecision, hourPrecision } from "../lib/time.js";
import {
  buildUi, contextCard, currentTopic, detailBody, inputField, numberField, pendingTopics, selectField,
  shortCount, soulCard, textField, tier,
} from "./memory_render.js";

const EMOTION_NAMES = { basic_emotion: "情感", scene: "场景", atmosphere: "氛围" };
const SOURCES = { ai: "TA 记下的", person: "你添加的", relationship: "当前关系" };  // the one current entry; its changes are under 你们的关系
const KEY_POINTS_BOX = 2000;  // the textarea of every key point, one a line (the server bounds each point)

export function renderMemory(main, ctx, id) {
  const view = new MemoryView(ctx, id);
  main.replaceChildren(view.ui.root);
  return view.open();
}

function compressed(result) {
  return result.mid_term.length ? `压缩完成：新增 ${result.mid_term.length} 条中期记忆` : "没有需要压缩的对话";
}

function extracted(result) {
  if (!result.long_term.length && !result.core.length) return "没有需要提炼的中期记忆";
  const core = result.core.length ? `，${result.core.length} 条核心记忆` : "";
  return `提炼完成：${result.long_term.length} 条长期记忆${core}${result.degraded ? "（模型不可用，已离线生成）" : ""}`;
}

class MemoryView {
  constructor(ctx, id) {
    this.id = id;
    this.alive = true;
    this.details = new Map();  // long-term detail documents by file, read once a load
    this.aiUser = ctx.friends()?.find(id) || null;
    this.ui = buildUi(ctx, id, () => this.load());
  }

  // Starts loading; returns what stops it.
  open() {
    const { compress, extract } = this.ui;
    this.showTitle();
    compress.button.addEventListener("click", () => this.run(compress, "compress", compressed));
    extract.button.addEventListener("click", () => this.run(extract, "extract", extracted));
    this.load();
    return () => {
      this.alive = false;
    };
  }

  showTitle() {
    const aiUser = this.aiUser || { name: "TA" };
    clear(this.ui.avatarSlot, avatar(aiUser, "sm"));
    this.ui.title.textContent = `${aiUser.name}的记忆`;
  }

  // 压缩 or 提炼: the button says it is busy until the server answers; `report` words the answer.
  async run(which, step, report) {
    const { button, label, busyLabel } = which;
    button.disabled = true;
    button.lastChild.textContent = busyLabel;
    try {
      const result = await post(`/api/memory/${this.id}/${step}`);
      toast(report(result), "ok");
      await this.load();
    } catch (error) {
      toast(describe(error, { 503: "记忆模型暂时不可用，请稍后再试。" }), "error");
    } finally {
      button.disabled = false;
      button.lastChild.textContent = label;
    }
  }

  async load() {
    const { id, ui } = this;
    try {
      const [context, files, aiUser] = await Promise.all([
        get(`/api/memory/${id}`), get(`/api/memory/${id}/files`), get(`/api/ai-users/${id}`),
      ]);
      if (!this.alive) return;
      this.aiUser = aiUser;
      ui.status.hidden = true;
      this.showTitle();
      clear(ui.top, contextCard(context), soulCard(aiUser, files));
      clear(ui.tiers, ...this.tierColumns(files));
    } catch (error) {
      if (!(error instanceof ApiError)) console.error("memory view", error);  // a bug here, not a failed request
      if (!this.alive) return;
      ui.status.hidden = false;
      ui.status.textContent = describe(error, { 404: "找不到这份记忆：你们可能已经不是好友了。" });
    }
  }

  // ---- the four tiers ----

  tierColumns(files) {
    const shortTopics = [
      ...pendingTopics(files).map((t) => this.shortTopic(t, true)), ...currentTopic(files).map((t) => this.shortTopic(t, false)),
    ];
    return [
      tier("short", "短期记忆", "当前话题 · 秒级时间", shortCount(files), shortTopics, "现在没有进行中的话题。"),
      tier("mid", "中期记忆", "话题摘要 · 小时级", files.mid_term.length,
        [...files.mid_term].reverse().map((mid) => this.midCard(mid)), "还没有中期记忆。话题结束后，会压缩成一条摘要放在这里。"),
      tier("long", "长期记忆", "标题与要点 · 天级", files.long_term.length,
        [...files.long_term].reverse().map((entry) => this.longCard(entry)), "还没有长期记忆。中期记忆会定期提炼到这里。"),
      tier("core", "核心记忆", "潜意识 · 每月最多 1-2 条", files.core.length,
        [...files.core].sort((a, b) => b.importance - a.importance).map((core) => this.coreCard(core)),
        "还没有核心记忆。只有极其重要的事才会成为核心记忆。", this.addCoreButton()),
    ];
  }

  shortTopic(topic, ended) {
    return h("article", { class: "mem-card topic", dataset: { topic: topic.topic_id } },
      h("div", { class: "mem-meta" }, h("span", { text: `话题开始于 ${clockSeconds(topic.created_at)}` }),
        ended ? h("span", { class: "flag", title: "这个话题已经结束，压缩后会变成一条中期记忆", text: "已结束 · 等待压缩" })
          : h("span", { class: "flag flag-live", text: "进行中" })),
      topic.conversations.map((line, i) => this.shortLine(line, topic.message_ids?.[i])));
  }

  shortLine(line, messageId) {
    const el = h("div", { class: "line", dataset: { id: messageId || "" } });
    el.view = () => [
      h("span", { class: `who who-${line.role}`, text: line.role === "user" ? "你" : "TA" }),
      h("span", { class: "line-text", text: line.content }),
      h("span", { class: "line-time", text: clockSeconds(line.timestamp) }),
      messageId ? this.tools(el, "short_term", messageId, () => [
        textField("content", "内容", line.content, limits().message_chars, 3),
      ]) : null,
    ];
    clear(el, el.view());
    return el;
  }

  midCard(mid) {
    const el = h("article", { class: "mem-card", dataset: { id: mid.id } });
    const kinds = Object.keys(config().emotions);
    el.view = () => [
      h("p", { class: "mem-text", text: mid.summary }),
      h("div", { class: "chips" }, kinds.map((kind) => h("span", { class: `chip chip-${kind}`, text: mid.emotion_tags?.[kind] || "" }))),
      h("div", { class: "mem-meta" },
        h("span", { text: hourPrecision(mid.created_at) }),
        h("span", { text: `${mid.message_count} 条消息` }),
        h("span", { class: `flag ${mid.extracted_to_long ? "flag-done" : ""}`, text: mid.extracted_to_long ? "已提炼" : "待提炼" }),
        mid.degraded ? h("span", { class: "flag flag-warn", text: "离线生成" }) : null,
        mid.summary_cut ? h("span", { class: "flag flag-warn", title: "模型的摘要超过了话题的 30%，已截短", text: "已截短" }) : null),
      this.tools(el, "mid_term", mid.id, () => midFields(mid), (values) => ({
        summary: values.summary,
        emotion_tags: Object.fromEntries(kinds.map((kind) => [kind, values[kind]])),
      })),
    ];
    clear(el, el.view());
    return el;
  }

  longCard(entry) {
    const el = h("article", { class: "mem-card long", dataset: { id: entry.id } });
    const detail = h("div", { class: "detail", hidden: true });
    const open = h("button", { type: "button", class: "link-btn", "aria-expanded": "false", text: "查看详情" });
    open.addEventListener("click", () => this.toggleDetail(entry, detail, open));
    el.view = () => [
      h("h4", { class: "mem-title", text: entry.title }),
      h("ul", { class: "points" }, entry.key_points.map((point) => h("li", { text: point }))),
      h("div", { class: "mem-meta" },
        h("span", { text: dayPrecision(entry.created_at, entry.time_precision) }),
        entry.degraded ? h("span", { class: "flag flag-warn", text: "离线生成" }) : null),
      open, detail,
      this.tools(el, "long_term", entry.id, async () => longFields(entry, await this.loadDetail(entry)), (values) => ({
        title: values.title,
        key_points: values.key_points.split("\n").map((p) => p.trim()).filter(Boolean),
        detail_content: values.detail_content,
      })),
    ];
    clear(el, el.view());
    return el;
  }

  async loadDetail(entry) {
    if (!this.details.has(entry.detail_file)) {
      const file = encodeURIComponent(entry.detail_file);
      this.details.set(entry.detail_file, await get(`/api/memory/${this.id}/files/long_term_details/${file}`));
    }
    return this.details.get(entry.detail_file);
  }

  async toggleDetail(entry, detail, open) {
    if (!detail.hidden) {
      detail.hidden = true;
      open.textContent = "查看详情";
      open.setAttribute("aria-expanded", "false");
      return;
    }
    open.textContent = "读取中…";
    try {
      detailBody(detail, await this.loadDetail(entry));
      detail.hidden = false;
      open.textContent = "收起详情";
      open.setAttribute("aria-expanded", "true");
    } catch (error) {
      open.textContent = "查看详情";
      toast(describe(error), "error");
    }
  }

  coreCard(core) {
    const el = h("article", { class: "mem-card core", dataset: { id: core.id } });
    el.view = () => [
      h("p", { class: "mem-text", text: core.content }),
      h("div", { class: "mem-meta" },
        h("span", { class: "importance", title: "重要性" }, `重要性 ${core.importance}`),
        h("span", { class: "chip", text: core.category }),
        h("span", { text: SOURCES[core.source] || "" }),
        h("span", { text: dayPrecision(core.created_at) })),
      this.tools(el, "core", core.id, () => coreFields(core), coreValues),
    ];
    clear(el, el.view());
    return el;
  }

  addCoreButton() {
    const button = h("button", { type: "button", class: "icon-btn icon-btn-sm", title: "添加一条核心记忆" }, icon("plus", "添加核心记忆"));
    button.addEventListener("click", () => {
      const list = button.closest(".tier").querySelector(".tier-list");
      if (list.querySelector(".mem-card.adding")) return;
      const card = h("article", { class: "mem-card core adding" });
      card.view = () => [];
      list.querySelector(".tier-empty")?.remove();
      list.prepend(card);
      this.openEditor(card, "core", null,
        () => coreFields({ content: "", importance: 8, category: "偏好" }), coreValues);
    });
    return button;
  }

  // ---- inline editing ----

  tools(card, type, memoryId, fields, toBody = (values) => values) {
    return h("div", { class: "mem-tools" },
      h("button", {
        type: "button", class: "link-btn", onclick: () => this.openEditor(card, type, memoryId, fields, toBody),
      }, icon("edit"), "修改"),
      // a short-term line is the chat message itself: deleting it removes it from the chat history too
      confirmButton("删除", type === "short_term" ? "聊天记录里的这条消息也会删除，确认？" : "确认删除？",
        () => this.save(type, { id: memoryId, delete: true }, "已删除"), "link-btn danger"));
  }

  async openEditor(card, type, memoryId, fields, toBody) {
    let content;
    try {
      content = await fields();
    } catch (error) {
      toast(describe(error), "error");
      return;
    }
    const error = h("p", { class: "form-error", role: "alert" });
    const form = h("form", { class: "mem-edit", novalidate: true }, content, error,
      h("div", { class: "form-actions" },
        h("button", { type: "button", class: "btn btn-ghost btn-sm", text: "取消", onclick: () => cancel() }),
        h("button", { type: "submit", class: "btn btn-primary btn-sm", text: "保存" })));
    const cancel = () => (memoryId ? clear(card, card.view()) : card.remove());
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const values = Object.fromEntries(new FormData(form).entries());
      const body = { ...(memoryId ? { id: memoryId } : {}), ...toBody(values) };
      const message = await this.save(type, body, memoryId ? "已更正" : "已添加");
      if (message) error.textContent = message;
    });
    card.classList.add("editing");
    clear(card, form);
    form.querySelector("textarea, input")?.focus();
  }

  // Returns an error text for the form, or null once saved and reloaded.
  async save(type, body, done) {
    try {
      await put(`/api/memory/${this.id}/${type}`, body);
      toast(done, "ok");
      this.details.clear();
      await this.load();
      return null;
    } catch (error) {
      const text = describe(error, { 422: "内容不符合要求，请检查长度和取值。", 404: "这条记忆已经不在了，可能刚被整理过。" });
      toast(text, "error");
      return text;
    }
  }
}

function midFields(mid) {
  return [
    textField("summary", "摘要", mid.summary, limits().summary_chars, 4),
    h("div", { class: "field-grid three" }, Object.entries(config().emotions).map(([kind, options]) =>
      selectField(kind, EMOTION_NAMES[kind] || kind, options, mid.emotion_tags?.[kind]))),
  ];
}

function longFields(entry, full) {
  const max = limits();
  return [
    inputField("title", "标题", entry.title, max.title_chars),
    textField("key_points", "关键要点（每行一条）", entry.key_points.join("\n"), KEY_POINTS_BOX, 3),
    textField("detail_content", "详细内容", full?.detail_content || "", max.detail_chars, 5),
  ];
}

function coreFields(core) {
  const max = limits();
  const importance = max.importance;
  return [
    textField("content", "内容", core.content, max.core_chars, 3, core.id ? "" : "写下关于你的事，比如「我对芒果过敏」，AI 会记住"),
    h("div", { class: "field-grid" },
      numberField("importance", `重要性（${importance.min}-${importance.max}）`, String(core.importance), importance),
      inputField("category", "类别", core.category, max.category_chars)),
  ];
}

function coreValues(values) {
  return { content: values.content, importance: Number(values.importance), category: values.category };
}

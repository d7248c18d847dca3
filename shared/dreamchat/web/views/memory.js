// The memory of one pair: the context the model would see now, the self-soul and relationship,
// and the four tiers side by side, each memory correctable or deletable in place.

import { ApiError, describe, get, post, put } from "../lib/api.js";
import { avatar, clear, confirmButton, h, icon, toast } from "../lib/dom.js";
import { clockSeconds, dayPrecision, hourPrecision, hoursLabel } from "../lib/time.js";
import { memoryExportButton, memoryImportButton } from "./data_copy.js";
import { levelBadge } from "./friends.js";

export const SECTIONS = {
  system: "系统提示词",
  core: "核心记忆",
  mid_term: "中期记忆",
  long_term: "长期记忆索引",
  long_term_details: "长期记忆详情",
  short_term: "短期记忆",
  turn: "这一轮的提示",
  turn_memory: "这条消息想起的",
  current_message: "当前消息",
};

const EMOTIONS = {
  basic_emotion: ["开心", "愉悦", "失落", "严肃", "关心", "好奇"],
  scene: ["闲聊", "讨论", "求助"],
  atmosphere: ["轻松", "平和", "热烈"],
};

const SOURCES = { ai: "TA 记下的", person: "你添加的", relationship: "当前关系" };  // the one current entry; its changes are under 你们的关系

export function renderMemory(main, ctx, id) {
  const state = { alive: true, details: new Map(), aiUser: ctx.friends()?.find(id) || null };
  const compress = action("compress", "压缩", "压缩中…", "把当前话题压缩成中期记忆");
  const extract = action("sparkle", "提炼", "提炼中…", "把中期记忆提炼成长期记忆和核心记忆");
  const refresh = h("button", { type: "button", class: "icon-btn", title: "刷新", onclick: () => load() }, icon("refresh", "刷新"));
  const avatarSlot = h("span", { class: "bar-avatar" });
  const title = h("b", {});
  const top = h("div", { class: "memory-top" });
  const tiers = h("div", { class: "tiers" });
  const status = h("p", { class: "muted center", text: "正在读取记忆…" });
  const copy = memoryImportButton(id, () => load());

  main.replaceChildren(
    h("section", { class: "memory" },
      h("header", { class: "bar" },
        h("button", { type: "button", class: "icon-btn", title: "回到聊天", onclick: () => ctx.go(`/chat/${id}`) },
          icon("back", "回到聊天")),
        avatarSlot,
        h("div", { class: "bar-title" }, title, h("small", { text: "四级记忆 · 只属于你们俩" })),
        h("div", { class: "bar-actions" }, compress.button, extract.button, refresh)),
      h("div", { class: "memory-body" },
        h("div", { class: "memory-copy", "aria-label": "备份与恢复" }, memoryExportButton(id), ...copy.controls),
        copy.panel, status, top, tiers)),
  );
  showTitle();

  function showTitle() {
    const aiUser = state.aiUser || { name: "TA" };
    clear(avatarSlot, avatar(aiUser, "sm"));
    title.textContent = `${aiUser.name}的记忆`;
  }

  function action(iconName, label, busyLabel, hint) {
    const button = h("button", { type: "button", class: "btn btn-soft btn-sm", title: hint }, icon(iconName), h("span", { text: label }));
    return { button, label, busyLabel };
  }

  async function run(which, path, report) {
    const { button, label, busyLabel } = which;
    button.disabled = true;
    button.lastChild.textContent = busyLabel;
    try {
      const result = await post(path);
      toast(report(result), "ok");
      await load();
    } catch (error) {
      toast(describe(error, { 503: "记忆模型暂时不可用，请稍后再试。" }), "error");
    } finally {
      button.disabled = false;
      button.lastChild.textContent = label;
    }
  }

  compress.button.addEventListener("click", () => run(compress, `/api/memory/${id}/compress`, (r) =>
    r.mid_term.length ? `压缩完成：新增 ${r.mid_term.length} 条中期记忆` : "没有需要压缩的对话"));
  extract.button.addEventListener("click", () => run(extract, `/api/memory/${id}/extract`, (r) => {
    if (!r.long_term.length && !r.core.length) return "没有需要提炼的中期记忆";
    const core = r.core.length ? `，${r.core.length} 条核心记忆` : "";
    return `提炼完成：${r.long_term.length} 条长期记忆${core}${r.degraded ? "（模型不可用，已离线生成）" : ""}`;
  }));

  async function load() {
    try {
      const [context, files, aiUser] = await Promise.all([
        get(`/api/memory/${id}`), get(`/api/memory/${id}/files`), get(`/api/ai-users/${id}`),
      ]);
      if (!state.alive) return;
      state.aiUser = aiUser;
      status.hidden = true;
      showTitle();
      clear(top, contextCard(context), soulCard(aiUser, files));
      clear(tiers, ...tierColumns(files));
    } catch (error) {
      if (!(error instanceof ApiError)) console.error("memory view", error);  // a bug here, not a failed request
      if (!state.alive) return;
      status.hidden = false;
      status.textContent = describe(error, { 404: "找不到这份记忆：你们可能已经不是好友了。" });
    }
  }

  // ---- the four tiers ----

  function tierColumns(files) {
    return [
      tier("short", "短期记忆", "当前话题 · 秒级时间", shortCount(files),
        [...pendingTopics(files).map((t) => shortTopic(t, true)), ...currentTopic(files).map((t) => shortTopic(t, false))],
        "现在没有进行中的话题。"),
      tier("mid", "中期记忆", "话题摘要 · 小时级", files.mid_term.length,
        [...files.mid_term].reverse().map(midCard), "还没有中期记忆。话题结束后，会压缩成一条摘要放在这里。"),
      tier("long", "长期记忆", "标题与要点 · 天级", files.long_term.length,
        [...files.long_term].reverse().map(longCard), "还没有长期记忆。中期记忆会定期提炼到这里。"),
      tier("core", "核心记忆", "潜意识 · 每月最多 1-2 条", files.core.length,
        [...files.core].sort((a, b) => b.importance - a.importance).map(coreCard),
        "还没有核心记忆。只有极其重要的事才会成为核心记忆。", addCoreButton()),
    ];
  }

  function tier(kind, name, hint, count, cards, emptyText, extra = null) {
    const list = h("div", { class: "tier-list" }, cards.length ? cards : h("p", { class: "tier-empty", text: emptyText }));
    return h("section", { class: `tier tier-${kind}`, dataset: { tier: kind } },
      h("header", { class: "tier-head" },
        h("span", { class: "tier-dot" }),
        h("div", {}, h("h3", {}, name, h("span", { class: "tier-count", text: count })), h("small", { text: hint })),
        extra),
      list);
  }

  function shortTopic(topic, ended) {
    return h("article", { class: "mem-card topic", dataset: { topic: topic.topic_id } },
      h("div", { class: "mem-meta" }, h("span", { text: `话题开始于 ${clockSeconds(topic.created_at)}` }),
        ended ? h("span", { class: "flag", title: "这个话题已经结束，压缩后会变成一条中期记忆", text: "已结束 · 等待压缩" })
          : h("span", { class: "flag flag-live", text: "进行中" })),
      topic.conversations.map((line, i) => shortLine(line, topic.message_ids?.[i])));
  }

  function shortLine(line, messageId) {
    const view = () => [
      h("span", { class: `who who-${line.role}`, text: line.role === "user" ? "你" : "TA" }),
      h("span", { class: "line-text", text: line.content }),
      h("span", { class: "line-time", text: clockSeconds(line.timestamp) }),
      messageId ? tools(el, "short_term", messageId, () => [
        textField("content", "内容", line.content, 2000, 3),
      ]) : null,
    ];
    const el = h("div", { class: "line", dataset: { id: messageId || "" } });
    el.view = view;
    clear(el, view());
    return el;
  }

  function midCard(mid) {
    const el = h("article", { class: "mem-card", dataset: { id: mid.id } });
    el.view = () => [
      h("p", { class: "mem-text", text: mid.summary }),
      h("div", { class: "chips" }, Object.keys(EMOTIONS).map((kind) =>
        h("span", { class: `chip chip-${kind}`, text: mid.emotion_tags?.[kind] || "" }))),
      h("div", { class: "mem-meta" },
        h("span", { text: hourPrecision(mid.created_at) }),
        h("span", { text: `${mid.message_count} 条消息` }),
        h("span", { text: ratioText(mid.compression_ratio) }),
        h("span", { class: `flag ${mid.extracted_to_long ? "flag-done" : ""}`, text: mid.extracted_to_long ? "已提炼" : "待提炼" }),
        mid.degraded ? h("span", { class: "flag flag-warn", text: "离线生成" }) : null,
        mid.summary_cut ? h("span", { class: "flag flag-warn", title: "模型的摘要超过了话题的 30%，已截短", text: "已截短" }) : null),
      tools(el, "mid_term", mid.id, () => [
        textField("summary", "摘要", mid.summary, 2000, 4),
        h("div", { class: "field-grid three" }, Object.entries(EMOTIONS).map(([kind, options]) =>
          selectField(kind, { basic_emotion: "情感", scene: "场景", atmosphere: "氛围" }[kind], options, mid.emotion_tags?.[kind]))),
      ], (values) => ({
        summary: values.summary,
        emotion_tags: { basic_emotion: values.basic_emotion, scene: values.scene, atmosphere: values.atmosphere },
      })),
    ];
    clear(el, el.view());
    return el;
  }

  function longCard(entry) {
    const el = h("article", { class: "mem-card long", dataset: { id: entry.id } });
    const detail = h("div", { class: "detail", hidden: true });
    const open = h("button", { type: "button", class: "link-btn", "aria-expanded": "false", text: "查看详情" });
    open.addEventListener("click", () => toggleDetail(entry, detail, open));
    el.view = () => [
      h("h4", { class: "mem-title", text: entry.title }),
      h("ul", { class: "points" }, entry.key_points.map((point) => h("li", { text: point }))),
      h("div", { class: "mem-meta" },
        h("span", { text: dayPrecision(entry.created_at, entry.time_precision) }),
        entry.degraded ? h("span", { class: "flag flag-warn", text: "离线生成" }) : null),
      open, detail,
      tools(el, "long_term", entry.id, async () => {
        const full = await loadDetail(entry);
        return [
          inputField("title", "标题", entry.title, 60),
          textField("key_points", "关键要点（每行一条）", entry.key_points.join("\n"), 2000, 3),
          textField("detail_content", "详细内容", full?.detail_content || "", 8000, 5),
        ];
      }, (values) => ({
        title: values.title,
        key_points: values.key_points.split("\n").map((p) => p.trim()).filter(Boolean),
        detail_content: values.detail_content,
      })),
    ];
    clear(el, el.view());
    return el;
  }

  async function loadDetail(entry) {
    if (!state.details.has(entry.detail_file)) {
      const file = encodeURIComponent(entry.detail_file);
      state.details.set(entry.detail_file, await get(`/api/memory/${id}/files/long_term_details/${file}`));
    }
    return state.details.get(entry.detail_file);
  }

  async function toggleDetail(entry, detail, open) {
    if (!detail.hidden) {
      detail.hidden = true;
      open.textContent = "查看详情";
      open.setAttribute("aria-expanded", "false");
      return;
    }
    open.textContent = "读取中…";
    try {
      const doc = await loadDetail(entry);
      const tags = doc.emotion_tags ? Object.values(doc.emotion_tags).filter(Boolean) : [];
      clear(detail,
        h("p", { class: "detail-text", text: doc.detail_content }),
        tags.length ? h("div", { class: "chips" }, tags.map((tag) => h("span", { class: "chip", text: tag }))) : null,
        h("div", { class: "mem-meta" }, `来自 ${doc.source_mid_ids.length} 条中期记忆 · ${entry.detail_file}`));
      detail.hidden = false;
      open.textContent = "收起详情";
      open.setAttribute("aria-expanded", "true");
    } catch (error) {
      open.textContent = "查看详情";
      toast(describe(error), "error");
    }
  }

  function coreCard(core) {
    const el = h("article", { class: "mem-card core", dataset: { id: core.id } });
    el.view = () => [
      h("p", { class: "mem-text", text: core.content }),
      h("div", { class: "mem-meta" },
        h("span", { class: "importance", title: "重要性" }, `重要性 ${core.importance}`),
        h("span", { class: "chip", text: core.category }),
        h("span", { text: SOURCES[core.source] || "" }),
        h("span", { text: dayPrecision(core.created_at) })),
      tools(el, "core", core.id, () => coreFields(core), coreValues),
    ];
    clear(el, el.view());
    return el;
  }

  function coreFields(core) {
    return [
      textField("content", "内容", core.content, 500, 3, core.id ? "" : "写下关于你的事，比如「我对芒果过敏」，AI 会记住"),
      h("div", { class: "field-grid" },
        inputField("importance", "重要性（1-10）", String(core.importance), 2, "number"),
        inputField("category", "类别", core.category, 40)),
    ];
  }

  function coreValues(values) {
    return { content: values.content, importance: Number(values.importance), category: values.category };
  }

  function addCoreButton() {
    const button = h("button", { type: "button", class: "icon-btn icon-btn-sm", title: "添加一条核心记忆" }, icon("plus", "添加核心记忆"));
    button.addEventListener("click", () => {
      const list = button.closest(".tier").querySelector(".tier-list");
      if (list.querySelector(".mem-card.adding")) return;
      const card = h("article", { class: "mem-card core adding" });
      card.view = () => [];
      list.querySelector(".tier-empty")?.remove();
      list.prepend(card);
      openEditor(card, "core", null,
        () => coreFields({ content: "", importance: 8, category: "偏好" }), coreValues);
    });
    return button;
  }

  // ---- inline editing ----

  function tools(card, type, memoryId, fields, toBody = (values) => values) {
    return h("div", { class: "mem-tools" },
      h("button", {
        type: "button", class: "link-btn", onclick: () => openEditor(card, type, memoryId, fields, toBody),
      }, icon("edit"), "修改"),
      // a short-term line is the chat message itself: deleting it removes it from the chat history too
      confirmButton("删除", type === "short_term" ? "聊天记录里的这条消息也会删除，确认？" : "确认删除？",
        () => save(type, { id: memoryId, delete: true }, "已删除"), "link-btn danger"));
  }

  async function openEditor(card, type, memoryId, fields, toBody) {
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
        h("button", { type: "button", class: "btn btn-soft btn-sm", text: "取消", onclick: () => cancel() }),
        h("button", { type: "submit", class: "btn btn-primary btn-sm", text: "保存" })));
    const cancel = () => (memoryId ? clear(card, card.view()) : card.remove());
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const values = Object.fromEntries(new FormData(form).entries());
      const body = { ...(memoryId ? { id: memoryId } : {}), ...toBody(values) };
      const message = await save(type, body, memoryId ? "已更正" : "已添加");
      if (message) error.textContent = message;
    });
    card.classList.add("editing");
    clear(card, form);
    form.querySelector("textarea, input")?.focus();
  }

  // Returns an error text for the form, or null once saved and reloaded.
  async function save(type, body, done) {
    try {
      await put(`/api/memory/${id}/${type}`, body);
      toast(done, "ok");
      state.details.clear();
      await load();
      return null;
    } catch (error) {
      const text = describe(error, { 422: "内容不符合要求，请检查长度和取值。", 404: "这条记忆已经不在了，可能刚被整理过。" });
      toast(text, "error");
      return text;
    }
  }

  load();
  return () => {
    state.alive = false;
  };
}

// `short_term` is the current topic (the spec's shape); ended topics not yet compressed come apart.
// An array (the first version of the API) is read as a list of topics.
function currentTopic(files) {
  const topic = files.short_term;
  if (Array.isArray(topic)) return topic;
  return topic && topic.topic_id && topic.conversations?.length ? [topic] : [];
}

function pendingTopics(files) {
  return files.short_term_pending || [];
}

function shortCount(files) {
  return [...pendingTopics(files), ...currentTopic(files)].reduce((sum, t) => sum + t.conversations.length, 0);
}

function ratioText(ratio) {
  // a very short topic can have a summary longer than itself
  return ratio > 0 ? `压缩率 ${Math.round(ratio * 100)}%` : "摘要比原文长";
}

function inputField(name, label, value, max, type = "text") {
  const attrs = type === "number" ? { min: "1", max: "10", step: "1" } : { maxlength: String(max) };
  return h("label", { class: "field" }, h("span", { text: label }), h("input", { name, type, value, required: true, ...attrs }));
}

function textField(name, label, value, max, rows, placeholder = "") {
  return h("label", { class: "field" }, h("span", { text: label }),
    h("textarea", { name, rows: String(rows), maxlength: String(max), value, placeholder }));
}

function selectField(name, label, options, current) {
  return h("label", { class: "field" }, h("span", { text: label }),
    h("select", { name }, options.map((option) => h("option", { value: option, text: option, selected: option === current }))));
}

// ---- context and soul ----

function contextCard(context) {
  const sections = context.sections || [];
  const max = Math.max(1, ...sections.map((s) => s.tokens));
  const total = context.total_tokens || sections.reduce((sum, s) => sum + s.tokens, 0) || 1;
  const stack = h("div", { class: "ctx-stack", role: "img", "aria-label": "各部分 token 占比" },
    sections.filter((s) => s.tokens > 0).map((s) => {
      const seg = h("span", { class: `seg sec-${s.name}`, title: `${SECTIONS[s.name] || s.name}：${s.tokens} tokens` });
      seg.style.flexGrow = String(s.tokens);
      return seg;
    }));
  const rowsList = h("ul", { class: "ctx-rows" }, sections.map((s) => {
    const text = h("pre", { class: "ctx-text", hidden: true, text: s.text || "（空）" });
    const bar = h("span", { class: `ctx-bar sec-${s.name}` });
    bar.style.width = `${Math.max(s.tokens ? 2 : 0, (s.tokens / max) * 100)}%`;
    const button = h("button", {
      type: "button", class: "ctx-row", "aria-expanded": "false", dataset: { section: s.name },
      onclick: () => {
        text.hidden = !text.hidden;
        button.setAttribute("aria-expanded", String(!text.hidden));
      },
    },
    h("span", { class: "ctx-name" }, h("span", { class: `swatch sec-${s.name}` }), SECTIONS[s.name] || s.name),
    h("span", { class: "ctx-track" }, bar),
    h("span", { class: "ctx-tokens", text: s.tokens }));
    return h("li", {}, button, text);
  }));
  const inContext = (context.long_term_in_context || []).length;
  return h("section", { class: "card ctx-card" },
    h("div", { class: "card-head" },
      h("h3", { text: "此刻的上下文" }),
      h("small", { text: "TA 现在回复你时会读到的内容" })),
    h("div", { class: "ctx-total" }, h("b", { class: "ctx-total-num", text: total.toLocaleString("zh-CN") }), " tokens",
      inContext ? h("span", { class: "muted", text: ` · ${inContext} 条长期记忆索引在内` }) : null),
    stack, rowsList,
    h("p", { class: "field-hint", text: "点一行可以看到这一部分的原文。" }));
}

function soulCard(aiUser, files) {
  const soul = files.self_soul || {};
  const rel = files.relationship || {};
  return h("section", { class: "card soul-card" },
    h("div", { class: "card-head" }, h("h3", { text: "双灵魂" }), h("small", { text: "先天设定 + 后天养成" })),
    h("div", { class: "soul-block" },
      h("h4", { text: "先天灵魂 base_soul" }),
      h("p", { class: `soul-text${aiUser.base_soul ? "" : " muted"}`, text: aiUser.base_soul || "（没有写人设）" })),
    h("div", { class: "soul-block" },
      h("h4", { text: "自我认知 self_soul" }),
      h("p", { class: `soul-text${soul.self_soul ? "" : " muted"}`, text: soul.self_soul || "TA 还没有形成对自己的新认识。聊得多了，TA 会反思并更新这里。" }),
      soul.updated_at ? h("small", { class: "muted", text: `更新于 ${dayPrecision(soul.updated_at)}` }) : null),
    h("div", { class: "soul-block rel" },
      h("h4", { text: "你们的关系" }),
      h("div", { class: "rel-line" }, levelBadge(rel.level || "一般"),
        rel.heartbeat_hours ? h("span", { class: "muted" }, icon("heart"), ` 约每 ${hoursLabel(rel.heartbeat_hours)}主动找你`) : null),
      rel.reason ? h("p", { class: "muted", text: rel.reason }) : null,
      relationshipHistory(files.relationship_history || [])));
}

// Every change of level, newest first: kept apart from core memory, never in the context.
function relationshipHistory(changes) {
  if (!changes.length) return null;
  return h("details", { class: "rel-history" },
    h("summary", { text: `关系变化 ${changes.length} 次` }),
    h("ul", {}, ...[...changes].reverse().map((c) =>
      h("li", {}, h("span", { class: "muted", text: `${dayPrecision(c.created_at)} ` }), c.content))));
}

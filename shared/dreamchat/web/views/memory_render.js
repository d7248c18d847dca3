// What the memory view draws, built from what the server sent: the page's frame, a tier column, the context and
// soul cards, the form fields of an edit. MemoryView (memory.js) loads, edits and ties them together.

import { clear, h, icon } from "../lib/dom.js";
import { dayPrecision, hoursLabel } from "../lib/time.js";
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

// The header's two actions: its button, and the label it shows while the server works.
function action(iconName, label, busyLabel, hint) {
  const button = h("button", { type: "button", class: "btn btn-soft btn-sm", title: hint }, icon(iconName), h("span", { text: label }));
  return { button, label, busyLabel };
}

// The page's frame; `reload` is called by 刷新 and after an import.
export function buildUi(ctx, id, reload) {
  const ui = {
    compress: action("compress", "压缩", "压缩中…", "把当前话题压缩成中期记忆"),
    extract: action("sparkle", "提炼", "提炼中…", "把中期记忆提炼成长期记忆和核心记忆"),
    avatarSlot: h("span", { class: "bar-avatar" }),
    title: h("b", {}),
    top: h("div", { class: "memory-top" }),
    tiers: h("div", { class: "tiers" }),
    status: h("p", { class: "muted center", text: "正在读取记忆…" }),
  };
  const refresh = h("button", { type: "button", class: "icon-btn", title: "刷新", onclick: () => reload() }, icon("refresh", "刷新"));
  const copy = memoryImportButton(id, () => reload());
  ui.root = h("section", { class: "memory" },
    h("header", { class: "bar" },
      h("button", { type: "button", class: "icon-btn", title: "回到聊天", onclick: () => ctx.go(`/chat/${id}`) },
        icon("back", "回到聊天")),
      ui.avatarSlot,
      h("div", { class: "bar-title" }, ui.title, h("small", { text: "四级记忆 · 只属于你们俩" })),
      h("div", { class: "bar-actions" }, ui.compress.button, ui.extract.button, refresh)),
    h("div", { class: "memory-body" },
      h("div", { class: "memory-copy", "aria-label": "备份与恢复" }, memoryExportButton(id), ...copy.controls),
      copy.panel, ui.status, ui.top, ui.tiers));
  return ui;
}

export function tier(kind, name, hint, count, cards, emptyText, extra = null) {
  const list = h("div", { class: "tier-list" }, cards.length ? cards : h("p", { class: "tier-empty", text: emptyText }));
  return h("section", { class: `tier tier-${kind}`, dataset: { tier: kind } },
    h("header", { class: "tier-head" },
      h("span", { class: "tier-dot" }),
      h("div", {}, h("h3", {}, name, h("span", { class: "tier-count", text: count })), h("small", { text: hint })),
      extra),
    list);
}

// `short_term` is the current topic (the spec's shape); ended topics not yet compressed come apart.
// An array (the first version of the API) is read as a list of topics.
export function currentTopic(files) {
  const topic = files.short_term;
  if (Array.isArray(topic)) return topic;
  return topic && topic.topic_id && topic.conversations?.length ? [topic] : [];
}

export function pendingTopics(files) {
  return files.short_term_pending || [];
}

export function shortCount(files) {
  return [...pendingTopics(files), ...currentTopic(files)].reduce((sum, t) => sum + t.conversations.length, 0);
}

// ---- the fields of an edit ----

export function inputField(name, label, value, max) {
  return h("label", { class: "field" }, h("span", { text: label }),
    h("input", { name, type: "text", value, required: true, maxlength: String(max) }));
}

export function numberField(name, label, value, range) {
  return h("label", { class: "field" }, h("span", { text: label }),
    h("input", { name, type: "number", value, required: true, min: String(range.min), max: String(range.max), step: "1" }));
}

export function textField(name, label, value, max, rows, placeholder = "") {
  return h("label", { class: "field" }, h("span", { text: label }),
    h("textarea", { name, rows: String(rows), maxlength: String(max), value, placeholder }));
}

export function selectField(name, label, options, current) {
  return h("label", { class: "field" }, h("span", { text: label }),
    h("select", { name }, options.map((option) => h("option", { value: option, text: option, selected: option === current }))));
}

// ---- context and soul ----

export function contextCard(context) {
  const sections = context.sections || [];
  const total = context.total_tokens || sections.reduce((sum, s) => sum + s.tokens, 0) || 1;
  const stack = h("div", { class: "ctx-stack", role: "img", "aria-label": "各部分 token 占比" },
    sections.filter((s) => s.tokens > 0).map((s) => {
      const seg = h("span", { class: `seg sec-${s.name}`, title: `${SECTIONS[s.name] || s.name}：${s.tokens} tokens` });
      seg.style.flexGrow = String(s.tokens);
      return seg;
    }));
  const inContext = (context.long_term_in_context || []).length;
  // developer words (tokens) only in 高级, closed until opened (issue 40)
  return h("section", { class: "card ctx-card" },
    h("details", { class: "advanced" },
      h("summary", { class: "card-head" },
        h("h3", { text: "高级：此刻的上下文" }),
        h("small", { text: "TA 现在回复你时会读到的内容" })),
      h("div", { class: "ctx-total" }, h("b", { class: "ctx-total-num", text: total.toLocaleString("zh-CN") }), " tokens",
        inContext ? h("span", { class: "muted", text: ` · ${inContext} 条长期记忆索引在内` }) : null),
      stack, contextRows(sections),
      h("p", { class: "field-hint", text: "点一行可以看到这一部分的原文。" })));
}

// One row a section, its bar scaled to the largest; a tap shows the section's text.
function contextRows(sections) {
  const max = Math.max(1, ...sections.map((s) => s.tokens));
  return h("ul", { class: "ctx-rows" }, sections.map((s) => {
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
}

export function soulCard(aiUser, files) {
  const soul = files.self_soul || {};
  const rel = files.relationship || {};
  return h("section", { class: "card soul-card" },
    h("div", { class: "card-head" }, h("h3", { text: "双灵魂" }), h("small", { text: "先天设定 + 后天养成" })),
    h("div", { class: "soul-block" },
      h("h4", { text: "先天灵魂" }),
      h("p", { class: `soul-text${aiUser.base_soul ? "" : " muted"}`, text: aiUser.base_soul || "（没有写人设）" })),
    h("div", { class: "soul-block" },
      h("h4", { text: "自我认知" }),
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

// A long-term entry's detail document, shown under its card.
export function detailBody(detail, doc) {
  const tags = doc.emotion_tags ? Object.values(doc.emotion_tags).filter(Boolean) : [];
  clear(detail,
    h("p", { class: "detail-text", text: doc.detail_content }),
    tags.length ? h("div", { class: "chips" }, tags.map((tag) => h("span", { class: "chip", text: tag }))) : null,
    h("div", { class: "mem-meta" }, `来自 ${doc.source_mid_ids.length} 条中期记忆`));
}

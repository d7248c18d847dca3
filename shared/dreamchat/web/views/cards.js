// Character cards in the editor: 导入角色卡 (a file, then a preview, then saving), 导出角色卡 (PNG or JSON),
// and what an imported card brought that DreamChat keeps but does not use.

import { ApiError, api, describe, get, raw } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { avatar, clear, h, toast } from "../lib/dom.js";

const MAX_BYTES = 4 * 1024 * 1024; // the server's limit for the whole upload

// The card's fields DreamChat keeps but does not use, in the order a person reads them.
const UNUSED = {
  creator_notes: "作者备注",
  mes_example: "示例对话",
  alternate_greetings: "备选开场白",
  character_book: "世界书（角色书）",
  system_prompt: "角色卡自带的系统提示词",
  post_history_instructions: "角色卡自带的历史后指令",
  creator: "作者",
  character_version: "版本",
  nickname: "昵称",
  group_only_greetings: "群聊开场白",
  creator_notes_multilingual: "多语言作者备注",
  source: "来源",
  assets: "资源",
  creation_date: "创建时间",
  modification_date: "修改时间",
  extensions: "扩展数据",
};
const CUT = { name: "名字", description: "描述", personality: "性格", scenario: "场景", first_mes: "开场白" };

const SHORT_TEXT = 1200; // characters of a kept text shown before 展开

// The 导入角色卡 strip above the new-AI form: choose a file, see what it becomes, then save or cancel.
export function cardImport(ctx) {
  const input = h("input", { type: "file", accept: ".png,.json,image/png,application/json", class: "sr-only", id: "card-file" });
  const panel = h("div", { class: "card-preview", "aria-live": "polite" });
  const strip = h("section", { class: "card card-import", "aria-label": "导入角色卡" },
    h("div", { class: "card-import-head" },
      h("div", {},
        h("b", { text: "已经有角色卡了？" }),
        h("p", { class: "field-hint", text: "SillyTavern、chub 等的角色卡（PNG 或 JSON，V2 / V3），导入后成为一位新的 AI 朋友。" })),
      h("label", { class: "btn btn-soft", for: "card-file", text: "导入角色卡" }), input),
    panel);
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    input.value = "";
    if (file) preview(ctx, file, panel);
  });
  return strip;
}

async function preview(ctx, file, panel) {
  if (file.size > MAX_BYTES) {
    clear(panel, h("p", { class: "form-error", role: "alert", text: "文件太大了：角色卡最多 4 MB。" }));
    return;
  }
  clear(panel, h("p", { class: "muted", text: `正在读取「${file.name}」…` }));
  try {
    const found = await api("POST", "/api/ai-users/import?preview=true", form(file));
    clear(panel, previewCard(ctx, file, found, panel));
  } catch (error) {
    clear(panel, h("p", { class: "form-error", role: "alert", text: importError(error) }));
  }
}

function previewCard(ctx, file, found, panel) {
  const ai = found.preview;
  const save = h("button", { type: "button", class: "btn btn-primary", text: "保存为新的 AI 朋友" });
  const error = h("p", { class: "form-error", role: "alert" });
  save.addEventListener("click", async () => {
    save.disabled = true;
    error.textContent = "";
    try {
      const saved = await api("POST", "/api/ai-users/import", form(file));
      await ctx.friends()?.refresh();
      toast(`已导入「${saved.name}」，打个招呼吧`, "ok");
      ctx.go(`/chat/${saved.id}`);
    } catch (err) {
      error.textContent = importError(err);
      save.disabled = false;
    }
  });
  const cancel = h("button", { type: "button", class: "btn btn-ghost", text: "取消", onclick: () => clear(panel) });
  return h("div", { class: "card-preview-body" },
    h("div", { class: "editor-head" }, avatar({ name: ai.name, avatar: ai.avatar }, "xl"),
      h("div", { class: "editor-head-fields" },
        h("b", { class: "card-preview-name", text: ai.name }),
        ai.tags.length ? h("div", { class: "chips" }, ai.tags.map((tag) => h("span", { class: "chip", text: tag }))) : null)),
    previewField("人设", asShown(ai.base_soul, "对方") || "（角色卡没有描述）", "card-preview-soul"),
    previewField("开场白", asShown(ai.greeting, "你") || "（没有开场白）", "card-preview-greeting"),
    cutNotes(found.imported.cuts),
    found.imported.unused.length
      ? h("p", { class: "field-hint", text: `另有 ${found.imported.unused.map(label).join("、")}：会原样保留（导出角色卡时带上），但 DreamChat 不使用。` })
      : null,
    error,
    h("div", { class: "form-actions" }, cancel, save));
}

// `{{user}}` is kept as the macro and becomes the person's nickname in each prompt; without one the persona
// says 对方 and the greeting 你, as shown here.
const asShown = (text, who) => (text || "").replaceAll("{{user}}", who);

function previewField(title, text, className) {
  return h("div", { class: "field" }, h("span", { text: title }), h("div", { class: `kept-text ${className}`, text }));
}

function cutNotes(cuts) {
  if (!cuts.length) return null;
  const lines = cuts.map((cut) => cut.field === "tags"
    ? `标签有 ${cut.original} 个，保留了 ${cut.kept} 个（每个最多 ${limits().tag_chars} 字）`
    : `${CUT[cut.field] || cut.field}原文 ${cut.original} 字，超出上限，保留了 ${cut.kept} 字`);
  return h("div", { class: "card-cuts", role: "note" },
    h("b", { text: "有些内容太长，已截取：" }),
    h("ul", {}, lines.map((line) => h("li", { text: line }))),
    h("small", { class: "field-hint", text: "完整原文保存在导入的角色卡里，导出时原样带上。" }));
}

function form(file) {
  const body = new FormData();
  body.append("file", file, file.name);
  return body;
}

function importError(error) {
  if (error instanceof ApiError && error.status === 422) return `这张角色卡读不了：${error.message}`;
  return describe(error, {
    413: "文件太大了：角色卡最多 4 MB。",
    415: "请选择 PNG 或 JSON 格式的角色卡。",
  });
}

// 导出角色卡 on the owner's edit page: a V2 card, as a PNG (with the avatar) or as JSON.
export function cardExport(aiUser) {
  const download = async (format) => {
    try {
      const response = await raw("GET", `/api/ai-users/${aiUser.id}/card?format=${format}`);
      const url = URL.createObjectURL(await response.blob());
      const link = h("a", { href: url, download: `${aiUser.name}.${format}` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      toast(describe(error), "error");
    }
  };
  return h("section", { class: "card card-export", "aria-label": "导出角色卡" },
    h("div", {},
      h("b", { text: "导出角色卡" }),
      h("p", { class: "field-hint", text: "V2 角色卡，SillyTavern 等都能导入。PNG 带着头像；记忆不在其中。" })),
    h("div", { class: "form-actions" },
      h("button", { type: "button", class: "btn btn-soft", text: "导出 PNG", onclick: () => download("png") }),
      h("button", { type: "button", class: "btn btn-ghost", text: "导出 JSON", onclick: () => download("json") })));
}

// What the card this AI user was imported from holds beyond what it uses: shown, kept, never used.
export function cardKept(aiUser) {
  const body = h("div", { class: "kept-list" }, h("p", { class: "muted", text: "加载中…" }));
  const section = h("details", { class: "card card-kept" },
    h("summary", {}, h("b", { text: "导入但未使用的内容" })),
    h("p", { class: "field-hint", text: "这些来自导入的角色卡。DreamChat 不会用到它们：对话提示词由 DreamChat 生成，记忆按每个人分别保存；但它们会原样保留，导出角色卡时一并带上。" }),
    body);
  get(`/api/ai-users/${aiUser.id}/card`).then((card) => {
    const entries = keptEntries(card.data);
    clear(body, entries.length ? entries.map(([name, value]) => keptField(name, value)) : h("p", { class: "muted", text: "没有别的内容。" }));
  }, (error) => clear(body, h("p", { class: "form-error", text: describe(error) })));
  return section;
}

function keptEntries(data) {
  const extensions = { ...(data.extensions || {}) };
  const ours = extensions.dreamchat || {};
  delete extensions.dreamchat;
  const fields = { ...data, ...(ours.card_fields || {}), extensions };
  return Object.keys({ ...UNUSED, ...fields })
    .filter((name) => !["name", "description", "personality", "scenario", "first_mes", "tags"].includes(name))
    .filter((name) => name in fields && holds(fields[name]))
    .map((name) => [name, fields[name]]);
}

function holds(value) {
  if (value === null || value === undefined || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

function keptField(name, value) {
  return h("div", { class: "kept-field" }, h("span", { class: "kept-name", text: label(name) }), keptValue(name, value));
}

function keptValue(name, value) {
  if (name === "character_book" && Array.isArray(value.entries)) {
    return h("div", {},
      h("p", { class: "field-hint", text: `${value.name ? `「${value.name}」，` : ""}${value.entries.length} 条` }),
      h("ul", { class: "points" }, value.entries.slice(0, 50).map((entry) =>
        h("li", { text: `${entry.enabled === false ? "（已停用）" : ""}${(entry.keys || []).join("、") || entry.name || "（无关键词）"}：${String(entry.content || "").slice(0, 200)}` }))));
  }
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return h("ol", { class: "points" }, value.map((item) => h("li", {}, longText(item))));
  }
  if (name.endsWith("_date") && typeof value === "number") {
    return h("div", { class: "kept-text", text: value ? new Date(value * 1000).toLocaleString("zh-CN") : "未知" });
  }
  return longText(typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

function longText(text) {
  const box = h("div", { class: "kept-text", text: text.length > SHORT_TEXT ? `${text.slice(0, SHORT_TEXT)}…` : text });
  if (text.length <= SHORT_TEXT) return box;
  const more = h("button", { type: "button", class: "link-btn", text: `展开全部（${text.length} 字）` });
  more.addEventListener("click", () => {
    box.textContent = text;
    more.remove();
  }, { once: true });
  return h("div", {}, box, more);
}

function label(name) {
  return UNUSED[name] || name;
}

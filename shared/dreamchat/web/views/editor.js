// Create or edit an AI user: name, avatar, base_soul, greeting, category and tags, time zone, night owl, visibility, model.

import { del, describe, get, post, put } from "../lib/api.js";
import { config, limits, nightText } from "../lib/config.js";
import { avatar, clear, confirmButton, h, icon, toast } from "../lib/dom.js";
import { cardExport, cardImport, cardKept } from "./cards.js";

const EMOJIS = ["🌙", "🌸", "🐱", "🦊", "🐼", "🍀", "☕", "🎧", "🌊", "⭐", "📚", "🎨"];

const ZONES = {
  "Asia/Shanghai": "北京时间",
  "Asia/Hong_Kong": "香港",
  "Asia/Taipei": "台北",
  "Asia/Tokyo": "东京",
  "Asia/Singapore": "新加坡",
  "Europe/London": "伦敦",
  "Europe/Paris": "巴黎",
  "America/New_York": "纽约",
  "America/Los_Angeles": "洛杉矶",
  "Australia/Sydney": "悉尼",
  UTC: "UTC",
};

const EMPTY = {
  name: "", avatar: "", base_soul: "", timezone: null, night_owl: false, visibility: "private", model: "chat", greeting: "",
  category: null, tags: [], voice: null, voice_replies: "never",
};

// The OpenAI protocol's usual voice ids (a provider may have others: one already set stays a choice).
const VOICES = { alloy: "Alloy · 中性", echo: "Echo · 男声", fable: "Fable · 英式", onyx: "Onyx · 低沉男声",
  nova: "Nova · 女声", shimmer: "Shimmer · 柔和女声" };

// Tags as typed: separated by commas (either width) or 、; blanks dropped (the server keeps each once).
export function parseTags(text) {
  return text.split(/[,，、]/).map((tag) => tag.trim()).filter(Boolean);
}

export function renderEditor(main, ctx, id) {
  let alive = true;
  const title = id ? "编辑资料" : "创建 AI 朋友";
  const body = h("div", { class: "page-body" }, h("p", { class: "muted center", text: "加载中…" }));
  main.replaceChildren(
    h("section", { class: "page" },
      h("header", { class: "bar" },
        h("button", { type: "button", class: "icon-btn", title: "返回", onclick: () => history.back() }, icon("back", "返回")),
        h("div", { class: "bar-title" }, h("b", { text: title }))),
      body),
  );
  const load = id ? get(`/api/ai-users/${id}`) : Promise.resolve(EMPTY);
  load.then((aiUser) => {
    if (!alive) return;
    if (id && !aiUser.is_owner) {
      clear(body, h("p", { class: "muted center", text: "这位 AI 朋友由别人创建，只有创建者可以修改 TA 的资料。" }));
      return;
    }
    // a new one may come from a character card; one's own goes out as one (with what its card kept)
    clear(body, id ? null : cardImport(ctx), form(ctx, id, aiUser),
      id ? cardExport(aiUser) : null, id && aiUser.from_card ? cardKept(aiUser) : null);
  }, (error) => alive && clear(body, h("p", { class: "form-error center", text: describe(error) })));
  return () => {
    alive = false;
  };
}

function editorFields(aiUser) {
  const max = limits();
  return {
    name: h("input", { id: "ai-name", name: "name", maxlength: String(max.name_chars), required: true, value: aiUser.name, placeholder: "比如：小梦" }),
    avatar: h("input", {
      id: "ai-avatar", name: "avatar", maxlength: String(max.avatar_chars), value: aiUser.avatar,
      placeholder: "一个 emoji，或图片链接 https://…",
    }),
    base_soul: h("textarea", {
      id: "ai-soul", name: "base_soul", maxlength: String(max.base_soul_chars), rows: "6", value: aiUser.base_soul,
      placeholder: "TA 是谁？性格、说话方式、喜欢什么……\n比如：温柔体贴的大学同学，喜欢猫和爵士乐，说话轻松带点俏皮。",
    }),
    greeting: h("textarea", {
      id: "ai-greeting", name: "greeting", maxlength: String(max.greeting_chars), rows: "2", value: aiUser.greeting || "",
      placeholder: "比如：嗨，我是小梦～今天过得怎么样？",
    }),
    category: h("select", { id: "ai-category", name: "category" },
      config().categories.map((category) => h("option", {
        value: category, text: category, selected: category === (aiUser.category || config().categories.at(-1)),
      }))),
    tags: h("input", {
      id: "ai-tags", name: "tags", value: (aiUser.tags || []).join("，"), placeholder: "用逗号分隔，比如：温柔，音乐，夜猫子",
    }),
    timezone: zoneSelect(aiUser.timezone),
    night_owl: h("input", { id: "ai-owl", type: "checkbox", class: "switch", checked: aiUser.night_owl }),
    visibility: segmented("visibility", aiUser.visibility, { private: "仅自己", public: "公开，可被发现" }),
    model: segmented("model", aiUser.model, { chat: "日常聊天", reasoner: "深度思考" }),
    voice_replies: segmented("voice_replies", aiUser.voice_replies || "never", { never: "从不", sometimes: "有时", always: "总是" }),
    voice: voiceSelect(aiUser.voice),
  };
}

// The avatar preview, the emoji row under it and the base_soul counter, kept up to date as the person types.
function livePreview(fields) {
  const preview = h("div", { class: "avatar-preview" });
  const counter = h("span", { class: "counter" });
  const emojiRow = h("div", { class: "emoji-row" }, EMOJIS.map((emoji) =>
    h("button", {
      type: "button", class: "emoji-pick", text: emoji, title: `用 ${emoji} 作头像`,
      onclick: () => {
        fields.avatar.value = emoji;
        showPreview();
      },
    })));
  const showPreview = () => {
    clear(preview, avatar({ name: fields.name.value || "?", avatar: fields.avatar.value }, "xl"));
    for (const pick of emojiRow.children) pick.setAttribute("aria-pressed", String(pick.textContent === fields.avatar.value.trim()));
  };
  const showCount = () => {
    counter.textContent = `${fields.base_soul.value.length} / ${limits().base_soul_chars}`;
  };
  fields.name.addEventListener("input", showPreview);
  fields.avatar.addEventListener("input", showPreview);
  fields.base_soul.addEventListener("input", showCount);
  showPreview();
  showCount();
  return { preview, counter, emojiRow };
}

function editorValues(fields) {
  return {
    name: fields.name.value.trim(),
    avatar: fields.avatar.value.trim(),
    base_soul: fields.base_soul.value.trim(),
    greeting: fields.greeting.value.trim(),
    category: fields.category.value,
    tags: parseTags(fields.tags.value),
    timezone: fields.timezone.value,
    night_owl: fields.night_owl.checked,
    visibility: fields.visibility.value(),
    model: fields.model.value(),
    voice_replies: fields.voice_replies.value(),
    voice: fields.voice.value || null,
  };
}

async function saveEditor(ctx, id, fields, error, save) {
  const values = editorValues(fields);
  if (!values.name) {
    error.textContent = "请给 TA 起个名字。";
    fields.name.focus();
    return;
  }
  error.textContent = "";
  save.disabled = true;
  try {
    const saved = id ? await put(`/api/ai-users/${id}`, values) : await post("/api/ai-users", values);
    await ctx.friends()?.refresh();
    toast(id ? "已保存" : `已创建「${saved.name}」，打个招呼吧`, "ok");
    ctx.go(`/chat/${saved.id}`);
  } catch (err) {
    const max = limits();
    error.textContent = describe(err, {
      403: "这个角色已被下架，运营人员恢复之前不能公开。",
      422: `有内容不符合要求：名字最多 ${max.name_chars} 字，人设最多 ${max.base_soul_chars} 字，开场白最多 ${max.greeting_chars} 字，`
        + `标签最多 ${max.tags} 个、每个最多 ${max.tag_chars} 字，头像需是 emoji 或图片链接。`,
    });
    save.disabled = false;
  }
}

// An operator took this AI user down: the owner reads why, and cannot make it public until it is restored.
function takedownNotice(aiUser, fields) {
  const moderation = aiUser.moderation;
  if (moderation?.status !== "taken_down") return null;
  const publicChoice = fields.visibility.el.querySelector("input[value=public]");
  publicChoice.disabled = true;
  publicChoice.closest(".seg-option").title = "已被下架，运营人员恢复后才能公开";
  return h("div", { class: "notice notice-error takedown-notice", role: "alert" },
    h("b", { text: `已被下架：${moderation.note || "违反了社区规则"}` }),
    h("small", { text: "TA 现在只有你自己可见，好友们的聊天已结束（记忆保留）。运营人员恢复之前，不能再公开。" }));
}

function form(ctx, id, aiUser) {
  const fields = editorFields(aiUser);
  const takedown = takedownNotice(aiUser, fields);
  const { preview, counter, emojiRow } = livePreview(fields);
  const error = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { type: "submit", class: "btn btn-primary btn-lg", text: id ? "保存" : "创建" });
  const onSubmit = (event) => {
    event.preventDefault();
    saveEditor(ctx, id, fields, error, save);
  };
  return h("form", { class: "form card editor", novalidate: true, onsubmit: onSubmit },
    takedown,
    h("div", { class: "editor-head" }, preview,
      h("div", { class: "editor-head-fields" },
        h("label", { class: "field", for: "ai-name" }, h("span", { text: "名字" }), fields.name),
        h("label", { class: "field", for: "ai-avatar" }, h("span", { text: "头像" }), fields.avatar))),
    emojiRow,
    h("label", { class: "field", for: "ai-soul" },
      h("span", { class: "field-label-row" }, h("span", { text: "先天人格" }), counter),
      fields.base_soul,
      h("small", { class: "field-hint", text: "身份、性格、说话风格。只有你能修改；TA 在聊天中形成的自我认知会另外记录。" })),
    h("label", { class: "field", for: "ai-greeting" },
      h("span", { text: "开场白" }), fields.greeting,
      h("small", { class: "field-hint", text: `第一次打开和 TA 的聊天时，TA 先说这句话（最多 ${limits().greeting_chars} 字，可以不填）。` })),
    h("div", { class: "field-grid" },
      h("label", { class: "field", for: "ai-category" }, h("span", { text: "分类" }), fields.category),
      h("label", { class: "field", for: "ai-tags" }, h("span", { text: "标签" }), fields.tags,
        h("small", { class: "field-hint", text: "公开后，别人在「发现」里可以按分类和标签找到 TA。选「恋爱」会标为恋爱向。" }))),
    h("div", { class: "field-grid" },
      h("label", { class: "field", for: "ai-zone" }, h("span", { text: "时区" }), fields.timezone),
      h("label", { class: "field field-switch", for: "ai-owl" },
        h("span", {}, icon("moon"), " 夜猫子"), fields.night_owl,
        h("small", { class: "field-hint", text: `夜间时段改为 ${nightText(config().night.night_owl)}` }))),
    h("div", { class: "field" }, h("span", { text: "谁能看到" }), fields.visibility.el),
    h("div", { class: "field" }, h("span", { text: "对话模型" }), fields.model.el),
    h("div", { class: "field" }, h("span", { text: "用语音回复" }), fields.voice_replies.el,
      h("small", { class: "field-hint", text: "「有时」大约三成的回复和主动消息会是语音；文字始终可以点开看。" })),
    h("label", { class: "field", for: "ai-voice" }, h("span", { text: "声音" }), fields.voice),
    error,
    h("div", { class: "form-actions" },
      id ? confirmButton("删除这个 AI", "再点一次：永久删除 TA 和所有记忆", () => remove(ctx, id)) : null,
      save));
}

async function remove(ctx, id) {
  try {
    await del(`/api/ai-users/${id}`);
    await ctx.friends()?.refresh();
    toast("已删除", "ok");
    ctx.go("/");
  } catch (error) {
    toast(describe(error), "error");
  }
}

function zoneSelect(current) {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const chosen = current || (browserZone in ZONES ? browserZone : "Asia/Shanghai");
  const zones = { ...ZONES };
  for (const extra of [chosen, browserZone]) if (extra && !(extra in zones)) zones[extra] = extra;
  return h("select", { id: "ai-zone", name: "timezone" },
    Object.entries(zones).map(([value, label]) =>
      h("option", { value, text: label, title: value, selected: value === chosen })));
}

function voiceSelect(current) {
  const voices = { "": "默认声音", ...VOICES };
  if (current && !(current in voices)) voices[current] = current;
  return h("select", { id: "ai-voice", name: "voice" },
    Object.entries(voices).map(([value, label]) => h("option", { value, text: label, selected: value === (current || "") })));
}

function segmented(name, current, options) {
  const inputs = Object.entries(options).map(([value, label]) => {
    const input = h("input", { type: "radio", name, value, checked: value === current, id: `${name}-${value}` });
    return h("label", { class: "seg-option", for: `${name}-${value}` }, input, h("span", { text: label }));
  });
  return {
    el: h("div", { class: "segmented", role: "radiogroup" }, inputs),
    value: () => inputs.map((label) => label.querySelector("input")).find((input) => input.checked)?.value,
  };
}

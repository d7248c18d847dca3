// What the chat view draws, from values: the shell (header, menu, log, composer), the message rows, a message's
// menu, the remove-friend dialog. No state of its own; views/chat.js decides what to show and when.

import { del, describe, patch, post, put } from "../lib/api.js";
import { aiBadge, avatar, confirmButton, h, icon, toast } from "../lib/dom.js";
import { telHref, webHref } from "../lib/help_lines.js";
import { chatStamp } from "../lib/time.js";
import { mediaControls } from "./chat_media.js";
import { photoBubble, voiceBubble } from "./media_bubbles.js";

const STAMP_GAP_S = 5 * 60;

// Messages with time stamps after a pause, topic dividers, the AI's avatar on the first of a run, in-app notices,
// and the crisis card after the person's message it answers. `pending(item)` is true while the server has not
// stored the item; `help` are the help lines for a card in history (the stream's own lines go with its item).
export function rows(items, aiUser, { pending = () => false, help = [] } = {}) {
  const out = [];
  let previous = null;
  let interrupted = false;  // a card or notice between two messages: the next one starts a run again
  let cardInTopic = false;
  for (const item of items) {
    if (item.divider) {
      out.push(h("div", { class: "divider", text: item.divider }));
      previous = null;
      cardInTopic = false;
      continue;
    }
    if (item.notice) {
      out.push(systemNotice(item.notice, item.kind));
      interrupted = true;
      continue;
    }
    if (previous && previous.topic_id && item.topic_id && previous.topic_id !== item.topic_id) {
      out.push(h("div", { class: "divider", text: "新的话题" }));
      previous = null;
      cardInTopic = false;
    }
    const stamp = !previous || item.timestamp - previous.timestamp > STAMP_GAP_S;
    if (stamp && item.timestamp) out.push(h("div", { class: "stamp", text: chatStamp(item.timestamp) }));
    const first = stamp || !previous || previous.role !== item.role || interrupted;
    out.push(row(item, aiUser, first, pending(item)));
    previous = item;
    interrupted = false;
    // one card per message history marks; a live one once per topic (the protocol's later turns repeat the event)
    if (item.safety === "crisis" || (item.crisis && !cardInTopic)) {
      out.push(crisisCard(item.crisis || help));
      cardInTopic = true;
      interrupted = true;
    }
  }
  return out;
}

// Help lines for a person in crisis: DreamChat's card, not the AI's words; every number one tap from a call.
export function crisisCard(resources) {
  const title = h("h3", { class: "crisis-title", id: `crisis-${++cardSeq}`, text: "你并不孤单" });
  return h("section", { class: "crisis-card", "aria-labelledby": title.id },
    h("p", { class: "crisis-from", text: "来自 DreamChat 的提醒" }),
    title,
    h("p", { class: "crisis-text", text: "愿意说出来，已经很不容易了。如果你正在经历很艰难的时刻，不必一个人扛着，"
      + "这些专业的支持随时都在，打个电话就能和他们聊聊：" }),
    h("ul", { class: "crisis-lines" }, resources.map(helpLine)),
    h("p", { class: "crisis-foot", text: "如果你已经有伤害自己的打算，或者正处在危险中，请马上拨打当地的急救电话，"
      + "也可以告诉一位你信任的人，让 TA 陪着你。" }));
}

let cardSeq = 0;

function helpLine(line) {
  const tel = telHref(line.phone);
  const web = webHref(line.url);
  return h("li", { class: "crisis-line" },
    h("div", { class: "crisis-line-main" },
      h("b", { class: "crisis-name", text: line.name }),
      line.hours ? h("span", { class: "crisis-hours", text: line.hours }) : null),
    h("div", { class: "crisis-actions" },
      tel ? h("a", { class: "crisis-call", href: tel, "aria-label": `拨打${line.name}：${line.phone}` },
        icon("phone"), h("span", { text: line.phone })) : null,
      !tel && line.phone ? h("span", { class: "crisis-phone", text: line.phone }) : null,
      web ? h("a", { class: "crisis-web", href: web, target: "_blank", rel: "noopener noreferrer",
        "aria-label": `${line.name}的网站（在新标签页打开）` }, "网站") : null));
}

// An in-app notice in the flow (the break reminder; "staff": a person from DreamChat is with you now;
// "read_no_reply": why no answer came, with 知道了 to dismiss it for good): said by the app, so not a bubble and
// not the AI's.
// A consent card links to the protection settings, where the guardian's consent is recorded.
function systemNotice(text, kind) {
  const staff = kind === "staff";
  return h("div", { class: `system-notice${staff ? " notice-staff" : ""}`, role: "note", dataset: { kind } },
    staff ? h("b", { class: "staff-label", text: "工作人员" }) : null, h("span", { text }),
    kind === "read_no_reply" ? h("button", { type: "button", class: "notice-dismiss", text: "知道了",
      "aria-label": "知道了，不再提示" }) : null,
    kind === "guardian_consent_required"
      ? h("a", { class: "notice-link", href: "#/settings/protection", text: "去保护设置" }) : null);
}

// Once at the top of every conversation: who is on the other side.
export function aiDisclosure(aiUser) {
  const name = aiUser?.name || "对方";
  return [aiBadge(), h("span", { text: `${name} 是 AI，不是真人。TA 的每条消息都由 AI 生成。` })];
}

// A person from DreamChat (an operator who took the chat over) wrote this: never the AI's name or avatar.
function staffRow(item, first) {
  return h("div", { class: `msg msg-staff${first ? " msg-first" : ""}`, dataset: { id: item.id, role: "staff" } },
    first ? h("span", { class: "avatar avatar-sm staff-avatar", "aria-hidden": "true", text: "工" }) : h("span", { class: "avatar-gap" }),
    h("div", { class: "msg-body" },
      first ? h("div", { class: "msg-tag staff-tag", text: "工作人员 · DreamChat" }) : null,
      h("div", { class: "bubble", text: item.content, "aria-label": `工作人员：${item.content}` })));
}

function row(item, aiUser, first, pending) {
  if (item.role === "staff") return staffRow(item, first);
  const mine = item.role === "user";
  const heartbeat = item.kind === "heartbeat";
  const classes = ["msg", mine ? "msg-me" : "msg-ai", first ? "msg-first" : "", heartbeat ? "msg-heartbeat" : "",
    pending ? "msg-pending" : ""].filter(Boolean).join(" ");
  const side = mine ? null : first && aiUser ? avatar(aiUser, "sm") : h("span", { class: "avatar-gap" });
  return h("div", { class: classes, dataset: { id: item.id, role: item.role } },
    side,
    h("div", { class: "msg-body" },
      heartbeat && first ? h("div", { class: "msg-tag" }, icon("heart"), "主动来找你") : null,
      content(item),
      item.alternatives?.length > 1 ? alternatives(item) : null,
      item.rating ? h("div", { class: "msg-meta msg-rating", text: item.rating === 1 ? "👍 已赞" : "👎 已踩" }) : null,
      item.read || item.read_no_reply ? h("div", { class: "msg-meta read-receipt", text: "已读" }) : null,
      item.uploading ? h("div", { class: "msg-meta", text: "上传中…" }) : pending ? h("div", { class: "msg-meta", text: "发送中…" }) : null,
      item.unsent ? h("div", { class: "msg-meta msg-failed" }, h("span", { text: "没有发出去" }),
        h("button", { type: "button", class: "resend-btn", text: "重发" })) : null,
      item.failed ? h("div", { class: "msg-meta msg-failed" }, h("span", { text: item.unanswered ? "还没有回复" : "回复失败" }),
        h("button", { type: "button", class: "retry-btn", text: "重试" })) : null));
}

// A message's bubble: its words, or a voice note (a voice reply of the AI too), or a photo and its caption.
function content(item) {
  if (item.media_kind === "audio") return voiceBubble(item);
  if (item.media_kind === "image") return photoBubble(item);
  return h("div", { class: "bubble", text: item.content });
}

// The answers kept for the latest exchange (换一个回答): ‹ 2 / 3 ›, a tap (or a swipe on the bubble) shows another.
function alternatives(item) {
  const at = item.alternative || 0;
  const count = item.alternatives.length;
  const arrow = (label, index, text) => h("button", {
    type: "button", class: "alt-btn", "aria-label": label, disabled: index < 0 || index >= count, dataset: { index: String(index) },
  }, text);
  return h("div", { class: "msg-alts", role: "group", "aria-label": "其他回答" },
    arrow("上一个回答", at - 1, "‹"), h("span", { class: "alt-count", text: `${at + 1} / ${count}` }), arrow("下一个回答", at + 1, "›"));
}

// 复制; 举报 when `onReport` is given (a stored message of the AI); 删除 (two taps) when `onDelete` is given: only a
// stored message can be deleted.
export function messageMenu(onCopy, onDelete, onReport = null, extra = []) {
  const menu = h("div", { class: "msg-menu", role: "menu", "aria-label": "消息操作" },
    h("button", { type: "button", role: "menuitem", class: "menu-item", onclick: onCopy }, "复制"),
    ...extra,
    onReport ? h("button", { type: "button", role: "menuitem", class: "menu-item", onclick: onReport }, "举报") : null,
    onDelete ? confirmButton("删除", "确认删除", onDelete, "menu-item danger") : null);
  for (const button of menu.querySelectorAll("button")) button.setAttribute("role", "menuitem");
  return menu;
}

// The ⋯ menu of the chat's header; its labels say what a tap would change, read when it opens.
function friendMenu(ctx, id, actions, editItem) {
  const menuButton = (className, iconName, label, onPick) => h("button", {
    type: "button", class: `menu-item ${className}`.trim(), role: "menuitem",
    onclick: () => {
      menu.hidden = true;
      onPick();
    },
  }, icon(iconName), label);
  const menu = h("div", { class: "menu", role: "menu", hidden: true },
    editItem,
    menuButton("", "heart", "让 TA 现在来找我", () => actions.triggerHeartbeat()),
    menuButton("menu-pin", "pin", h("span", { text: "置顶聊天" }), () => toggleFriend(ctx, id, "pinned")),
    menuButton("menu-mute", "bell", h("span", { text: "消息免打扰" }), () => toggleFriend(ctx, id, "muted")),
    menuButton("menu-heartbeat", "heart", h("span", { text: "TA 主动找我" }), () => heartbeatDialog(ctx, id)),
    menuButton("", "search", "搜索聊天记录", () => actions.search()),
    menuButton("menu-report", "flag", "举报这个角色", () => actions.report()),
    menuButton("menu-stop", "bell", "停止陪伴", () => actions.stopCompanion()),
    menuButton("danger", "trash", "删除好友", () => actions.removeFriend()));
  const toggleMenu = (event) => {
    event.stopPropagation();
    menu.hidden = !menu.hidden;
    const friend = ctx.friends()?.find(id);
    menu.querySelector(".menu-pin > span:last-child").textContent = friend?.pinned ? "取消置顶" : "置顶聊天";
    menu.querySelector(".menu-mute > span:last-child").textContent = friend?.muted ? "取消免打扰" : "消息免打扰";
    menu.querySelector(".menu-heartbeat > span:last-child").textContent =
      `TA 主动找我：${HEARTBEAT_MODES[friend?.heartbeat || "on"]}`;
    if (!menu.hidden) document.addEventListener("click", () => { menu.hidden = true; }, { once: true });
  };
  return { menu, toggleMenu };
}

// `actions`: {triggerHeartbeat, removeFriend, report}, called from the ⋯ menu.
export function buildUi(ctx, id, actions) {
  const textarea = h("textarea", {
    id: "composer-input", rows: "1", placeholder: "说点什么…", "aria-label": "输入消息", enterkeyhint: "send",
  });
  const send = h("button", { type: "submit", class: "send-btn", title: "发送", disabled: true }, icon("send", "发送"));
  const editItem = h("a", { class: "menu-item", href: `#/edit/${id}`, role: "menuitem" }, icon("edit"), "编辑资料");
  const { menu, toggleMenu } = friendMenu(ctx, id, actions, editItem);
  const ui = {
    textarea, send, editItem, reportItem: menu.querySelector(".menu-report"),
    avatarSlot: h("span", { class: "bar-avatar" }),
    name: h("b", { class: "chat-name" }),
    status: h("small", { class: "chat-status", "aria-live": "polite" }),
    typing: h("div", { class: "msg msg-ai msg-first typing", hidden: true, "aria-hidden": "true" },
      h("span", { class: "avatar-gap" }),
      h("div", { class: "msg-body" }, h("div", { class: "bubble typing-bubble" },
        h("span", { class: "dot" }), h("span", { class: "dot" }), h("span", { class: "dot" })))),
    list: h("div", { class: "msg-list" }),
    older: h("div", { class: "older" }),
    intro: h("p", { class: "ai-intro", role: "note", hidden: true }),
    empty: h("div", { class: "chat-empty", hidden: true }),
    notice: h("div", { class: "notice", role: "alert", hidden: true }),
    counter: h("span", { class: "counter composer-counter", hidden: true }),
  };
  ui.log = h("div", { class: "log", role: "log", "aria-label": "聊天记录" }, ui.older, ui.intro, ui.empty, ui.list, ui.typing);
  Object.assign(ui, mediaControls());
  ui.form = h("form", { class: "composer" }, ui.recording, ui.camera, ui.album, ui.photoWrap,
    h("div", { class: "composer-box" }, textarea, ui.counter), ui.mic, send);
  ui.root = h("section", { class: "chat" },
    h("header", { class: "bar" },
      h("button", { type: "button", class: "icon-btn back-btn", title: "返回", onclick: () => ctx.go("/") }, icon("back", "返回")),
      ui.avatarSlot,
      h("div", { class: "bar-title" }, h("div", { class: "chat-title" }, ui.name, aiBadge()), ui.status),
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

const HEARTBEAT_MODES = { on: "开启", scheduled: "仅定时", off: "关闭" };

// Per friend: every heartbeat, only the ones TA scheduled ("每天 9:30"), or none.
function heartbeatDialog(ctx, id) {
  const current = ctx.friends()?.find(id)?.heartbeat || "on";
  const choices = [
    ["on", "开启", "TA 会在合适的时候主动来找你，也会按约定的时间来"],
    ["scheduled", "仅定时", "只在 TA 和你约好的时间来（比如每天 9:30 说早安）"],
    ["off", "关闭", "TA 不再主动发消息"],
  ];
  const radios = choices.map(([value, label, hint]) => h("label", { class: "check heartbeat-mode" },
    h("input", { type: "radio", name: "heartbeat-mode", value, checked: value === current }),
    h("span", {}, h("b", { text: label }), h("small", { class: "field-hint", text: ` ${hint}` }))));
  const dialog = h("dialog", { class: "dialog", "aria-label": "TA 主动找我" },
    h("form", { method: "dialog", class: "dialog-body" },
      h("h3", { text: "TA 主动找我" }),
      ...radios,
      h("p", { class: "muted", text: "「消息免打扰」只停止通知，不会停止 TA 主动发消息；要让 TA 不再主动来找你，请在这里关闭。" }),
      h("div", { class: "dialog-actions" },
        h("button", { value: "cancel", class: "btn btn-ghost", text: "取消" }),
        h("button", { value: "save", class: "btn btn-primary", text: "保存" }))));
  dialog.addEventListener("close", async () => {
    dialog.remove();
    const picked = dialog.querySelector("input[name=heartbeat-mode]:checked")?.value;
    if (dialog.returnValue !== "save" || !picked || picked === current) return;
    try {
      await put(`/api/friends/${id}/heartbeat`, { mode: picked });
      await ctx.friends()?.refresh();
      toast(`TA 主动找我：${HEARTBEAT_MODES[picked]}`, "ok");
    } catch (error) {
      toast(describe(error), "error");
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}

// A way out (issue 38): the AI says one short goodbye and sends nothing more until the person writes again.
export function stopCompanion(ctx, id, aiUser, onStopped) {
  const dialog = h("dialog", { class: "dialog stop-dialog" },
    h("form", { method: "dialog", class: "dialog-body" },
      h("h3", { text: `停止「${aiUser?.name || ""}」的陪伴？` }),
      h("p", { class: "muted", text: "停止后 TA 不会再主动找你，也不会再发消息。你再给 TA 发消息时，陪伴会恢复。" }),
      h("div", { class: "dialog-actions" },
        h("button", { value: "cancel", class: "btn btn-soft", text: "取消" }),
        h("button", { value: "stop", class: "btn btn-danger-solid", text: "停止陪伴" }))));
  dialog.addEventListener("close", async () => {
    dialog.remove();
    if (dialog.returnValue !== "stop") return;
    try {
      await post(`/api/friends/${id}/stop`);
      await ctx.friends()?.refresh();
      toast("已停止陪伴。想聊时再发消息就好。", "ok");
      onStopped?.();
    } catch (error) {
      toast(describe(error), "error");
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}

export function removeFriend(ctx, id, aiUser) {
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

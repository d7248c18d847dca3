// A character's page before befriending: who TA is (description, category, tags, the greeting TA opens with) and
// 加为好友. A refusal is shown on the page itself: in minors' mode a romance character answers 403 minor_protection.

import { describe, get } from "../lib/api.js";
import { aiBadge, avatar, clear, h, icon } from "../lib/dom.js";
import { befriendButton, tagChips } from "./discover.js";
import { reportDialog } from "./report.js";

export function renderCharacter(main, ctx, id) {
  let alive = true;
  const body = h("div", { class: "page-body" }, h("p", { class: "muted center", text: "加载中…" }));
  main.replaceChildren(
    h("section", { class: "page" },
      h("header", { class: "bar" },
        h("button", { type: "button", class: "icon-btn back-btn", title: "返回", onclick: () => ctx.go("/discover") }, icon("back", "返回")),
        h("div", { class: "bar-title" }, h("b", { text: "角色主页" }))),
      body),
  );
  Promise.all([get(`/api/ai-users/${id}`), ctx.friends()?.refresh()]).then(([aiUser, friends]) => {
    if (!alive) return;
    const isFriend = (friends || []).some((friend) => friend.id === aiUser.id);
    clear(body, page(ctx, aiUser, isFriend));
  }, (error) => alive && clear(body, h("p", { class: "form-error center", role: "alert", text: describe(error, { 404: "找不到这个角色，TA 可能已不再公开。" }) })));
  return () => {
    alive = false;
  };
}

function page(ctx, aiUser, isFriend) {
  const refusal = h("div", { class: "notice notice-error character-refusal", role: "alert", hidden: true });
  const action = befriendButton(ctx, aiUser, isFriend, {
    className: "btn btn-primary btn-lg character-action",
    label: "加为好友",
    refused: (why) => {
      refusal.textContent = why;
      refusal.hidden = false;
    },
  });
  action.addEventListener("click", () => { refusal.hidden = true; }, { capture: true });
  return h("article", { class: "card character", "aria-label": aiUser.name, dataset: { id: aiUser.id } },
    h("div", { class: "character-head" },
      avatar(aiUser, "xl"),
      h("h2", { class: "character-name" }, h("span", { text: aiUser.name }), aiBadge()),
      h("div", { class: "character-meta" },
        h("span", { class: "tag", text: aiUser.category }),
        aiUser.romance ? h("span", { class: "tag", text: "恋爱向", title: "未成年人模式下不能添加为好友" }) : null,
        aiUser.is_owner ? h("span", { class: "tag", text: "我创建的" }) : null)),
    aiUser.tags.length ? tagChips(aiUser.tags, (tag) => ctx.go(`/discover?tag=${encodeURIComponent(tag)}`)) : null,
    h("section", { class: "character-section" },
      h("h3", { text: "简介" }),
      h("p", { class: "character-text", text: aiUser.base_soul || "（没有写人设）" })),
    aiUser.greeting
      ? h("section", { class: "character-section" },
        h("h3", { text: "TA 会这样和你打招呼" }),
        h("p", { class: "character-greeting", text: aiUser.greeting }))
      : null,
    h("p", { class: "field-hint", text: "加为好友后，TA 会从零开始认识你：你们的记忆只属于你们两个。" }),
    refusal,
    h("div", { class: "character-actions" },
      action,
      aiUser.is_owner ? null : h("button", {
        type: "button", class: "link-btn danger report-btn", text: "举报", "aria-label": `举报「${aiUser.name}」`,
        onclick: () => reportDialog({ kind: "ai_user", ai_user_id: aiUser.id, name: aiUser.name }),
      })));
}

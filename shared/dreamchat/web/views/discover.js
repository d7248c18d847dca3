// Discover public AI users and befriend them; each friendship starts with fresh memories.

import { describe, everyPage, get, post } from "../lib/api.js";
import { aiBadge, avatar, clear, h, icon, toast } from "../lib/dom.js";
import { reportDialog } from "./report.js";

export function renderDiscover(main, ctx) {
  let alive = true;
  let cursor = null;
  const list = h("ul", { class: "discover-list" });
  // one's own AI users stay reachable here after being removed from the friends list (private ones are not listed below)
  const mineList = h("ul", { class: "discover-list", "aria-label": "我创建的" });
  const mine = h("section", { class: "discover-mine", hidden: true },
    h("h3", { class: "discover-heading", text: "我创建的" }), mineList,
    h("h3", { class: "discover-heading", text: "公开的 AI" }));
  const status = h("p", { class: "muted center", text: "正在寻找公开的 AI…" });
  const more = h("button", { type: "button", class: "btn btn-soft", hidden: true, text: "加载更多", onclick: () => load() });

  main.replaceChildren(
    h("section", { class: "page" },
      h("header", { class: "bar" },
        h("button", { type: "button", class: "icon-btn back-btn", title: "返回", onclick: () => ctx.go("/") }, icon("back", "返回")),
        h("div", { class: "bar-title" }, h("b", { text: "发现" }), h("small", { text: "公开的 AI 朋友" }))),
      h("div", { class: "page-body" }, mine, list, status, h("div", { class: "center" }, more))),
  );

  async function load() {
    more.disabled = true;
    try {
      const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const body = await get(`/api/ai-users?scope=public&limit=30${query}`);
      if (!alive) return;
      const friends = (await ctx.friends()?.refresh()) || [];
      const known = new Set(friends.map((friend) => friend.id));
      list.append(...body.ai_users.map((aiUser) => card(ctx, aiUser, known.has(aiUser.id))));
      cursor = body.next_cursor || null;
      more.hidden = !cursor;
      status.hidden = list.children.length > 0;
      status.textContent = "还没有人公开 AI 朋友。创建时选择「公开」，别人就能在这里找到 TA。";
    } catch (error) {
      if (alive) status.textContent = describe(error);
    } finally {
      more.disabled = false;
    }
  }

  async function loadMine() {
    try {
      const [mineAll, friends] = await Promise.all([everyPage("/api/ai-users?scope=mine", "ai_users"), ctx.friends()?.refresh()]);
      if (!alive) return;
      const known = new Set((friends || []).map((friend) => friend.id));
      const owned = mineAll.filter((aiUser) => aiUser.is_owner);
      clear(mineList, owned.map((aiUser) => card(ctx, aiUser, known.has(aiUser.id))));
      mine.hidden = owned.length === 0;
    } catch (error) {
      if (alive) toast(describe(error), "error");
    }
  }

  loadMine();
  load();
  return () => {
    alive = false;
  };
}

function card(ctx, aiUser, isFriend) {
  const action = h("button", { type: "button", class: "btn btn-primary btn-sm" });
  const showState = (friend) => {
    clear(action, friend ? "去聊天" : "加好友");
    action.classList.toggle("btn-primary", !friend);
    action.classList.toggle("btn-soft", friend);
  };
  showState(isFriend);
  action.addEventListener("click", async () => {
    if (isFriend) return ctx.go(`/chat/${aiUser.id}`);
    action.disabled = true;
    try {
      await post(`/api/friends/${aiUser.id}`);
      isFriend = true;
      showState(true);
      toast(`已添加「${aiUser.name}」为好友`, "ok");
      ctx.friends()?.refresh();
    } catch (error) {
      toast(describe(error), "error");
    } finally {
      action.disabled = false;
    }
  });
  return h("li", { class: "discover-card card", dataset: { id: aiUser.id } },
    avatar(aiUser, "lg"),
    h("div", { class: "discover-main" },
      h("div", { class: "discover-name" }, h("b", { text: aiUser.name }), aiBadge(),
        aiUser.is_owner ? h("span", { class: "tag", text: "我创建的" }) : null),
      h("p", { class: "discover-soul", text: aiUser.base_soul || "（没有写人设）" }),
      // someone else's public AI user can be reported from its card (one's own cannot)
      aiUser.is_owner ? null : h("button", {
        type: "button", class: "link-btn danger report-btn", text: "举报", "aria-label": `举报「${aiUser.name}」`,
        onclick: () => reportDialog({ kind: "ai_user", ai_user_id: aiUser.id, name: aiUser.name }),
      })),
    action);
}

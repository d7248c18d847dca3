// Discover public AI users: search by name or tag, filter by category (chips) and tag, and befriend them; each
// friendship starts with fresh memories. Tapping a character opens its page (views/character.js) first.

import { describe, everyPage, get, post } from "../lib/api.js";
import { config } from "../lib/config.js";
import { aiBadge, avatar, clear, h, icon, toast } from "../lib/dom.js";
import { reportDialog } from "./report.js";

const SEARCH_PAUSE_MS = 300; // typing in the search box asks the server once the person pauses

// `query`: the filters to start with (#/discover?tag=…, from a tag on a character's page).
export function renderDiscover(main, ctx, query = "") {
  const view = new Discover(main, ctx, new URLSearchParams(query || ""));
  return () => view.stop();
}

class Discover {
  constructor(main, ctx, start) {
    this.ctx = ctx;
    this.alive = true;
    this.cursor = null;
    this.asked = 0; // the latest search asked: an older answer arriving late is dropped
    this.pause = null;
    this.filters = { q: start.get("q") || "", category: start.get("category") || "", tag: start.get("tag") || "" };
    this.list = h("ul", { class: "discover-list", "aria-label": "公开的 AI" });
    // one's own AI users stay reachable here after being removed from the friends list (private ones are not listed below)
    this.mineList = h("ul", { class: "discover-list", "aria-label": "我创建的" });
    this.mine = h("section", { class: "discover-mine", hidden: true },
      h("h3", { class: "discover-heading", text: "我创建的" }), this.mineList,
      h("h3", { class: "discover-heading", text: "公开的 AI" }));
    this.status = h("p", { class: "muted center", role: "status", text: "正在寻找公开的 AI…" });
    this.more = h("button", { type: "button", class: "btn btn-soft", hidden: true, text: "加载更多", onclick: () => this.load(false) });
    this.chips = this.categoryChips();
    this.tagRow = h("div", { class: "tag-filter", hidden: true });
    main.replaceChildren(
      h("section", { class: "page" },
        h("header", { class: "bar" },
          h("button", { type: "button", class: "icon-btn back-btn", title: "返回", onclick: () => ctx.go("/") }, icon("back", "返回")),
          h("div", { class: "bar-title" }, h("b", { text: "发现" }), h("small", { text: "公开的 AI 朋友" }))),
        h("div", { class: "page-body" }, this.searchBox(), this.chips, this.tagRow, this.mine, this.list, this.status,
          h("div", { class: "center" }, this.more))),
    );
    this.choose({});
  }

  stop() {
    this.alive = false;
    clearTimeout(this.pause);
  }

  searchBox() {
    const search = h("input", {
      type: "search", class: "discover-search-input", placeholder: "搜索名字或标签", "aria-label": "搜索名字或标签",
      maxlength: String(config().limits.name_chars), enterkeyhint: "search", value: this.filters.q,
      oninput: () => {
        clearTimeout(this.pause);
        this.pause = setTimeout(() => this.choose({ q: search.value.trim() }), SEARCH_PAUSE_MS);
      },
    });
    return h("form", {
      class: "discover-search", role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        clearTimeout(this.pause);
        this.choose({ q: search.value.trim() });
      },
    }, icon("search"), search);
  }

  categoryChips() {
    return h("div", { class: "category-chips", role: "group", "aria-label": "分类" },
      ["", ...config().categories].map((category) => h("button", {
        type: "button", class: "category-chip", text: category || "全部", dataset: { category },
        "aria-pressed": String(category === this.filters.category), onclick: () => this.choose({ category }),
      })));
  }

  // A new filter starts the listing again from its first page.
  choose(change) {
    const filters = Object.assign(this.filters, change);
    for (const chip of this.chips.children) chip.setAttribute("aria-pressed", String(chip.dataset.category === filters.category));
    clear(this.tagRow, filters.tag
      ? h("button", {
        type: "button", class: "tag-chip tag-chip-on", "aria-label": `取消标签筛选「${filters.tag}」`,
        onclick: () => this.choose({ tag: "" }),
      }, `# ${filters.tag}`, h("span", { "aria-hidden": "true", text: " ×" }))
      : null);
    this.tagRow.hidden = !filters.tag;
    this.mine.hidden = true; // one's own show only on the whole listing
    this.load(true);
    if (!this.filtered()) this.loadMine();
  }

  filtered() {
    return Boolean(this.filters.q || this.filters.category || this.filters.tag);
  }

  listingPath() {
    const params = new URLSearchParams({ scope: "public", limit: "30" });
    for (const [name, value] of Object.entries(this.filters)) if (value) params.set(name, value);
    if (this.cursor) params.set("cursor", this.cursor);
    return `/api/ai-users?${params}`;
  }

  cards(aiUsers, friends) {
    const known = new Set((friends || []).map((friend) => friend.id));
    return aiUsers.map((aiUser) => card(this.ctx, aiUser, known.has(aiUser.id), (tag) => this.choose({ tag })));
  }

  async load(fresh) {
    const mark = fresh ? ++this.asked : this.asked;
    if (fresh) {
      this.cursor = null;
      this.list.replaceChildren();
      this.status.hidden = false;
      this.status.textContent = "正在寻找…";
    }
    this.more.disabled = true;
    try {
      const body = await get(this.listingPath());
      const friends = await this.ctx.friends()?.refresh();
      if (!this.alive || mark !== this.asked) return;
      this.list.append(...this.cards(body.ai_users, friends));
      this.cursor = body.next_cursor || null;
      this.showStatus();
    } catch (error) {
      if (this.alive && mark === this.asked) this.status.textContent = describe(error);
    } finally {
      this.more.disabled = false;
    }
  }

  showStatus() {
    this.more.hidden = !this.cursor;
    this.status.hidden = this.list.children.length > 0;
    this.status.textContent = this.filtered()
      ? (this.cursor ? "这一页没有找到，点「加载更多」继续找。" : "没有找到符合条件的 AI，换个词或分类试试。")
      : "还没有人公开 AI 朋友。创建时选择「公开」，别人就能在这里找到 TA。";
  }

  async loadMine() {
    try {
      const [mineAll, friends] = await Promise.all([everyPage("/api/ai-users?scope=mine", "ai_users"), this.ctx.friends()?.refresh()]);
      if (!this.alive || this.filtered()) return;
      const owned = mineAll.filter((aiUser) => aiUser.is_owner);
      clear(this.mineList, this.cards(owned, friends));
      this.mine.hidden = owned.length === 0;
    } catch (error) {
      if (this.alive) toast(describe(error), "error");
    }
  }
}

// One character in the list: its avatar, name and description open its page; its tags filter the listing.
function card(ctx, aiUser, isFriend, onTag) {
  const action = befriendButton(ctx, aiUser, isFriend, {
    className: "btn btn-primary btn-sm", label: "加好友", refused: (why) => toast(why, "error"),
  });
  return h("li", { class: "discover-card card", dataset: { id: aiUser.id } },
    h("a", { class: "discover-open", href: `#/character/${aiUser.id}`, "aria-label": `查看「${aiUser.name}」的主页` },
      avatar(aiUser, "lg"),
      h("div", { class: "discover-main" },
        h("div", { class: "discover-name" }, h("b", { text: aiUser.name }), aiBadge(),
          h("span", { class: "tag", text: aiUser.category }),
          aiUser.is_owner ? h("span", { class: "tag", text: "我创建的" }) : null),
        h("p", { class: "discover-soul", text: aiUser.base_soul || "（没有写人设）" }))),
    h("div", { class: "discover-foot" },
      tagChips(aiUser.tags.slice(0, 4), onTag),
      // someone else's public AI user can be reported from its card (one's own cannot)
      aiUser.is_owner ? null : h("button", {
        type: "button", class: "link-btn danger report-btn", text: "举报", "aria-label": `举报「${aiUser.name}」`,
        onclick: () => reportDialog({ kind: "ai_user", ai_user_id: aiUser.id, name: aiUser.name }),
      }),
      action));
}

// Tags as buttons that filter the listing by that tag.
export function tagChips(tags, onTag) {
  return h("div", { class: "tag-chips" }, tags.map((tag) => h("button", {
    type: "button", class: "tag-chip", text: `# ${tag}`, "aria-label": `只看标签「${tag}」`, onclick: () => onTag(tag),
  })));
}

// What a refused befriending tells the person: minors' mode closes romance characters (403 minor_protection).
// 加好友 (or, once a friend, 去聊天): befriends, then opens the chat; `refused` tells the person why not.
export function befriendButton(ctx, aiUser, isFriend, { className, label, refused }) {
  const action = h("button", { type: "button", class: className });
  const showState = (friend) => {
    clear(action, friend ? "去聊天" : label);
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
      refused(befriendError(error));
    } finally {
      action.disabled = false;
    }
  });
  return action;
}

export function befriendError(error) {
  if (error?.code === "minor_protection") return "你开启了未成年人模式，暂时不能添加恋爱类角色为好友。";
  return describe(error);
}

// The friends sidebar (the home screen on a phone) and the empty main pane on a desktop.

import { allPages, del, describe } from "../lib/api.js";
import { aiBadge, avatar, clear, h, icon, toast } from "../lib/dom.js";
import { keep, kept, keptLabel } from "../lib/offline_cache.js";
import { fromNow, listStamp } from "../lib/time.js";

const REFRESH_MS = 15000;

// Why a friendship ended without the person ending it (GET /api/friends → ended).
const ENDED = {
  taken_down: "该角色已被下架",
  no_longer_visible: "该角色已不再可见",
};

export const LEVELS = {
  特别关心: "lv-5",
  关系较好: "lv-4",
  一般: "lv-3",
  关系冷淡: "lv-2",
  决裂: "lv-1",
};

export function levelBadge(level) {
  return level ? h("span", { class: `level ${LEVELS[level] || "lv-3"}`, text: level }) : null;
}

export class FriendsList {
  constructor(side, ctx) {
    this.ctx = ctx;
    this.items = [];
    this.loaded = false;
    this.active = null;
    this.list = h("ul", { class: "friend-list", "aria-label": "好友列表" });
    this.endedList = h("ul", { class: "friend-list ended-list", "aria-label": "已结束的好友" });
    this.ended = [];
    this.status = h("p", { class: "side-status", text: "正在加载好友…" });
    this.discover = h("a", { class: "btn btn-soft", href: "#/discover" }, icon("search"), "发现");
    const account = ctx.account();
    clear(side,
      h("header", { class: "side-head" },
        h("div", { class: "brand" }, h("img", { src: "/static/icon.svg", alt: "" }), h("b", { text: "DreamChat" })),
        h("div", { class: "me" },
          h("span", { class: "me-name", text: account?.username || "" }),
          h("a", { class: "icon-btn", href: "#/settings", title: "设置" }, icon("settings", "设置")),
          h("button", { type: "button", class: "icon-btn", title: "退出登录", onclick: () => ctx.logout() },
            icon("logout", "退出登录")))),
      h("div", { class: "side-actions" },
        this.discover,
        h("a", { class: "btn btn-primary", href: "#/new" }, icon("plus"), "创建 AI")),
      h("div", { class: "side-scroll" }, this.status, this.list, this.endedList));
    this.timer = setInterval(() => document.visibilityState === "visible" && this.refresh(), REFRESH_MS);
    this.refresh();
  }

  stop() {
    clearInterval(this.timer);
  }

  find(id) {
    return this.items.find((friend) => friend.id === id) || null;
  }

  setActive(id, view) {
    this.active = id;
    if (view === "discover") this.discover.setAttribute("aria-current", "page");
    else this.discover.removeAttribute("aria-current");
    for (const el of this.list.querySelectorAll(".friend")) el.classList.toggle("active", el.dataset.id === id);
  }

  markRead(id) {
    const friend = this.find(id);
    if (friend && friend.unread) {
      friend.unread = 0;
      this.render();
    }
  }

  async refresh() {
    try {
      const { first, entries: friends } = await allPages("/api/friends", "friends"); // the server pages it by id
      this.ended = first?.ended || [];
      // like a messenger's chat list: pinned friends first, then the latest conversation first
      this.items = friends.sort((a, b) => Number(b.pinned) - Number(a.pinned) || latest(b) - latest(a));
      this.loaded = true;
      this.fromCache = false;
      keep(this.ctx.account()?.id, "friends", { items: this.items, ended: this.ended });
      if (this.active) this.markReadLocally(this.active);
      this.render();
      window.dispatchEvent(new CustomEvent("dreamchat:friends"));
    } catch (error) {
      if (!this.loaded && !(error.code === "network" && await this.showKept())) this.status.textContent = describe(error);
    }
    return this.items;
  }

  // Offline with nothing loaded yet: the list as last kept on this device, marked as such (true when there was one).
  async showKept() {
    const found = await kept(this.ctx.account()?.id, "friends");
    if (!found || this.loaded) return false;
    this.items = found.value.items || [];
    this.ended = found.value.ended || [];
    this.loaded = true;
    this.fromCache = true;
    this.keptText = keptLabel(found.at);
    this.render();
    return true;
  }

  // The open chat has been seen, whatever the last poll counted.
  markReadLocally(id) {
    const friend = this.find(id);
    if (friend) friend.unread = 0;
  }

  render() {
    // the tab's title counts what is unread, leaving muted friends out
    const loud = this.items.reduce((sum, friend) => sum + (friend.muted ? 0 : friend.unread || 0), 0);
    document.title = loud ? `(${loud > 99 ? "99+" : loud}) DreamChat` : "DreamChat";
    this.status.hidden = this.items.length > 0 && !this.fromCache;
    this.status.classList.toggle("kept-note", Boolean(this.fromCache));
    if (this.fromCache) this.status.textContent = this.keptText;
    else if (!this.items.length) {
      clear(this.status, "还没有 AI 朋友。", h("br"), "创建一个，或者去「发现」里找找。");
    }
    clear(this.list, this.items.map((friend) => this.row(friend)));
    clear(this.endedList, this.ended.map((ended) => this.endedRow(ended)));
  }

  // A friendship that ended because the AI user left the person's view: said why, and 移除 takes it off the list
  // (the memories stay; the account export still has them).
  endedRow(ended) {
    const name = ended.name || "一位 AI 朋友";  // the server names it (none: the AI user was deleted)
    const remove = h("button", { type: "button", class: "link-btn danger", text: "移除", "aria-label": `移除「${name}」` });
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      try {
        await del(`/api/friends/${ended.ai_user_id}`);
        await this.refresh();
      } catch (error) {
        remove.disabled = false;
        toast(describe(error), "error");
      }
    });
    return h("li", { class: "friend ended-friend", dataset: { id: ended.ai_user_id, reason: ended.reason } },
      avatar({ name, avatar: "" }),
      h("div", { class: "friend-main" },
        h("div", { class: "friend-top" }, h("span", { class: "friend-name", text: name }), aiBadge()),
        h("div", { class: "friend-sub" }, h("span", { class: "ended-reason", text: ENDED[ended.reason] || ENDED.no_longer_visible }))),
      remove);
  }

  row(friend) {
    const count = friend.unread > 99 ? "99+" : friend.unread;
    const unread = friend.unread > 0
      ? h("span", { class: `unread${friend.muted ? " unread-muted" : ""}`, text: count }) : null;
    const label = [friend.name, "AI 角色", friend.pinned ? "已置顶" : "", friend.muted ? "消息免打扰" : "", friend.stopped ? "已停止陪伴" : "",
      unread ? `${friend.unread} 条未读` : ""].filter(Boolean).join("，");
    const classes = ["friend", friend.id === this.active ? "active" : "", friend.pinned ? "pinned" : "",
      friend.muted ? "muted-friend" : ""].filter(Boolean).join(" ");
    return h("li", {},
      h("a", { class: classes, href: `#/chat/${friend.id}`, dataset: { id: friend.id }, "aria-label": label },
      avatar(friend),
      h("div", { class: "friend-main" },
        h("div", { class: "friend-top" },
          h("span", { class: "friend-name", text: friend.name }),
          aiBadge(),
          levelBadge(friend.relationship),
          friend.muted ? h("span", { class: "mute-mark", title: "消息免打扰" }, icon("bell")) : null,
          friend.stopped ? h("span", { class: "stopped-mark", title: "已停止陪伴", text: "已停止" }) : null,
          friend.last_message ? h("time", { class: "friend-time", text: listStamp(friend.last_message.timestamp) }) : null),
        h("div", { class: "friend-sub" }, subline(friend))),
      unread));
  }
}

function latest(friend) {
  return friend.last_message?.timestamp || friend.since || 0;
}

function subline(friend) {
  const last = friend.last_message;
  if (last) {
    const who = { user: "我：", staff: "工作人员：" }[last.role] || "";
    return h("span", { class: "friend-preview", text: `${who}${last.content.replace(/\s+/g, " ")}` });
  }
  if (friend.next_heartbeat) {
    return [icon("heart"), h("span", { text: `下次心跳 ${fromNow(friend.next_heartbeat)}` })];
  }
  return h("span", { text: friend.base_soul ? friend.base_soul.replace(/\s+/g, " ") : "开始聊天吧" });
}

export function renderHome(main, ctx) {
  main.replaceChildren(
    h("div", { class: "empty-pane" },
      h("div", { class: "empty-art", "aria-hidden": "true", text: "💬" }),
      h("h2", { text: "选一位朋友开始聊天" }),
      h("p", { text: "TA 会记住你们聊过的事：最近的话题、重要的约定，还有你在意的东西。" }),
      h("div", { class: "empty-actions" },
        h("a", { class: "btn btn-primary", href: "#/new" }, icon("plus"), "创建 AI 朋友"),
        h("a", { class: "btn btn-soft", href: "#/discover" }, icon("search"), "发现公开的 AI"))),
  );
  ctx.friends()?.refresh();
}

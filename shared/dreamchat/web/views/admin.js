// The operator console at /admin: one shell (who is signed in, the tabs with their badges) around one screen.
// It asks `GET /api/admin/me` first: anyone the server does not name an operator sees only that they are not one.
// The screens are in their own files: admin_reports.js, admin_escalations.js, admin_accounts.js, admin_audit.js.

import { describe, get } from "../lib/api.js";
import { clear, h, icon } from "../lib/dom.js";
import { renderAccount } from "./admin_accounts.js";
import { renderAudit, renderReferrals } from "./admin_audit.js";
import { renderEscalation, renderEscalations } from "./admin_escalations.js";
import { renderReport, renderReports } from "./admin_reports.js";

const SUMMARY_POLL_MS = 20000;  // the badges: a new escalation shows within this

const TABS = [
  ["reports", "举报", "open_reports"],
  ["escalations", "危机", "open_escalations"],
  ["audit", "审计", null],
  ["referrals", "报告", null],
];

const SCREENS = [
  [/^\/(?:reports)?$/, "reports", (body, ctx) => renderReports(body, ctx)],
  [/^\/reports\/([\w-]+)$/, "reports", (body, ctx, id) => renderReport(body, ctx, id)],
  [/^\/escalations$/, "escalations", (body, ctx) => renderEscalations(body, ctx)],
  [/^\/escalations\/([\w-]+)$/, "escalations", (body, ctx, id) => renderEscalation(body, ctx, id)],
  [/^\/accounts\/([\w-]+)$/, null, (body, ctx, id) => renderAccount(body, ctx, id)],
  [/^\/audit$/, "audit", (body, ctx) => renderAudit(body, ctx)],
  [/^\/referrals$/, "referrals", (body, ctx) => renderReferrals(body, ctx)],
];

// Who the server confirmed as an operator, per account: the next screen need not ask again.
let confirmed = null;

export function renderAdmin(main, ctx, path) {
  const shell = new AdminShell(main, ctx, path);
  return shell.open();
}

class AdminShell {
  constructor(main, ctx, path) {
    this.main = main;
    this.ctx = ctx;
    this.path = path;
    this.alive = true;
    this.screenCleanup = null;
    this.timer = null;
    this.badges = {};
    this.counts = null;  // the last summary: a list whose count changes is read again
    this.redraw = null;
  }

  open() {
    const account = this.ctx.account();
    if (confirmed && confirmed === account?.id) this.show();
    else this.check(account);
    return () => {
      this.alive = false;
      clearInterval(this.timer);
      this.screenCleanup?.();
    };
  }

  async check(account) {
    clear(this.main, h("div", { class: "empty-pane" }, h("p", { class: "muted", text: "正在确认运营权限…" })));
    try {
      await get("/api/admin/me");
      confirmed = account?.id || null;
      if (this.alive) this.show();
    } catch (error) {
      if (!this.alive) return;
      if (error.status === 403) this.notOperator(account);
      else clear(this.main, h("div", { class: "empty-pane" }, h("p", { class: "form-error", role: "alert", text: describe(error) })));
    }
  }

  notOperator(account) {
    clear(this.main, h("div", { class: "empty-pane admin-denied" },
      h("div", { class: "empty-art", "aria-hidden": "true", text: "🔒" }),
      h("h2", { text: "你不是运营人员" }),
      h("p", { text: `账号「${account?.username || ""}」没有运营后台的权限。运营人员由服务的配置（DREAMCHAT_OPERATORS）指定。` }),
      h("div", { class: "empty-actions" },
        h("a", { class: "btn btn-primary", href: "/" }, "回到 DreamChat"),
        h("button", { type: "button", class: "btn btn-soft", onclick: () => this.ctx.logout() }, "换个账号登录"))));
  }

  show() {
    const match = SCREENS.map(([pattern, tab, render]) => [this.path.match(pattern), tab, render]).find(([m]) => m);
    if (!match) return this.ctx.go("/reports");
    const [found, tab, render] = match;
    const body = h("div", { class: "page-body admin-body" });
    clear(this.main, h("section", { class: "page admin" }, this.header(), this.tabs(tab), body));
    this.screenCleanup = render(body, this.ctx, found[1]) || null;
    // a tab's own list (not one item) follows its badge: what the badge counts is shown without a reload
    const counter = found[1] === undefined && TABS.find(([key]) => key === tab)?.[2];
    this.redraw = counter ? { counter, again: () => {
      this.screenCleanup?.();
      this.screenCleanup = render(body, this.ctx) || null;
    } } : null;
    this.pollSummary();
  }

  header() {
    return h("header", { class: "bar admin-bar" },
      h("div", { class: "brand" }, h("img", { src: "/static/icon.svg", alt: "" })),
      h("div", { class: "bar-title" }, h("b", { text: "运营后台" }), h("small", { text: this.ctx.account()?.username || "" })),
      h("button", { type: "button", class: "icon-btn", title: "退出登录", onclick: () => this.ctx.logout() },
        icon("logout", "退出登录")));
  }

  tabs(current) {
    const links = TABS.map(([key, label, counter]) => {
      const badge = counter ? h("span", { class: "tab-badge", hidden: true, dataset: { counter } }) : null;
      if (badge) this.badges[counter] = badge;
      return h("a", { class: "admin-tab", href: `#/${key}`, "aria-current": key === current ? "page" : null },
        h("span", { text: label }), badge);
    });
    return h("nav", { class: "admin-tabs", "aria-label": "运营后台" }, links);
  }

  // The counts behind the badges, now and every SUMMARY_POLL_MS while the page is visible.
  pollSummary() {
    const load = async () => {
      try {
        const summary = await get("/api/admin/summary");
        if (this.alive) this.showCounts(summary);
      } catch {
        // the badges keep their last counts; the screen itself says what failed
      }
    };
    load();
    this.timer = setInterval(() => document.visibilityState === "visible" && load(), SUMMARY_POLL_MS);
  }

  showCounts(summary) {
    const before = this.counts;
    this.counts = summary;
    const counter = this.redraw?.counter;
    if (before && counter && Number(before[counter]) !== Number(summary?.[counter])) this.redraw.again();
    for (const [counter, badge] of Object.entries(this.badges)) {
      const count = Number(summary?.[counter]) || 0;
      badge.hidden = count === 0;
      badge.textContent = count > 99 ? "99+" : String(count);
      badge.setAttribute("aria-label", `${count} 件待处理`);
    }
  }
}

// 危机 in the console: the pairs the crisis protocol fired on (no text in the list), one escalation with the
// flagged messages and the 10 before each (an audited read), 接管 (the AI stops answering that chat), staff
// messages the person receives labelled 工作人员, and 交还 (the AI answers again, knowing what staff said).

import { describe, get, post } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { clear, confirmButton, h, icon, toast } from "../lib/dom.js";
import { accountLink, countedText, facts, fail, messageLog, PagedList, screenHead, stamp, statusFilter } from "./admin_common.js";

export const ESCALATION_STATUS = { open: "待处理", taken_over: "接管中", closed: "已结束" };

let shownStatus = "open";

export function renderEscalations(body) {
  const holder = h("div");
  const show = (status) => {
    shownStatus = status;
    const list = new PagedList(`/api/admin/escalations?status=${status}&limit=30`, "escalations", escalationRow,
      status === "open" ? "没有待处理的危机。" : "没有记录。");
    clear(holder, list.el);
    list.load();
  };
  clear(body, screenHead("危机"),
    h("p", { class: "field-hint", text: "用户说出自杀或自伤的打算时，危机协议会开启一条记录。列表里没有聊天内容；打开一条会读取相关消息，并记入审计。" }),
    statusFilter("escalation-status", ESCALATION_STATUS, shownStatus, show), holder);
  show(shownStatus);
}

function escalationRow(escalation) {
  return h("li", {},
    h("a", { class: `admin-row card${escalation.status === "open" ? " is-urgent" : ""}`, href: `#/escalations/${escalation.id}`,
      dataset: { id: escalation.id } },
    h("div", { class: "admin-row-top" },
      h("b", { text: `${escalation.messages_flagged} 条消息触发` }),
      h("span", { class: `flag ${escalation.status === "open" ? "flag-danger" : "flag-live"}`, text: ESCALATION_STATUS[escalation.status] }),
      h("span", { class: "admin-row-time", text: stamp(escalation.opened_at) })),
    h("small", { class: "muted", text: `用户 ${escalation.account_id} · 角色 ${escalation.ai_user_id}` })));
}

export function renderEscalation(body, ctx, id) {
  const view = new EscalationView(body, id);
  view.load();
  return () => {
    view.alive = false;
  };
}

class EscalationView {
  constructor(body, id) {
    this.body = body;
    this.id = id;
    this.alive = true;
    this.escalation = null;
  }

  async load() {
    if (!this.escalation) clear(this.body, h("p", { class: "muted center", text: "加载中…" }));
    try {
      const escalation = await get(`/api/admin/escalations/${this.id}`);
      if (this.alive) this.draw(escalation);
    } catch (error) {
      if (this.alive) fail(this.body, error);
    }
  }

  draw(escalation) {
    this.escalation = escalation;
    const status = escalation.status;
    clear(this.body,
      screenHead("危机", "#/escalations",
        h("span", { class: `flag ${status === "open" ? "flag-danger" : "flag-live"}`, text: ESCALATION_STATUS[status] })),
      h("section", { class: "card admin-card" }, facts([
        ["用户", accountLink(escalation.account_id)],
        ["AI 角色", escalation.ai_user_id],
        ["开启于", stamp(escalation.opened_at)],
        ["触发的消息", String(escalation.messages_flagged)],
        ["接管人", escalation.taken_over_by ? accountLink(escalation.taken_over_by) : "—"],
        ["紧急联系人", escalation.emergency_contact || "未登记"],
      ])),
      h("section", { class: "card admin-card" },
        h("div", { class: "card-head-row" },
          h("h3", { class: "card-title", text: "相关消息" }),
          h("button", { type: "button", class: "btn btn-soft btn-sm", onclick: () => this.load() }, icon("refresh"), "刷新")),
        messageLog(escalation.messages || [], { marked: (m) => m.flagged, markLabel: "触发危机协议" })),
      this.actions(status));
  }

  actions(status) {
    if (status === "open") {
      const takeover = h("button", { type: "button", class: "btn btn-primary btn-lg", text: "接管对话" });
      takeover.addEventListener("click", () => this.act("takeover", takeover, "已接管：AI 暂停回复，你的消息会以「工作人员」身份发给用户"));
      return h("section", { class: "card admin-card" },
        h("p", { class: "field-hint", text: "接管后，AI 在这段对话里不再回复、也不再主动发消息，直到你交还。" }),
        h("div", { class: "form-actions" }, takeover));
    }
    if (status === "taken_over") return this.composer();
    return h("p", { class: "muted center", text: "这条记录已结束，对话已交还给 AI。" });
  }

  composer() {
    const max = limits().message_chars;
    const text = countedText("staff-message", "以工作人员身份发消息", max, "用户会看到「工作人员」发来的这条消息。", 4);
    const error = h("p", { class: "form-error", role: "alert" });
    const send = h("button", { type: "submit", class: "btn btn-primary", text: "发送" });
    const release = confirmButton("交还给 AI", "确认交还？", () => this.act("release", null, "已交还：AI 会接着陪伴用户"));
    const onSubmit = async (event) => {
      event.preventDefault();
      if (!text.value()) return;
      send.disabled = true;
      try {
        const sent = await post(`/api/admin/escalations/${this.id}/messages`, { content: text.value() });
        toast("已发送", "ok");
        // shown here at once; reading the conversation again is an audited read, done only with 刷新
        const messages = [...(this.escalation.messages || []), { ...sent, flagged: false }];
        if (this.alive) this.draw({ ...this.escalation, messages });
      } catch (err) {
        send.disabled = false;
        error.textContent = describe(err, { 409: "这段对话已不在你的接管中，请刷新。", 422: `消息不能为空，最多 ${max} 字。` });
      }
    };
    return h("form", { class: "card admin-card form staff-compose", onsubmit: onSubmit, "aria-label": "工作人员消息" },
      text.field, error, h("div", { class: "form-actions" }, release, send));
  }

  async act(action, button, said) {
    if (button) button.disabled = true;
    try {
      const escalation = await post(`/api/admin/escalations/${this.id}/${action}`);
      toast(said, "ok");
      if (this.alive) this.draw({ ...this.escalation, ...escalation });
    } catch (error) {
      if (button) button.disabled = false;
      toast(describe(error, { 409: "状态已经变了（可能别的运营人员刚处理过），请刷新。" }), "error");
    }
  }
}

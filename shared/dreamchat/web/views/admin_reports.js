// 举报 in the console: the open reports oldest first (overdue ones marked), one report with the AI user it names
// (and, for a message, the messages), and the answer: 下架 (takedown) or 驳回 (dismiss), with a note the
// reporter (and, for a takedown, the owner) reads.

import { describe, get, post } from "../lib/api.js";
import { moderationLimits } from "../lib/config.js";
import { clear, h, toast } from "../lib/dom.js";
import {
  accountLink, countedText, facts, fail, messageLog, PagedList, screenHead, stamp, statusFilter,
} from "./admin_common.js";

export const REPORT_STATUS = { open: "待处理", resolved: "已下架", dismissed: "已驳回" };
export const REPORT_KIND = { ai_user: "举报角色", message: "举报消息" };
const VISIBILITY = { public: "公开", private: "仅自己" };

let shownStatus = "open";  // the filter stays as the operator left it, back from a report

export function renderReports(body, ctx) {
  const holder = h("div");
  const show = (status) => {
    shownStatus = status;
    const list = new PagedList(`/api/admin/reports?status=${status}&limit=30`, "reports", reportRow,
      status === "open" ? "没有待处理的举报。" : "没有记录。");
    clear(holder, list.el);
    list.load();
  };
  clear(body, screenHead("举报"), statusFilter("report-status", REPORT_STATUS, shownStatus, show), holder);
  show(shownStatus);
}

function reportRow(report) {
  return h("li", {},
    h("a", { class: `admin-row card${report.overdue ? " is-overdue" : ""}`, href: `#/reports/${report.id}`, dataset: { id: report.id } },
      h("div", { class: "admin-row-top" },
        h("b", { text: REPORT_KIND[report.kind] || report.kind }),
        report.overdue ? h("span", { class: "flag flag-danger", text: "已超时" }) : null,
        h("span", { class: "admin-row-time", text: stamp(report.created_at) })),
      h("p", { class: "admin-row-text", text: report.reason }),
      h("small", { class: "muted", text: report.status === "open" ? `请在 ${stamp(report.respond_by)} 前处理` : REPORT_STATUS[report.status] })));
}

export function renderReport(body, ctx, id) {
  let alive = true;
  clear(body, h("p", { class: "muted center", text: "加载中…" }));
  get(`/api/admin/reports/${id}`).then((report) => alive && drawReport(body, report), (error) => alive && fail(body, error));
  return () => {
    alive = false;
  };
}

function drawReport(body, report) {
  const aiUser = report.ai_user || {};
  const isMessage = report.kind === "message";
  clear(body,
    screenHead(REPORT_KIND[report.kind] || "举报", "#/reports",
      h("span", { class: `flag ${report.overdue ? "flag-danger" : "flag-live"}`, text: report.overdue ? "已超时" : REPORT_STATUS[report.status] })),
    h("section", { class: "card admin-card" },
      h("h3", { class: "card-title", text: "举报理由" }),
      h("p", { class: "admin-quote", text: report.reason }),
      facts([
        ["举报人", accountLink(report.account_id)],
        ["提交于", stamp(report.created_at)],
        ["处理期限", stamp(report.respond_by)],
        report.status !== "open" ? ["处理结果", `${REPORT_STATUS[report.status]} · ${stamp(report.resolved_at)}`] : null,
        report.note ? ["处理说明", report.note] : null,
      ])),
    aiUserCard(aiUser),
    isMessage ? h("section", { class: "card admin-card" }, h("h3", { class: "card-title", text: "被举报的消息（及之前的 10 条）" }),
      messageLog(report.messages || [], { marked: (m) => m.id === report.message_id, markLabel: "被举报" })) : null,
    report.status === "open" ? resolveForm(body, report) : null);
}

function aiUserCard(aiUser) {
  const down = aiUser.moderation?.status === "taken_down";
  const restore = h("button", { type: "button", class: "btn btn-soft", text: "恢复上架" });
  restore.addEventListener("click", async () => {
    restore.disabled = true;
    try {
      await post(`/api/admin/ai-users/${aiUser.id}/restore`);
      toast("已恢复：创作者可以重新公开这个角色", "ok");
      restore.replaceWith(h("span", { class: "muted", text: "已恢复" }));
    } catch (error) {
      restore.disabled = false;
      toast(describe(error, { 409: "这个角色没有被下架。" }), "error");
    }
  });
  return h("section", { class: "card admin-card", "aria-label": "被举报的角色" },
    h("h3", { class: "card-title", text: "AI 角色" }),
    facts([
      ["名字", aiUser.name],
      ["编号", aiUser.id],
      ["创作者", accountLink(aiUser.owner_id)],
      ["可见性", VISIBILITY[aiUser.visibility] || aiUser.visibility],
      ["状态", down ? `已下架（${stamp(aiUser.moderation.at)}）：${aiUser.moderation.note || ""}` : "正常"],
    ]),
    down ? h("div", { class: "form-actions" }, restore) : null);
}

function resolveForm(body, report) {
  const note = countedText("resolve-note", "处理说明（举报人会看到；下架时创作者也会看到）",
    moderationLimits().note_chars, "比如：该角色的人设含有违规内容，已下架。");
  const error = h("p", { class: "form-error", role: "alert" });
  const act = async (action, button) => {
    if (!note.value()) {
      error.textContent = "请写下处理说明。";
      note.input.focus();
      return;
    }
    error.textContent = "";
    button.disabled = true;
    try {
      const done = await post(`/api/admin/reports/${report.id}/resolve`, { action, note: note.value() });
      toast(action === "takedown" ? "已下架，举报已处理" : "已驳回", "ok");
      drawReport(body, { ...report, ...done, ai_user: afterAction(report.ai_user, done) });
    } catch (err) {
      button.disabled = false;
      error.textContent = describe(err, { 409: "这条举报已经处理过了，请刷新。", 422: "处理说明太长了。" });
    }
  };
  const takedown = h("button", { type: "button", class: "btn btn-danger-solid", text: "下架" });
  const dismiss = h("button", { type: "button", class: "btn btn-soft", text: "驳回" });
  takedown.addEventListener("click", () => act("takedown", takedown));
  dismiss.addEventListener("click", () => act("dismiss", dismiss));
  return h("section", { class: "card admin-card form", "aria-label": "处理举报" },
    h("h3", { class: "card-title", text: "处理" }),
    note.field,
    h("small", { class: "field-hint", text: "下架：角色立即变为仅自己可见，好友的聊天结束（记忆保留），创作者不能再公开，直到恢复。" }),
    error,
    h("div", { class: "form-actions" }, dismiss, takedown));
}

// What a takedown did to the AI user, without reading the report again (each read of its messages is audited).
function afterAction(aiUser, done) {
  if (done.action !== "takedown" || !aiUser) return aiUser;
  const at = done.resolved_at || Math.floor(Date.now() / 1000);
  return { ...aiUser, visibility: "private", moderation: { status: "taken_down", note: done.note, at } };
}

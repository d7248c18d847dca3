// 举报 for the person: a public AI user (its discover card, the chat's ⋯ menu) or a message in their own chat
// (its action menu), with a reason; the answer says by when it will be handled. 我的举报 (in 设置) lists what
// they reported, its status and the operator's note.

import { describe, get, post } from "../lib/api.js";
import { moderationLimits } from "../lib/config.js";
import { clear, h } from "../lib/dom.js";
import { fullStamp } from "../lib/time.js";

const STATUS = { open: "处理中", resolved: "已处理", dismissed: "未采纳" };
const KIND = { ai_user: "举报角色", message: "举报消息" };

// `target`: {kind: "ai_user" | "message", ai_user_id, message_id?, name}. Opens a dialog; resolves when it closes.
export function reportDialog(target) {
  const max = moderationLimits().report_reason_chars;
  const reason = h("textarea", { id: "report-reason", rows: "4", maxlength: String(max), placeholder: "请说明原因，比如：人设含有色情、暴力或违法内容。" });
  const counter = h("span", { class: "counter", text: `0 / ${max}` });
  const error = h("p", { class: "form-error", role: "alert" });
  const submit = h("button", { type: "submit", class: "btn btn-danger-solid", text: "提交举报", disabled: true });
  const what = target.kind === "message" ? "这条消息" : `「${target.name || "这个角色"}」`;
  const body = h("form", { class: "dialog-body report-form" },
    h("h3", { text: `举报${what}` }),
    h("label", { class: "field", for: "report-reason" },
      h("span", { class: "field-label-row" }, h("span", { text: "举报理由" }), counter), reason),
    h("small", { class: "field-hint", text: "运营人员会在承诺的时间内处理，结果可以在「设置 → 我的举报」里查看。" }),
    error,
    h("div", { class: "dialog-actions" },
      h("button", { type: "button", class: "btn btn-ghost", text: "取消", onclick: () => dialog.close() }), submit));
  const dialog = h("dialog", { class: "dialog", "aria-label": "举报" }, body);
  reason.addEventListener("input", () => {
    const length = [...reason.value].length;
    counter.textContent = `${length} / ${max}`;
    counter.classList.toggle("over", length > max);
    submit.disabled = !reason.value.trim() || length > max;
  });
  body.addEventListener("submit", (event) => {
    event.preventDefault();
    send(target, reason.value.trim(), { dialog, body, error, submit });
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  reason.focus();
}

async function send(target, reason, { dialog, body, error, submit }) {
  submit.disabled = true;
  error.textContent = "";
  try {
    const report = await post("/api/reports", {
      kind: target.kind, ai_user_id: target.ai_user_id, message_id: target.message_id ?? undefined, reason,
    });
    clear(body,
      h("h3", { text: "举报已提交" }),
      h("p", { class: "report-answer", role: "status", text: `已提交，我们会在 ${fullStamp(report.respond_by)} 前处理` }),
      h("p", { class: "muted", text: "处理结果会显示在「设置 → 我的举报」里。" }),
      h("div", { class: "dialog-actions" }, h("button", { type: "button", class: "btn btn-primary", text: "好的", onclick: () => dialog.close() })));
  } catch (err) {
    submit.disabled = false;
    error.textContent = describe(err, {
      404: "找不到要举报的内容：只能举报公开的角色，或你自己聊天里的消息。",
      409: "你已经有 20 条举报还在处理中，等处理完再提交新的举报吧。",
      422: `举报理由不能为空，最多 ${moderationLimits().report_reason_chars} 字。`,
    });
  }
}

// 我的举报 in 设置: each report, newest first, with its status and the operator's answer.
export function myReportsCard(ctx) {
  const list = h("ul", { class: "my-reports", "aria-label": "我的举报" });
  const status = h("p", { class: "muted", text: "加载中…" });
  const more = h("button", { type: "button", class: "btn btn-soft btn-sm", hidden: true, text: "加载更多" });
  let cursor = null;
  const load = async () => {
    more.disabled = true;
    try {
      const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const page = await get(`/api/reports?limit=20${query}`);
      list.append(...(page.reports || []).map((report) => reportRow(ctx, report)));
      cursor = page.next_cursor || null;
      more.hidden = !cursor;
      status.hidden = list.children.length > 0;
      status.textContent = "你还没有举报过。看到不合适的角色或消息，可以在它的菜单里选「举报」。";
    } catch (error) {
      status.hidden = false;
      status.textContent = describe(error);
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener("click", load);
  load();
  return h("section", { class: "card my-reports-card", "aria-label": "我的举报" },
    h("h2", { class: "card-title", text: "我的举报" }), status, list, more);
}

function reportRow(ctx, report) {
  const name = ctx.friends()?.find(report.ai_user_id)?.name;
  return h("li", { class: `my-report status-${report.status}`, dataset: { id: report.id } },
    h("div", { class: "my-report-top" },
      h("b", { text: `${KIND[report.kind] || "举报"}${name ? `「${name}」` : ""}` }),
      h("span", { class: `flag ${report.status === "open" ? "flag-live" : "flag-done"}`, text: STATUS[report.status] || report.status }),
      h("time", { class: "line-time", text: fullStamp(report.created_at) })),
    h("p", { class: "my-report-reason", text: report.reason }),
    report.status === "open"
      ? h("small", { class: "muted", text: `我们会在 ${fullStamp(report.respond_by)} 前处理` })
      : h("p", { class: "my-report-note" }, h("b", { text: report.action === "takedown" ? "已下架 · 运营回复：" : "运营回复：" }),
        h("span", { text: report.note || "（没有说明）" })));
}

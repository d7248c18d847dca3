// 账号 in the console, opened from a report or an escalation: who it is, and 停用 (with a reason the person is
// told when they try to log in) or 解除停用. Nothing of the account's data is deleted either way.

import { del, describe, get, post } from "../lib/api.js";
import { moderationLimits } from "../lib/config.js";
import { clear, h, toast } from "../lib/dom.js";
import { countedText, facts, fail, screenHead, stamp } from "./admin_common.js";

export function renderAccount(body, ctx, id) {
  let alive = true;
  clear(body, h("p", { class: "muted center", text: "加载中…" }));
  get(`/api/admin/accounts/${id}`).then((account) => alive && drawAccount(body, ctx, account), (error) => alive && fail(body, error));
  return () => {
    alive = false;
  };
}

function drawAccount(body, ctx, account) {
  const suspended = account.suspension;
  clear(body,
    screenHead("账号", () => history.back(),
      h("span", { class: `flag ${suspended ? "flag-danger" : "flag-live"}`, text: suspended ? "已停用" : "正常" })),
    h("section", { class: "card admin-card", "aria-label": "账号信息" }, facts([
      ["用户名", account.username],
      ["编号", account.id],
      ["注册于", stamp(account.created_at)],
      ["运营人员", account.operator ? "是" : "否"],
      suspended ? ["停用原因", suspended.reason] : null,
      suspended ? ["停用于", `${stamp(suspended.at)}${suspended.by ? ` · ${suspended.by}` : ""}`] : null,
    ])),
    suspensionCard(body, ctx, account));
}

function suspensionCard(body, ctx, account) {
  if (account.operator || account.id === ctx.account()?.id) {
    return h("p", { class: "muted center", text: "运营人员的账号（包括你自己的）不能在这里停用。" });
  }
  if (account.suspension) return liftCard(body, ctx, account);
  const reason = countedText("suspend-reason", "停用原因（用户登录时会看到）", moderationLimits().suspension_reason_chars,
    "比如：多次发布违规角色。");
  const error = h("p", { class: "form-error", role: "alert" });
  const button = h("button", { type: "submit", class: "btn btn-danger-solid", text: "停用账号" });
  const onSubmit = async (event) => {
    event.preventDefault();
    if (!reason.value()) {
      error.textContent = "请写下停用原因。";
      return;
    }
    button.disabled = true;
    try {
      const done = await post(`/api/admin/accounts/${account.id}/suspend`, { reason: reason.value() });
      toast("已停用：该账号立即退出登录，公开的角色暂时隐藏", "ok");
      drawAccount(body, ctx, { ...account, suspension: done.suspension });
    } catch (err) {
      button.disabled = false;
      error.textContent = describe(err, { 403: "不能停用自己或其他运营人员。", 409: "这个账号已经停用了，请刷新。" });
    }
  };
  return h("form", { class: "card admin-card form", onsubmit: onSubmit, "aria-label": "停用账号" },
    reason.field,
    h("small", { class: "field-hint", text: "停用后不能登录，已登录的设备立即失效，公开的角色在停用期间隐藏；数据不会删除。" }),
    error, h("div", { class: "form-actions" }, button));
}

function liftCard(body, ctx, account) {
  const button = h("button", { type: "button", class: "btn btn-primary", text: "解除停用" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await del(`/api/admin/accounts/${account.id}/suspend`);
      toast("已解除停用", "ok");
      drawAccount(body, ctx, { ...account, suspension: null });
    } catch (error) {
      button.disabled = false;
      toast(describe(error, { 409: "这个账号没有被停用，请刷新。" }), "error");
    }
  });
  return h("section", { class: "card admin-card", "aria-label": "解除停用" }, h("div", { class: "form-actions" }, button));
}

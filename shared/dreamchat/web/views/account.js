// The person's own account in settings: the nickname every AI friend calls them by, a new password (every other
// device is logged out), and deleting the account, after a confirmation that names what goes.

import { del, describe, put, session } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { h, toast } from "../lib/dom.js";

export function accountCard(ctx, profile) {
  return [nicknameForm(profile), passwordForm(), deleteAccount(ctx)];
}

function nicknameForm(profile) {
  const nicknameChars = limits().nickname_chars;
  const input = h("input", {
    id: "nickname", maxlength: String(nicknameChars), value: profile.nickname || "", placeholder: "比如：阿青",
    autocomplete: "nickname",
  });
  const error = h("p", { class: "form-error", role: "alert" });
  const form = h("form", { class: "form card account-nickname", novalidate: true, "aria-label": "称呼" },
    h("label", { class: "field", for: "nickname" }, h("span", { text: "希望 TA 们怎么称呼你" }), input),
    h("small", { class: "field-hint", text: "每位 AI 朋友都会这样叫你，角色卡里称呼你的地方也会用它。留空就叫“你”。" }),
    error,
    h("div", { class: "form-actions" }, h("button", { type: "submit", class: "btn btn-primary", text: "保存称呼" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      const saved = await put("/api/profile", { nickname: input.value.trim() || null });
      input.value = saved.nickname || "";
      toast(saved.nickname ? `好的，TA 们会叫你「${saved.nickname}」` : "已清除称呼", "ok");
    } catch (err) {
      error.textContent = describe(err, { 422: `称呼最多 ${nicknameChars} 个字，而且要有能看见的字。` });
    }
  });
  return form;
}

function passwordForm() {
  const { min: minPassword, max: maxPassword } = limits().password_chars;
  const field = (id, label, autocomplete) => {
    const input = h("input", { id, type: "password", autocomplete, required: true });
    return [input, h("label", { class: "field", for: id }, h("span", { text: label }), input)];
  };
  const [old, oldField] = field("old-password", "当前密码", "current-password");
  const [fresh, freshField] = field("new-password", `新密码（至少 ${minPassword} 位）`, "new-password");
  const error = h("p", { class: "form-error", role: "alert" });
  const form = h("form", { class: "form card account-password", novalidate: true, "aria-label": "修改密码" },
    h("h3", { text: "修改密码" }), oldField, freshField,
    h("small", { class: "field-hint", text: "改好后，其他设备都需要重新登录。" }),
    error,
    h("div", { class: "form-actions" }, h("button", { type: "submit", class: "btn btn-primary", text: "修改密码" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if ([...fresh.value].length < minPassword) {
      error.textContent = `新密码至少 ${minPassword} 位。`;
      return;
    }
    try {
      const tokens = await put("/api/auth/password", { old_password: old.value, new_password: fresh.value });
      session.set({ ...session.get(), access_token: tokens.access_token, refresh_token: tokens.refresh_token });
      old.value = fresh.value = "";
      toast("密码已修改，其他设备已退出登录", "ok");
    } catch (err) {
      error.textContent = describe(err, {
        403: "当前密码不对。",
        422: `新密码要 ${minPassword} 到 ${maxPassword} 位。`,
        429: "试错太多次了，请过一会儿再试。",
      });
    }
  });
  return form;
}

// Two steps: the button opens a confirmation that says what goes and asks for the account's name.
function deleteAccount(ctx) {
  const username = ctx.account()?.username || "";
  const typed = h("input", { id: "delete-confirm", autocomplete: "off", placeholder: username });
  const go = h("button", { type: "button", class: "btn btn-danger-solid", text: "永久删除账号", disabled: true });
  const error = h("p", { class: "form-error", role: "alert" });
  const confirm = h("div", { class: "delete-confirm", hidden: true },
    h("p", { text: "删除后，你的账号、你创建的 AI 朋友，以及每位 AI 朋友关于你的全部记忆和聊天记录都会被永久删除，无法恢复。" }),
    h("label", { class: "field", for: "delete-confirm" }, h("span", { text: `输入你的用户名「${username}」确认` }), typed),
    error,
    h("div", { class: "form-actions" },
      h("button", { type: "button", class: "btn btn-soft", text: "取消", onclick: () => { confirm.hidden = true; } }), go));
  typed.addEventListener("input", () => {
    go.disabled = typed.value.trim() !== username;
  });
  go.addEventListener("click", async () => {
    go.disabled = true;
    try {
      await del("/api/auth/user");
      toast("账号已删除", "ok");
      session.clear();
      location.replace("#/login");
    } catch (err) {
      go.disabled = false;
      error.textContent = describe(err);
    }
  });
  return h("section", { class: "form card account-delete", "aria-label": "删除账号" },
    h("h3", { text: "删除账号" }),
    h("button", { type: "button", class: "btn btn-ghost btn-danger", text: "删除账号…", onclick: () => {
      confirm.hidden = false;
      typed.focus();
    } }),
    confirm);
}

// Log in or register; both end with a session in localStorage.

import { api, describe, session } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { syncPush } from "../lib/push.js";

const USERNAME = /^[\p{L}\p{N}_.-]{3,32}$/u;

const MODES = {
  login: { title: "登录", button: "登录", path: "/api/auth/login", password: "current-password" },
  register: { title: "注册", button: "注册并开始", path: "/api/auth/register", password: "new-password" },
};

export function renderAuth(main, ctx) {
  let mode = "login";
  const username = h("input", {
    id: "username", name: "username", autocomplete: "username", maxlength: "32", required: true,
    autocapitalize: "off", spellcheck: "false", placeholder: "3-32 个字符",
  });
  const password = h("input", {
    id: "password", name: "password", type: "password", maxlength: "128", required: true,
    autocomplete: MODES.login.password, placeholder: "至少 8 位",
  });
  const error = h("p", { class: "form-error", role: "alert" });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-block btn-lg", text: MODES.login.button });
  const hint = h("p", { class: "field-hint", hidden: true, text: "用户名可以用字母、数字、汉字和 _ . -；密码 8 到 128 位。" });
  const tabs = Object.entries(MODES).map(([key, m]) =>
    h("button", {
      type: "button", role: "tab", class: "tab", text: m.title, "aria-selected": String(key === mode),
      onclick: () => switchTo(key),
    }),
  );

  function switchTo(next) {
    mode = next;
    tabs.forEach((tab, i) => tab.setAttribute("aria-selected", String(Object.keys(MODES)[i] === mode)));
    submit.textContent = MODES[mode].button;
    password.autocomplete = MODES[mode].password;
    hint.hidden = mode !== "register";
    error.textContent = "";
  }

  async function onSubmit(event) {
    event.preventDefault();
    const problem = check(username.value.trim(), password.value);
    if (problem) {
      error.textContent = problem;
      return;
    }
    error.textContent = "";
    submit.disabled = true;
    submit.textContent = mode === "login" ? "登录中…" : "注册中…";
    try {
      const body = await api("POST", MODES[mode].path, { username: username.value.trim(), password: password.value },
        { auth: false });
      session.set({ user: body.user, access_token: body.access_token, refresh_token: body.refresh_token });
      syncPush().catch(() => {}); // a device with notifications on now gets this account's
      ctx.go("/");
    } catch (err) {
      error.textContent = describe(err, messages(mode));
      submit.disabled = false;
      submit.textContent = MODES[mode].button;
    }
  }

  main.replaceChildren(
    h("div", { class: "auth" },
      h("div", { class: "auth-card" },
        h("div", { class: "auth-brand" },
          h("img", { src: "/static/icon.svg", alt: "", class: "auth-logo" }),
          h("h1", { text: "DreamChat" }),
          h("p", { text: "会记得你的 AI 朋友" })),
        h("div", { class: "tabs", role: "tablist" }, tabs),
        h("form", { class: "form", novalidate: true, onsubmit: onSubmit },
          h("label", { class: "field", for: "username" }, h("span", { text: "用户名" }), username),
          h("label", { class: "field", for: "password" }, h("span", { text: "密码" }), password),
          hint, error, submit)),
      h("p", { class: "auth-foot", text: "四级记忆 · 千人千面 · 会主动来找你聊天" })),
  );
  username.focus();
}

function check(username, password) {
  if (!USERNAME.test(username)) return "用户名需要 3 到 32 个字符，可以用字母、数字、汉字和 _ . -。";
  if (password.length < 8 || password.length > 128) return "密码需要 8 到 128 位。";
  return null;
}

function messages(mode) {
  if (mode === "login") return { 401: "用户名或密码不正确。" };
  return {
    403: "暂时不开放注册。",
    409: "这个用户名已经有人用了，换一个吧。",
    422: "用户名需要 3 到 32 个字符（字母、数字、汉字和 _ . -），密码 8 到 128 位。",
  };
}

// Log in or register; both end with a session in localStorage.

import { api, describe, session } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { h } from "../lib/dom.js";
import { keepLoginNotices } from "../lib/protection.js";
import { syncPush } from "../lib/push.js";
import { askBirthYearOnce } from "./protection.js";

const USERNAME = /^[\p{L}\p{N}_.-]{3,32}$/u;

const MODES = {
  login: { title: "登录", button: "登录", path: "/api/auth/login", password: "current-password" },
  register: { title: "注册", button: "注册并开始", path: "/api/auth/register", password: "new-password" },
};

export function renderAuth(main, ctx) {
  const form = new AuthForm(ctx);
  main.replaceChildren(form.page());
  form.username.focus();
}

// The two tabs (登录 / 注册) over one form.
class AuthForm {
  constructor(ctx) {
    const password = limits().password_chars;
    this.ctx = ctx;
    this.mode = "login";
    this.username = h("input", {
      id: "username", name: "username", autocomplete: "username", maxlength: "32", required: true,
      autocapitalize: "off", spellcheck: "false", placeholder: "3-32 个字符",
    });
    this.password = h("input", {
      id: "password", name: "password", type: "password", maxlength: String(password.max), required: true,
      autocomplete: MODES.login.password, placeholder: `至少 ${password.min} 位`,
    });
    this.error = h("p", { class: "form-error", role: "alert" });
    this.submit = h("button", { type: "submit", class: "btn btn-primary btn-block btn-lg", text: MODES.login.button });
    this.hint = h("p", {
      class: "field-hint", hidden: true, text: `用户名可以用字母、数字、汉字和 _ . -；密码 ${password.min} 到 ${password.max} 位。`,
    });
    this.tabs = Object.entries(MODES).map(([key, m]) =>
      h("button", {
        type: "button", role: "tab", class: "tab", text: m.title, "aria-selected": String(key === this.mode),
        onclick: () => this.switchTo(key),
      }),
    );
  }

  switchTo(next) {
    this.mode = next;
    this.tabs.forEach((tab, i) => tab.setAttribute("aria-selected", String(Object.keys(MODES)[i] === next)));
    this.submit.textContent = MODES[next].button;
    this.password.autocomplete = MODES[next].password;
    this.hint.hidden = next !== "register";
    this.error.textContent = "";
  }

  async send() {
    const { mode, username, password, error, submit } = this;
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
      keepLoginNotices(body.user.id, body.notices);  // the AI disclosure: the next chat opened shows it
      syncPush().catch(() => {}); // a device with notifications on now gets this account's
      this.ctx.go("/");
      askBirthYearOnce(body.user.id);
    } catch (err) {
      error.textContent = describe(err, messages(mode));
      submit.disabled = false;
      submit.textContent = MODES[mode].button;
    }
  }

  page() {
    const onSubmit = (event) => {
      event.preventDefault();
      this.send();
    };
    return h("div", { class: "auth" },
      h("div", { class: "auth-card" },
        h("div", { class: "auth-brand" },
          h("img", { src: "/static/icon.svg", alt: "", class: "auth-logo" }),
          h("h1", { text: "DreamChat" }),
          h("p", { text: "会记得你的 AI 朋友" })),
        h("div", { class: "tabs", role: "tablist" }, this.tabs),
        h("form", { class: "form", novalidate: true, onsubmit: onSubmit },
          h("label", { class: "field", for: "username" }, h("span", { text: "用户名" }), this.username),
          h("label", { class: "field", for: "password" }, h("span", { text: "密码" }), this.password),
          this.hint, this.error, this.submit)),
      h("p", { class: "auth-foot", text: "四级记忆 · 千人千面 · 会主动来找你聊天" }));
  }
}

function check(username, password) {
  const { min, max } = limits().password_chars;
  if (!USERNAME.test(username)) return "用户名需要 3 到 32 个字符，可以用字母、数字、汉字和 _ . -。";
  if (password.length < min || password.length > max) return `密码需要 ${min} 到 ${max} 位。`;
  return null;
}

function messages(mode) {
  if (mode === "login") return { 401: "用户名或密码不正确。" };
  return {
    403: "暂时不开放注册。",
    409: "这个用户名已经有人用了，换一个吧。",
    422: `用户名需要 3 到 32 个字符（字母、数字、汉字和 _ . -），密码 ${limits().password_chars.min} 到 ${limits().password_chars.max} 位。`,
  };
}

// Heartbeat settings (messages the AI sends first) and the daily messages each AI friend has scheduled.

import { allPages, del, describe, get, post, put } from "../lib/api.js";
import { config, limits, nightText } from "../lib/config.js";
import { avatar, clear, h, icon, toast } from "../lib/dom.js";
import { canPrompt, installed, isIos, onInstallChange, promptInstall } from "../lib/install.js";
import { PushError, disablePush, enablePush, getPushSettings, pushState, setShowContent } from "../lib/push.js";
import { accountCard } from "./account.js";
import { accountExportCard } from "./data_copy.js";
import { protectionCard } from "./protection.js";
import { myReportsCard } from "./report.js";

const pad = (n) => String(n).padStart(2, "0");

// `focus`: "protection" opens at the 保护设置 (a consent card in the chat links there).
export function renderSettings(main, ctx, focus = null) {
  let alive = true;
  const body = h("div", { class: "page-body" }, h("p", { class: "muted center", text: "加载中…" }));
  main.replaceChildren(
    h("section", { class: "page" },
      h("header", { class: "bar" },
        h("button", { type: "button", class: "icon-btn", title: "返回", onclick: () => history.back() }, icon("back", "返回")),
        h("div", { class: "bar-title" }, h("b", { text: "设置" }))),
      body),
  );
  const cleanups = [];
  Promise.all([allPages("/api/heartbeat/status", "ai_users"), get("/api/profile"), getPushSettings(), pushState(),
    get("/api/profile/protection")]).then(
    ([status, profile, pushSettings, state, protection]) => {
      if (!alive) return;
      const notifications = notificationsCard(pushSettings, state, cleanups);
      const protect = protectionCard(protection);
      clear(body, accountCard(ctx, profile), aboutForm(profile), protect, notifications, prefsForm(status.first.prefs), scheduledList(status.entries),
        myReportsCard(ctx), accountExportCard(ctx.account()));
      if (focus === "protection") protect.scrollIntoView({ block: "start" });
    },
    (error) => alive && clear(body, h("p", { class: "form-error center", text: describe(error) })),
  );
  return () => {
    alive = false;
    cleanups.forEach((cleanup) => cleanup());
  };
}

function hourSelect(id, value) {
  return h("select", { id, name: id },
    Array.from({ length: 24 }, (_, hour) => h("option", { value: String(hour), text: `${pad(hour)}:00`, selected: hour === value })));
}

function numberInput(id, range, value) {
  return h("input", { id, type: "number", min: String(range.min), max: String(range.max), step: "1", inputmode: "numeric", value: String(value) });
}

function prefsFields(prefs) {
  const { night } = config();
  const { daily_cap: cap, quiet_minutes: quiet } = limits();
  const custom = prefs.night_start !== null && prefs.night_end !== null && prefs.night_start !== prefs.night_end;
  return {
    enabled: h("input", { id: "hb-enabled", type: "checkbox", class: "switch", checked: prefs.enabled }),
    custom: h("input", { id: "hb-night-custom", type: "checkbox", class: "switch", checked: custom }),
    night_start: hourSelect("hb-night-start", custom ? prefs.night_start : night.usual.start),
    night_end: hourSelect("hb-night-end", custom ? prefs.night_end : night.usual.end),
    daily_cap: numberInput("hb-cap", cap, prefs.daily_cap),
    quiet_minutes: numberInput("hb-quiet", quiet, prefs.quiet_minutes),
  };
}

// What is wrong with the form, and the field to go back to; null when it can be saved.
function prefsProblem(fields) {
  const { daily_cap: cap, quiet_minutes: quiet } = limits();
  const within = (value, range) => Number.isInteger(value) && value >= range.min && value <= range.max;
  if (!within(Number(fields.daily_cap.value), cap)) {
    return [`每天最多条数要在 ${cap.min} 到 ${cap.max} 之间。`, fields.daily_cap];
  }
  if (!within(Number(fields.quiet_minutes.value), quiet)) {
    return [`安静时间要在 ${quiet.min} 到 ${quiet.max} 分钟之间。`, fields.quiet_minutes];
  }
  if (fields.custom.checked && fields.night_start.value === fields.night_end.value) {
    return ["夜间的开始和结束不能是同一个钟点。", fields.night_start];
  }
  return null;
}

function prefsForm(prefs) {
  const fields = prefsFields(prefs);
  const { night } = config();
  const nightRow = h("div", { class: "field-grid" },
    h("label", { class: "field", for: "hb-night-start" }, h("span", { text: "夜间开始" }), fields.night_start),
    h("label", { class: "field", for: "hb-night-end" }, h("span", { text: "夜间结束" }), fields.night_end));
  const showNight = () => {
    nightRow.hidden = !fields.custom.checked;
  };
  fields.custom.addEventListener("change", showNight);
  showNight();
  const error = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { type: "submit", class: "btn btn-primary btn-lg", text: "保存" });
  const onSubmit = (event) => {
    event.preventDefault();
    savePrefs(fields, error, save);
  };
  return h("form", { class: "form card", novalidate: true, onsubmit: onSubmit, "aria-label": "主动消息设置" },
    h("label", { class: "field field-switch", for: "hb-enabled" },
      h("span", { text: "允许 AI 主动找我" }), fields.enabled,
      h("small", { class: "field-hint", text: "关掉后，所有 AI 朋友都不会再主动发消息（TA 定下的每日消息也不会）。" })),
    h("label", { class: "field field-switch", for: "hb-night-custom" },
      h("span", {}, icon("moon"), " 自定义夜间时段"), fields.custom,
      h("small", { class: "field-hint", text: `夜里 TA 会少打扰你。不自定义时按 TA 的作息：${nightText(night.usual)}，夜猫子 ${nightText(night.night_owl)}。` })),
    nightRow,
    h("div", { class: "field-grid" },
      h("label", { class: "field", for: "hb-cap" }, h("span", { text: "每天最多几条未回复的" }), fields.daily_cap),
      h("label", { class: "field", for: "hb-quiet" }, h("span", { text: "我说话后安静几分钟" }), fields.quiet_minutes)),
    error,
    h("div", { class: "form-actions" }, save));
}

async function savePrefs(fields, error, save) {
  const problem = prefsProblem(fields);
  if (problem) {
    error.textContent = problem[0];
    return problem[1].focus();
  }
  const custom = fields.custom.checked;
  error.textContent = "";
  save.disabled = true;
  try {
    // night_start == night_end means "each AI friend's own rhythm" (the server's usual or night-owl window)
    await post("/api/heartbeat/configure", {
      enabled: fields.enabled.checked, daily_cap: Number(fields.daily_cap.value), quiet_minutes: Number(fields.quiet_minutes.value),
      night_start: custom ? Number(fields.night_start.value) : 0, night_end: custom ? Number(fields.night_end.value) : 0,
    });
    toast("已保存", "ok");
  } catch (err) {
    error.textContent = describe(err);
  } finally {
    save.disabled = false;
  }
}

function scheduledList(entries) {
  const withTimes = entries.filter((entry) => entry.scheduled.length);
  const section = h("section", { class: "card scheduled", "aria-label": "TA 定下的每日消息" },
    h("h2", { class: "card-title", text: "TA 定下的每日消息" }));
  if (!withTimes.length) {
    section.append(h("p", { class: "muted", text: "还没有。聊天时可以请 TA 定个时间，比如「每天 9 点叫我起床」。" }));
    return section;
  }
  for (const entry of withTimes) {
    const list = h("ul", { class: "scheduled-list", "aria-label": entry.name });
    for (const item of entry.scheduled) list.append(scheduledRow(entry, item, list));
    section.append(h("div", { class: "scheduled-friend" },
      h("div", { class: "scheduled-who" }, avatar({ name: entry.name, avatar: entry.avatar }, "sm"), h("b", { text: entry.name })),
      list));
  }
  return section;
}

function scheduledRow(entry, item, list) {
  const time = `${pad(item.hour)}:${pad(item.minute)}`;
  const cancel = h("button", { type: "button", class: "btn btn-ghost btn-danger", text: "取消", "aria-label": `取消 ${time}` });
  const row = h("li", { class: "scheduled-item" },
    h("time", { class: "scheduled-time", text: time }),
    h("span", { class: "scheduled-text", text: item.message_template || "主动来找你" }),
    cancel);
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      await del(`/api/heartbeat/scheduled/${entry.ai_user_id}/${item.hour}/${item.minute}`);
      row.remove();
      if (!list.children.length) list.append(h("li", { class: "muted", text: "已全部取消" }));
      toast(`已取消每天 ${time} 的消息`, "ok");
    } catch (error) {
      cancel.disabled = false;
      toast(describe(error), "error");
    }
  });
  return row;
}

function aboutForm(profile) {
  const text = h("textarea", {
    id: "about-me", name: "about_me", maxlength: "1000", rows: "4", value: profile.about_me || "",
    placeholder: "比如：我叫小林，在杭州做设计，喜欢猫，对芒果过敏。",
  });
  const error = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { type: "submit", class: "btn btn-primary", text: "保存关于我" });
  async function onSubmit(event) {
    event.preventDefault();
    error.textContent = "";
    save.disabled = true;
    try {
      const saved = await put("/api/profile", { about_me: text.value });
      text.value = saved.about_me;
      toast("已保存，每位 AI 朋友都会知道", "ok");
    } catch (err) {
      error.textContent = describe(err, { 422: "关于我最多 1000 字。" });
    } finally {
      save.disabled = false;
    }
  }
  return h("form", { class: "form card", novalidate: true, onsubmit: onSubmit, "aria-label": "关于我" },
    h("label", { class: "field", for: "about-me" },
      h("span", { text: "关于我" }), text,
      h("small", { class: "field-hint", text: "写一次，每位 AI 朋友从认识你起就知道这些。用“我”来写就好。" })),
    error,
    h("div", { class: "form-actions" }, save));
}

const PUSH_HINTS = {
  on: "AI 朋友主动找你、或你离开后才回复时，这台设备会收到通知。正在看的聊天和设了免打扰的好友不会通知。",
  off: "打开后，AI 朋友主动找你、或你离开后才回复时，这台设备会收到通知。",
  denied: "通知被浏览器拦截了。请在浏览器的网站设置里允许 DreamChat 发送通知，再回来打开。",
  unsupported: "这个浏览器不支持网页通知。在 iPhone / iPad 上，请先把 DreamChat 添加到主屏幕，再从主屏幕打开。",
};

function notificationsCard(pushSettings, initialState, cleanups) {
  const device = h("input", { id: "push-device", type: "checkbox", class: "switch" });
  const content = h("input", { id: "push-content", type: "checkbox", class: "switch", checked: pushSettings.show_content });
  const deviceHint = h("small", { class: "field-hint", id: "push-device-hint" });
  const show = (state) => {
    device.checked = state === "on";
    device.disabled = state === "unsupported" || state === "denied";
    deviceHint.textContent = PUSH_HINTS[state];
  };
  show(initialState);
  device.addEventListener("change", async () => {
    const wanted = device.checked;
    device.disabled = true;
    if (wanted) deviceHint.textContent = "正在开启通知…";
    try {
      const state = wanted ? await enablePush() : await disablePush();
      show(state);
      if (wanted && state === "on") toast("这台设备会收到通知了", "ok");
    } catch (error) {
      show(await pushState());
      const said = error instanceof PushError ? error.message : describe(error, { 503: "服务器还没有开启推送通知。" });
      deviceHint.textContent = said; // stays beside the switch, which shows the real state: off
      toast(said, "error");
    } finally {
      if (!["unsupported", "denied"].includes(await pushState())) device.disabled = false;
    }
  });
  content.addEventListener("change", async () => {
    try {
      const saved = await setShowContent(content.checked);
      content.checked = saved.show_content;
      toast(saved.show_content ? "通知会显示消息内容" : "通知只显示“发来一条消息”", "ok");
    } catch (error) {
      content.checked = !content.checked;
      toast(describe(error), "error");
    }
  });
  return h("section", { class: "form card", "aria-label": "通知" },
    h("h2", { class: "card-title", text: "通知" }),
    installRow(cleanups),
    h("label", { class: "field field-switch", for: "push-device" },
      h("span", { text: "在这台设备上接收通知" }), device, deviceHint),
    h("label", { class: "field field-switch", for: "push-content" },
      h("span", { text: "通知显示消息内容" }), content,
      h("small", { class: "field-hint", text: "关掉后，锁屏上只显示“小梦 发来一条消息”，不显示内容。对所有设备有效。" })));
}

function installRow(cleanups) {
  const row = h("div", { class: "field install-row" });
  const render = () => {
    if (installed()) {
      clear(row, h("span", { text: "已安装到主屏幕" }), h("small", { class: "field-hint", text: "从主屏幕打开，像一个 App 一样使用。" }));
    } else if (canPrompt()) {
      const button = h("button", { type: "button", class: "btn btn-primary", text: "安装到主屏幕", id: "install-app" });
      button.addEventListener("click", () => promptInstall().then(render));
      clear(row, h("span", { text: "安装 DreamChat" }), button,
        h("small", { class: "field-hint", text: "安装后从主屏幕打开，离线时也能打开，并能收到通知。" }));
    } else {
      const how = isIos()
        ? "在 Safari 里点「分享」→「添加到主屏幕」，再从主屏幕打开（iOS 16.4 起，安装后才能收到通知）。"
        : "在浏览器菜单里选「安装应用」或「添加到主屏幕」。";
      clear(row, h("span", { text: "安装 DreamChat" }), h("small", { class: "field-hint", text: how }));
    }
  };
  render();
  cleanups.push(onInstallChange(render));
  return row;
}

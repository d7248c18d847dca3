// A copy of one's data: 导出记忆 / 导入记忆 in the memory view, 导出我的全部数据 in settings.
// Exports are downloads (the server streams them); an import sends a memory export back.

import { ApiError, api, describe, raw } from "../lib/api.js";
import { limits } from "../lib/config.js";
import { confirmButton, h, toast } from "../lib/dom.js";

// the server's limit, in the MB people read
const tooBig = () => `文件太大了（最多 ${Math.floor(limits().memory_import_bytes / (1024 * 1024))} MB）。`;

// Fetch a download with the bearer token and hand it to the browser as a file.
export async function download(path, name) {
  const response = await raw("GET", path);
  const url = URL.createObjectURL(await response.blob());
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// 导出记忆: everything this AI friend remembers of the person, as one JSON file.
export function memoryExportButton(id) {
  return h("button", {
    type: "button",
    class: "btn btn-soft btn-sm",
    title: "下载 TA 关于你的全部记忆和聊天记录（JSON）",
    text: "导出记忆",
    onclick: async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      try {
        await download(`/api/memory/${id}/export`, `dreamchat-memory-${id}.json`);
        toast("记忆已导出", "ok");
      } catch (error) {
        toast(describe(error), "error");
      } finally {
        button.disabled = false;
      }
    },
  });
}

// 导入记忆: a memory export read back into this pair; a pair with memories asks before replacing them.
export function memoryImportButton(id, onImported) {
  const input = h("input", { type: "file", accept: ".json,application/json", class: "sr-only", id: "memory-file" });
  const label = h("label", { class: "btn btn-soft btn-sm", for: "memory-file", title: "从导出的记忆文件恢复", text: "导入记忆" });
  const panel = h("div", { class: "memory-import", "aria-live": "polite", hidden: true });

  async function send(doc, replace) {
    const path = `/api/ai-users/${id}/memory/import${replace ? "?replace=true" : ""}`;
    try {
      const { imported } = await api("POST", path, doc);
      panel.hidden = true;
      toast(`导入完成：${imported.messages} 条聊天记录，${imported.mid_term} 条中期记忆，${imported.long_term} 条长期记忆`, "ok");
      onImported();
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && !replace) return askToReplace(doc);
      panel.hidden = true;
      toast(describe(error, { 422: `这个文件不能导入：${error.message}`, 413: tooBig() }), "error");
    }
  }

  function askToReplace(doc) {
    panel.hidden = false;
    panel.replaceChildren(
      h("p", { text: "TA 已经有关于你的记忆了。替换会先清除现有的记忆和聊天记录，再导入文件里的。" }),
      h("div", { class: "form-actions" },
        confirmButton("替换现有记忆", "确定替换？", () => send(doc, true)),
        h("button", { type: "button", class: "btn btn-ghost", text: "取消", onclick: () => { panel.hidden = true; } })),
    );
  }

  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    if (file.size > limits().memory_import_bytes) return toast(tooBig(), "error");
    let doc;
    try {
      doc = JSON.parse(await file.text());
    } catch {
      return toast("这不是记忆导出文件（JSON）。", "error");
    }
    await send(doc, false);
  });
  return { controls: [label, input], panel };
}

// 导出我的全部数据 (settings): the account, 关于我 and every AI friend's memory, one JSON file.
export function accountExportCard(account) {
  const button = h("button", { type: "button", class: "btn btn-soft", text: "导出我的全部数据" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await download("/api/auth/user/export", `dreamchat-${account?.username || "data"}.json`);
      toast("数据已导出", "ok");
    } catch (error) {
      toast(describe(error), "error");
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "card data-export", "aria-label": "我的数据" },
    h("div", {},
      h("b", { text: "我的数据" }),
      h("p", { class: "field-hint", text: "下载账号、关于我、每位 AI 朋友的全部记忆和聊天记录（JSON）。不含密码和登录凭证。" })),
    h("div", { class: "form-actions" }, button));
}

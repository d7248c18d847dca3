// 审计: every operator action and read, newest first, a page at a time (ids only, never content).
// 报告: the crisis referral report of a year (SB 243's annual numbers), counts per month, no ids, no text.

import { get } from "../lib/api.js";
import { clear, h } from "../lib/dom.js";
import { accountLink, fail, PagedList, screenHead, stamp } from "./admin_common.js";

// The audit's action names (services' `OperatorService.record`); one not listed shows as it is.
const ACTIONS = {
  "report.read": "查看举报",
  "report.resolve": "处理举报",
  "report.takedown": "下架角色",
  "report.dismiss": "驳回举报",
  "ai_user.restore": "恢复角色",
  "account.read": "查看账号",
  "account.suspend": "停用账号",
  "account.lift": "解除停用",
  "escalation.read": "查看危机对话",
  "escalation.takeover": "接管对话",
  "escalation.message": "发送工作人员消息",
  "escalation.release": "交还对话",
};

export function renderAudit(body) {
  const list = new PagedList("/api/admin/audit?limit=50", "entries", auditRow, "还没有审计记录。");
  clear(body, screenHead("审计"),
    h("p", { class: "field-hint", text: "每次运营操作、每次查看用户的消息都会记录在这里：谁、做了什么、何时、涉及哪一对；不记录内容。" }),
    list.el);
  list.load();
}

function auditRow(entry) {
  return h("li", { class: "admin-row card audit-row", dataset: { id: entry.id } },
    h("div", { class: "admin-row-top" },
      h("b", { text: ACTIONS[entry.action] || entry.action }),
      h("span", { class: "admin-row-time", text: stamp(entry.at) })),
    h("small", { class: "muted" },
      `${entry.operator} · `,
      entry.target ? `对象 ${entry.target} · ` : "",
      entry.account_id ? ["账号 ", accountLink(entry.account_id), " · "] : "",
      entry.ai_user_id ? `角色 ${entry.ai_user_id}` : ""));
}

const COLUMNS = [
  ["protocol_fired", "危机协议触发"],
  ["help_lines_shown", "显示求助热线"],
  ["escalations_opened", "开启危机记录"],
  ["taken_over", "人工接管"],
];

export function renderReferrals(body) {
  let alive = true;
  const thisYear = new Date().getUTCFullYear();
  const table = h("div", { class: "referral-holder" });
  const year = h("select", { id: "referral-year", "aria-label": "年份" },
    [0, 1, 2].map((back) => h("option", { value: String(thisYear - back), text: `${thisYear - back} 年` })));
  const load = async () => {
    clear(table, h("p", { class: "muted center", text: "加载中…" }));
    try {
      const report = await get(`/api/admin/reports/crisis-referrals?year=${year.value}`);
      if (alive) clear(table, referralTable(report));
    } catch (error) {
      if (alive) fail(table, error);
    }
  };
  year.addEventListener("change", load);
  clear(body, screenHead("危机转介年度报告", null, year),
    h("p", { class: "field-hint", text: "按月（UTC）统计，只有数字，不含任何用户或对话信息，可直接用于公开报告。" }),
    table);
  load();
  return () => {
    alive = false;
  };
}

function referralTable(report) {
  const months = report.months || [];
  const total = (key) => months.reduce((sum, month) => sum + (Number(month[key]) || 0), 0);
  return h("div", { class: "table-scroll" },
    h("table", { class: "referral-table", "aria-label": `${report.year} 年危机转介` },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "月份" }), COLUMNS.map(([, label]) => h("th", { scope: "col", text: label })))),
      h("tbody", {}, months.map((month) => h("tr", {},
        h("th", { scope: "row", text: month.month }),
        COLUMNS.map(([key]) => h("td", { text: String(month[key] ?? 0) }))))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row", text: "全年" }), COLUMNS.map(([key]) => h("td", { text: String(total(key)) }))))));
}

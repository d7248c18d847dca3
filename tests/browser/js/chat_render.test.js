// What the chat draws around the messages (shared/dreamchat/web/views/chat_render.js, lib/help_lines.js): the
// crisis card, in-app notices, the AI line; and which help lines become links.

import { telHref, webHref } from "/static/lib/help_lines.js";
import { aiDisclosure, crisisCard, rows } from "/static/views/chat_render.js";
import { assert, equal, test } from "./harness.js";

const LINES = [{ name: "热线", phone: "010-8295 1332", url: "https://example.org/help", hours: "24 小时" }];
const msg = (id, role, extra = {}) => ({ id, role, content: id, timestamp: 1000, topic_id: "t1", ...extra });
const kinds = (nodes) => nodes.map((node) => node.className.split(" ")[0]);

test("a message history marks as a crisis is followed by a card, one per marked message", () => {
  const nodes = rows([
    msg("a", "user", { safety: "crisis" }), msg("b", "assistant"), msg("c", "user", { safety: "crisis" }),
  ], null, { help: LINES });
  equal(kinds(nodes), ["stamp", "msg", "crisis-card", "msg", "msg", "crisis-card"]);
});

test("a live safety event shows its card once per topic: the protocol repeats it on every later turn", () => {
  const items = [
    msg("a", "user", { crisis: LINES }), msg("b", "assistant"), msg("c", "user", { crisis: LINES }),
    { id: "d1", divider: "这个话题聊完了" }, msg("e", "user", { crisis: LINES, topic_id: "t2" }),
  ];
  const nodes = rows(items, null);
  equal(nodes.filter((node) => node.classList.contains("crisis-card")).length, 2);
  equal(kinds(nodes).slice(0, 3), ["stamp", "msg", "crisis-card"]);
});

test("the card's lines are the stream's own, else those kept for history", () => {
  const live = rows([msg("a", "user", { crisis: [{ name: "流里的", phone: "", url: "", hours: "" }] })], null, { help: LINES });
  equal(live[2].querySelector(".crisis-name").textContent, "流里的");
  const kept = rows([msg("a", "user", { safety: "crisis" })], null, { help: LINES });
  equal(kept[2].querySelector(".crisis-name").textContent, "热线");
});

test("after a card or a notice the AI's next message starts a run again, with its avatar", () => {
  const aiUser = { name: "小梦", avatar: "" };
  const nodes = rows([
    msg("a", "assistant"), { id: "n1", notice: "休息一下", kind: "break" }, msg("b", "assistant"),
  ], aiUser);
  equal(kinds(nodes), ["stamp", "msg", "system-notice", "msg"]);
  assert(nodes[3].classList.contains("msg-first"), "the reply after the notice shows the avatar");
  equal(nodes[2].textContent, "休息一下");
  equal(nodes[2].getAttribute("role"), "note");
});

test("each phone is a tel: link and each site opens in a new tab without access to this page", () => {
  const card = crisisCard(LINES);
  const call = card.querySelector("a.crisis-call");
  equal(call.getAttribute("href"), "tel:01082951332");
  assert(call.getAttribute("aria-label").includes("010-8295 1332"));
  const site = card.querySelector("a.crisis-web");
  equal([site.getAttribute("href"), site.target], ["https://example.org/help", "_blank"]);
  assert(site.rel.split(" ").includes("noopener"));
  assert(card.getAttribute("aria-labelledby") === card.querySelector("h3").id, "the card is named by its heading");
});

test("a line without a number or a site shows no link, and nothing but http(s) becomes one", () => {
  const card = crisisCard([
    { name: "当地急救电话", phone: "", url: "", hours: "24小时" },
    { name: "坏的", phone: "拨打 110", url: "javascript:alert(1)", hours: "" },
  ]);
  equal(card.querySelectorAll("a").length, 0);
  equal(card.querySelector(".crisis-phone").textContent, "拨打 110");
  equal(webHref("javascript:alert(1)"), null);
  equal(webHref("https://988lifeline.org"), "https://988lifeline.org/");
  equal([telHref("988"), telHref("+1 (800) 273-8255"), telHref(""), telHref("请拨 120")],
    ["tel:988", "tel:+18002738255", null, null]);
});

test("the line at the top says who is on the other side", () => {
  const text = aiDisclosure({ name: "小梦" }).map((node) => node.textContent).join(" ");
  equal(text, "AI 小梦 是 AI，不是真人。TA 的每条消息都由 AI 生成。");
});

test("a staff message is labelled 工作人员, never drawn as the AI: not its bubble, name or avatar", () => {
  const aiUser = { name: "小梦", avatar: "🌙" };
  const nodes = rows([msg("a", "assistant"), msg("s1", "staff"), msg("s2", "staff"), msg("b", "assistant")], aiUser);
  equal(kinds(nodes), ["stamp", "msg", "msg", "msg", "msg"]);
  const [staff, next] = [nodes[2], nodes[3]];
  assert(staff.classList.contains("msg-staff") && !staff.classList.contains("msg-ai"), "its own kind of row");
  equal(staff.querySelector(".staff-tag").textContent, "工作人员 · DreamChat");
  equal(staff.querySelector(".avatar").textContent, "工");
  assert(!staff.textContent.includes("小梦") && !staff.textContent.includes("🌙"), "nothing of the AI's");
  assert(!next.querySelector(".staff-tag"), "a run of staff messages is labelled once");
  assert(nodes[4].classList.contains("msg-first"), "the AI after staff starts a run again, with its avatar");
  equal(nodes[4].querySelector(".avatar").textContent, "🌙");
});

test("a notice of kind staff is a system line saying a person from DreamChat is there", () => {
  const nodes = rows([msg("a", "user"), { id: "n1", notice: "工作人员正在陪你…", kind: "staff" }], null);
  const notice = nodes[2];
  assert(notice.classList.contains("system-notice") && notice.classList.contains("notice-staff"));
  equal(notice.querySelector(".staff-label").textContent, "工作人员");
  equal(notice.getAttribute("role"), "note");
  assert(!rows([{ id: "n2", notice: "休息一下", kind: "break" }], null)[0].classList.contains("notice-staff"));
});

// The chat's History (shared/dreamchat/web/views/chat_history.js): the messages a chat shows, as data.

import { History } from "/static/views/chat_history.js";
import { equal, test } from "./harness.js";

const stored = (id, role, content) => ({ id, role, content, timestamp: 1 });

test("a stored message gives the person's local copy its id instead of showing it twice", () => {
  const history = new History();
  const local = history.addLocal("你好", 1);
  equal(local.local, true);
  equal(history.merge([stored("m1", "user", "你好"), stored("m2", "assistant", "嗨")]), true);
  equal(history.items.map((m) => [m.id, m.content, m.local]), [["m1", "你好", false], ["m2", "嗨", undefined]]);
  equal(history.items[0], local, "the same object, so what points at it still does");
  equal(history.merge([stored("m1", "user", "你好")]), false);
});

test("an older page goes first and counts only what was new", () => {
  const history = new History();
  history.merge([stored("m3", "user", "三")]);
  equal(history.prepend([stored("m1", "user", "一"), stored("m2", "user", "二"), stored("m3", "user", "三")]), 2);
  equal(history.items.map((m) => m.id), ["m1", "m2", "m3"]);
});

test("the first and last stored messages skip local copies and dividers", () => {
  const history = new History();
  history.addLocal("还没存", 1);
  history.merge([stored("m1", "user", "一"), stored("m2", "assistant", "二")]);
  history.addDivider("这个话题聊完了");
  history.addLocal("也还没存", 2);
  equal(history.firstStored().id, "m1");
  equal(history.lastStored().id, "m2");
  equal(new History().lastStored(), null);
});

test("a reply shown from the stream is not added twice", () => {
  const history = new History();
  history.addReply({ message_id: "m1", content: "嗨", timestamp: 1 });
  history.addReply({ message_id: "m1", content: "嗨", timestamp: 1 });
  equal(history.items, [{ id: "m1", role: "assistant", content: "嗨", timestamp: 1, kind: "chat" }]);
});

test("held messages are drawn last, where they will be stored", () => {
  const history = new History();
  const held = history.addLocal("等一下再发", 1);
  history.merge([stored("m1", "assistant", "回复")]);
  equal(history.ordered([held]).map((m) => m.content), ["回复", "等一下再发"]);
  history.moveLast(held);
  equal(history.items.at(-1), held);
  history.remove(held);
  equal(history.items.length, 1);
});

test("only the person's own message can be the unanswered one", () => {
  const history = new History();
  history.merge([stored("m1", "user", "在吗"), stored("m2", "assistant", "在")]);
  equal(history.unanswered("m1").id, "m1");
  equal(history.unanswered("m2"), null);
  equal(history.unanswered(null), null);
});

test("an in-app notice is shown where it arrived but is never taken for a stored message", () => {
  const history = new History();
  history.merge([stored("m1", "assistant", "嗨")]);
  history.addNotice("休息一下", "break");
  equal(history.items.at(-1).notice, "休息一下");
  equal(history.lastStored().id, "m1");
  const onlyNotice = new History();
  onlyNotice.addNotice("休息一下", "break");
  equal(onlyNotice.firstStored(), null);
});

// The protections' pure helpers (shared/dreamchat/web/lib/protection.js): the card a refusal becomes, the
// fields a save sends, the login notices shown once, the birth year asked once.

import { birthYearAsked, blockedNotice, changedFields, keepLoginNotices, markBirthYearAsked, takeLoginNotices }
  from "/static/lib/protection.js";
import { equal, test } from "./harness.js";

test("a protection's refusal becomes a card of its kind; any other refusal does not", () => {
  equal(blockedNotice({ status: 403, code: "daily_limit" }).kind, "daily_limit");
  equal(blockedNotice({ status: 403, code: "guardian_consent_required" }).kind, "guardian_consent_required");
  equal(blockedNotice({ status: 403, code: "minor_protection" }).text.includes("未成年人模式"), true);
  equal(blockedNotice({ status: 403, code: "forbidden" }), null);
  equal(blockedNotice(null), null);
});

test("a save names only the fields that changed", () => {
  const before = { birth_year: 1990, minor_mode: false, emergency_contact: { name: "李明", phone: "138" }, daily_minutes: null };
  equal(changedFields(before, { ...before }), {});
  equal(changedFields(before, { ...before, birth_year: 1991, daily_minutes: 30 }), { birth_year: 1991, daily_minutes: 30 });
  equal(changedFields(before, { ...before, emergency_contact: null }), { emergency_contact: null });
});

test("the login's notices are shown once, and only ones with words", () => {
  keepLoginNotices("acc-1", [{ kind: "ai_disclosure", text: "对方是 AI" }, { kind: "x" }]);
  equal(takeLoginNotices("acc-1"), [{ kind: "ai_disclosure", text: "对方是 AI" }]);
  equal(takeLoginNotices("acc-1"), []);
  equal(takeLoginNotices("acc-2"), []);
});

test("the birth year is asked once per account", () => {
  localStorage.clear();
  equal(birthYearAsked("acc-1"), false);
  markBirthYearAsked("acc-1");
  equal(birthYearAsked("acc-1"), true);
  equal(birthYearAsked("acc-2"), false);
});

// The person's protections as the client shows them (issue 38): the words of the cards a refusal becomes, the
// AI disclosure a login carries until the next chat shows it, and whether the birth year was asked on this
// device. No DOM here; the cards are drawn by views/chat_render.js, the settings by views/protection.js.

// A chat refused for a protection (403 code) becomes a system card with these words, never an AI bubble.
export const BLOCKED = {
  minor_protection: "未成年人模式下不能和这个角色聊天（TA 被设定为恋爱或亲密关系的角色）。",
  guardian_consent_required: "未成年人需要监护人同意后才能使用陪伴聊天。请在「保护设置」里记录监护人的同意。",
  daily_limit: "今天的使用时间已经用完了，明天再来吧。发生危机时仍然可以向我们求助。",
};

// The card for a refused turn, or null when the refusal is not a protection's.
export function blockedNotice(error) {
  const text = error && BLOCKED[error.code];
  return text ? { kind: error.code, text } : null;
}

const noticesKey = (accountId) => `dreamchat.login-notices.${accountId}`;
const askedKey = (accountId) => `dreamchat.birth-year-asked.${accountId}`;

// The login response's notices wait (this tab) until a chat or the friends screen shows them, once.
export function keepLoginNotices(accountId, notices) {
  const kept = (Array.isArray(notices) ? notices : []).filter((n) => n && n.text);
  if (kept.length) sessionStorage.setItem(noticesKey(accountId), JSON.stringify(kept));
}

export function takeLoginNotices(accountId) {
  const key = noticesKey(accountId);
  let notices = [];
  try {
    notices = JSON.parse(sessionStorage.getItem(key) || "[]");
  } catch {
    notices = [];
  }
  sessionStorage.removeItem(key);
  return Array.isArray(notices) ? notices : [];
}

// The birth year is asked once per account and device, answered or skipped: never a nag.
export function birthYearAsked(accountId) {
  return localStorage.getItem(askedKey(accountId)) === "1";
}

export function markBirthYearAsked(accountId) {
  localStorage.setItem(askedKey(accountId), "1");
}

// The fields of a PUT: only those whose value differs from what the server has.
export function changedFields(before, after) {
  const changed = {};
  for (const [name, value] of Object.entries(after)) {
    if (JSON.stringify(value) !== JSON.stringify(before[name] ?? null)) changed[name] = value;
  }
  return changed;
}

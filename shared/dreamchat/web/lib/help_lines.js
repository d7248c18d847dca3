// The help lines of the crisis card. The server's table is the source: they come with a chat stream's `safety`
// event. History marks a message (`safety: "crisis"`) without repeating them, so the lines last received are kept
// per account, for the card to show after a reload; logging out forgets them with the drafts.

const PREFIX = "dreamchat.help.";

// Only until this device has received the server's own lines (a card in history, seen on a new device): the
// mainland lines of the server's default table (shared/dreamchat/data/help_lines.json, where their sources are).
export const FALLBACK_LINES = [
  { name: "全国统一心理援助热线（中国大陆）", phone: "12356", url: "", hours: "每条热线每天不少于18小时，多地24小时" },
  { name: "110 报警（有人有生命危险时）", phone: "110", url: "", hours: "24小时" },
  { name: "120 医疗急救", phone: "120", url: "", hours: "24小时" },
];

export function rememberHelpLines(accountId, resources) {
  if (!Array.isArray(resources) || !resources.length) return;
  try {
    localStorage.setItem(`${PREFIX}${accountId}`, JSON.stringify(resources));
  } catch {
    // storage full or disabled: the card in this page still has them
  }
}

export function helpLines(accountId) {
  try {
    const kept = JSON.parse(localStorage.getItem(`${PREFIX}${accountId}`));
    return Array.isArray(kept) && kept.length ? kept : FALLBACK_LINES;
  } catch {
    return FALLBACK_LINES;
  }
}

export function forgetHelpLines(accountId) {
  localStorage.removeItem(`${PREFIX}${accountId}`);
}

// A phone number as a tel: link (digits, +, and the separators dialers accept); null when there is none.
export function telHref(phone) {
  const number = String(phone || "").replace(/[\s()（）-]/g, "");
  return /^\+?[0-9*#]{2,20}$/.test(number) ? `tel:${number}` : null;
}

// Only an http(s) address becomes a link: the table is the operator's, but a link is still never javascript:.
export function webHref(url) {
  try {
    const parsed = new URL(String(url || ""));
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

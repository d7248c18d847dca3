// 保护设置 (issue 38): birth year and minors' mode, a guardian's consent, the daily minutes, an emergency contact
// (suggested to people over 60; never shown to the AI). A save sends only the fields that changed; the server
// decides what a person under 18 may change and answers 422 otherwise. Also the one-time birth-year prompt.

import { describe, get, put } from "../lib/api.js";
import { h, toast } from "../lib/dom.js";
import { birthYearAsked, changedFields, markBirthYearAsked } from "../lib/protection.js";

const PROTECTION = "/api/profile/protection";
const EARLIEST_YEAR = 1900;

const ERRORS = {
  422: `出生年份要在 ${EARLIEST_YEAR} 年到今年之间；未满 18 岁时不能关闭未成年人模式、不能改早出生年份，也不能增加每日时长。`,
};

// What the form holds, in the shape of the PUT body.
function formValues(fields) {
  const year = fields.birth_year.value.trim();
  const minutes = fields.daily_minutes.value.trim();
  const contactName = fields.contact_name.value.trim();
  const contactPhone = fields.contact_phone.value.trim();
  return {
    birth_year: year ? Number(year) : null,
    minor_mode: fields.minor_mode.checked,
    guardian_consent: fields.guardian_consent.checked,
    guardian_name: fields.guardian_consent.checked ? fields.guardian_name.value.trim() || null : null,
    daily_minutes: minutes ? Number(minutes) : null,
    emergency_contact: contactName || contactPhone ? { name: contactName, phone: contactPhone } : null,
  };
}

function shownValues(p) {
  return {
    birth_year: p.birth_year, minor_mode: p.minor, guardian_consent: p.guardian_consent,
    guardian_name: p.guardian_consent ? p.guardian_name : null, daily_minutes: p.daily_minutes,
    emergency_contact: p.emergency_contact ? { name: p.emergency_contact.name, phone: p.emergency_contact.phone } : null,
  };
}

// A person under 18 is in minors' mode by birth year: the switch shows it on and cannot turn it off.
function underAge(p, year) {
  return p.minor && !p.minor_mode && Number.isInteger(year) && new Date().getFullYear() - year < 18;
}

function protectionParts() {
  return {
    fields: {
      birth_year: h("input", { id: "prot-birth-year", type: "number", inputmode: "numeric", min: String(EARLIEST_YEAR), placeholder: "例如 1990" }),
      minor_mode: h("input", { id: "prot-minor-mode", type: "checkbox", class: "switch" }),
      guardian_consent: h("input", { id: "prot-consent", type: "checkbox" }),
      guardian_name: h("input", { id: "prot-guardian-name", type: "text", maxlength: "40", placeholder: "监护人姓名" }),
      daily_minutes: h("input", { id: "prot-daily-minutes", type: "number", inputmode: "numeric", min: "1", max: "1440" }),
      contact_name: h("input", { id: "prot-contact-name", type: "text", maxlength: "40", placeholder: "姓名" }),
      contact_phone: h("input", { id: "prot-contact-phone", type: "tel", maxlength: "40", placeholder: "电话" }),
    },
    status: h("p", { class: "field-hint prot-status", id: "prot-status" }),
    minorHint: h("small", { class: "field-hint", id: "prot-minor-hint" }),
    contactHint: h("p", { class: "notice notice-info prot-contact-suggest", id: "prot-contact-suggest", hidden: true,
      text: "建议 60 岁以上的朋友登记一位紧急联系人。TA 只在危机时由工作人员联系，AI 永远看不到。" }),
    error: h("p", { class: "form-error", role: "alert", id: "prot-error" }),
    save: h("button", { type: "submit", class: "btn btn-primary", text: "保存保护设置" }),
  };
}

// What the server holds now, shown in the form.
function showProtection({ fields, minorHint, contactHint, status }, p) {
  fields.birth_year.value = p.birth_year ?? "";
  fields.minor_mode.checked = p.minor;
  const locked = underAge(p, p.birth_year);
  fields.minor_mode.disabled = locked;
  minorHint.textContent = locked
    ? "按出生年份你还未满 18 岁，未成年人模式会一直开着，满 18 岁后才能关闭。"
    : "开启后：不能和恋爱类角色聊天、每天有使用时长、每 30 分钟提醒休息、22:00–08:00 不主动发消息。";
  fields.guardian_consent.checked = p.guardian_consent;
  fields.guardian_name.value = p.guardian_name || "";
  fields.daily_minutes.value = p.daily_minutes ?? "";
  fields.daily_minutes.placeholder = `默认 ${p.limits?.daily_minutes ?? 60}`;
  fields.contact_name.value = p.emergency_contact?.name || "";
  fields.contact_phone.value = p.emergency_contact?.phone || "";
  contactHint.hidden = !p.suggest_emergency_contact;
  status.textContent = p.minor
    ? `未成年人模式已开启${p.limits?.guardian_consent_required ? "，需要监护人同意后才能聊天" : ""}。`
    : "未开启未成年人模式。";
}

// A consent names its guardian, a name alone gives the consent, and withdrawing it names no one.
function withConsent(changes, guardianName) {
  if (changes.guardian_consent === false) delete changes.guardian_name;
  if (changes.guardian_consent && !changes.guardian_name) changes.guardian_name = guardianName.trim() || null;
  if (changes.guardian_name && changes.guardian_consent === undefined) changes.guardian_consent = true;
  return changes;
}

function protectionForm({ fields, status, minorHint, contactHint, error, save }, onSubmit) {
  return h("form", { class: "form card protection-card", id: "protection", novalidate: true, onsubmit: onSubmit, "aria-label": "保护设置" },
    h("h2", { class: "card-title", text: "保护设置" }),
    status,
    h("label", { class: "field", for: "prot-birth-year" }, h("span", { text: "出生年份" }), fields.birth_year,
      h("small", { class: "field-hint", text: "只用来判断是否需要未成年人保护和紧急联系人建议。" })),
    h("label", { class: "field field-switch", for: "prot-minor-mode" }, h("span", { text: "未成年人模式" }), fields.minor_mode, minorHint),
    h("label", { class: "check", for: "prot-consent" }, fields.guardian_consent, h("span", { text: "监护人已同意我使用陪伴聊天" })),
    h("label", { class: "field", for: "prot-guardian-name" }, h("span", { text: "监护人姓名" }), fields.guardian_name),
    h("label", { class: "field", for: "prot-daily-minutes" }, h("span", { text: "每天最多使用（分钟，未成年人模式）" }), fields.daily_minutes),
    contactHint,
    h("div", { class: "field-grid" },
      h("label", { class: "field", for: "prot-contact-name" }, h("span", { text: "紧急联系人" }), fields.contact_name),
      h("label", { class: "field", for: "prot-contact-phone" }, h("span", { text: "联系电话" }), fields.contact_phone)),
    error,
    h("div", { class: "form-actions" }, save));
}

export function protectionCard(initial) {
  let saved = initial;
  const parts = protectionParts();
  const { fields, error, save } = parts;
  showProtection(parts, saved);
  const onSubmit = async (event) => {
    event.preventDefault();
    const changes = withConsent(changedFields(shownValues(saved), formValues(fields)), fields.guardian_name.value);
    if (changes.guardian_consent && !changes.guardian_name) {
      error.textContent = "请填写监护人的姓名。";
      return fields.guardian_name.focus();
    }
    if (!Object.keys(changes).length) return toast("没有需要保存的修改");
    error.textContent = "";
    save.disabled = true;
    try {
      saved = await put(PROTECTION, changes);
      showProtection(parts, saved);
      toast("保护设置已保存", "ok");
    } catch (err) {
      error.textContent = describe(err, ERRORS);
    } finally {
      save.disabled = false;
    }
  };
  return protectionForm(parts, onSubmit);
}

// First use: the birth year, asked once per account and device (optional; 跳过 also counts as asked).
export async function askBirthYearOnce(accountId) {
  if (birthYearAsked(accountId)) return;
  let current;
  try {
    current = await get(PROTECTION);
  } catch {
    return;  // asked another time
  }
  if (current.birth_year !== null && current.birth_year !== undefined) return markBirthYearAsked(accountId);
  const year = h("input", { id: "first-birth-year", type: "number", inputmode: "numeric", min: String(EARLIEST_YEAR), placeholder: "例如 1990" });
  const error = h("p", { class: "form-error", role: "alert" });
  const dialog = h("dialog", { class: "dialog birth-year-dialog" },
    h("form", { method: "dialog", class: "dialog-body" },
      h("h3", { text: "你是哪一年出生的？" }),
      h("p", { class: "muted", text: "可以不填。未满 18 岁会开启未成年人保护，60 岁以上会建议登记紧急联系人。以后可以在「设置 › 保护设置」里修改。" }),
      h("label", { class: "field", for: "first-birth-year" }, h("span", { text: "出生年份" }), year),
      error,
      h("div", { class: "dialog-actions" },
        h("button", { value: "skip", class: "btn btn-soft", text: "跳过" }),
        h("button", { value: "save", class: "btn btn-primary", text: "保存" }))));
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "save" || !year.value.trim()) {
      markBirthYearAsked(accountId);
      dialog.remove();
      return;
    }
    try {
      await put(PROTECTION, { birth_year: Number(year.value) });
      markBirthYearAsked(accountId);
      dialog.remove();
      toast("已保存出生年份", "ok");
    } catch (err) {
      error.textContent = describe(err, ERRORS);
      dialog.returnValue = "";
      dialog.showModal();
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}

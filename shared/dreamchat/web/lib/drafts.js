// What the person has typed but not yet had accepted by the server, per account and AI user.
// It survives a lost connection, a reload and a closed tab; only an accepted send clears it.

const PREFIX = "dreamchat.draft.";

const keyOf = (accountId, aiUserId) => `${PREFIX}${accountId}.${aiUserId}`;

export function loadDraft(accountId, aiUserId) {
  try {
    return localStorage.getItem(keyOf(accountId, aiUserId)) || "";
  } catch {
    return "";
  }
}

export function saveDraft(accountId, aiUserId, text) {
  try {
    if (text) localStorage.setItem(keyOf(accountId, aiUserId), text);
    else localStorage.removeItem(keyOf(accountId, aiUserId));
  } catch {
    // storage full or disabled: the text is still in the text box
  }
}

export function clearDrafts(accountId) {
  const prefix = `${PREFIX}${accountId}.`;
  for (const key of Object.keys(localStorage)) {
    if (key.startsWith(prefix)) localStorage.removeItem(key);
  }
}

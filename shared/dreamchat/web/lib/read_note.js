// 已读不回 explained (issue 40): when the AI first reads a message without replying, one line in the chat says it
// may, as a person may; shown at each 已读不回 until the person taps 知道了, then never again on this device
// (per account, in localStorage).

const PREFIX = "dreamchat.readNoteDismissed.";

export const READ_NOTE = "TA 看了你的消息，暂时没有回复——就像真人一样，有时会已读不回。";
export const READ_NOTE_KIND = "read_no_reply";

export function readNoteDue(accountId) {
  try {
    return localStorage.getItem(PREFIX + accountId) !== "1";
  } catch {
    return false;  // storage disabled: better never than every time
  }
}

export function dismissReadNote(accountId) {
  try {
    localStorage.setItem(PREFIX + accountId, "1");
  } catch {
    // storage full or disabled: it goes away for now all the same
  }
}

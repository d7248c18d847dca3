// The conversation as the chat view shows it: stored messages, the person's own messages not yet matched with
// their stored copy (`local`), topic dividers, in-app notices; and how far back it is loaded. Data only: no DOM,
// no network.

export class History {
  constructor() {
    this.items = [];
    this.hasMore = true;
    this.loadingOlder = false;
    this.loaded = false;
    this.readUpTo = null;  // the newest message the server was told the person has seen
    this.seq = 0;
  }

  known(messageId) {
    return this.items.some((item) => item.id === messageId);
  }

  find(messageId) {
    return this.items.find((item) => item.id === messageId) || null;
  }

  // Stored messages not shown yet are added; the person's own local copy takes its stored id. True if any changed.
  merge(messages) {
    let changed = false;
    for (const message of messages) {
      if (this.known(message.id)) continue;
      const local = message.role === "user" && this.items.find((item) => item.local && item.role === "user" &&
        (item.media_id ? item.media_id === message.media_id : !message.media_id && item.content === message.content));
      // a photo or voice note keeps showing from its local blob (no second fetch, no flicker)
      if (local) Object.assign(local, message, { local: false, uploading: false, unsent: false });
      else this.items.push({ ...message });
      changed = true;
    }
    return changed;
  }

  // An older page goes first; returns how many of its messages were new.
  prepend(messages) {
    const older = messages.filter((m) => !this.known(m.id));
    this.items.unshift(...older);
    return older.length;
  }

  addLocal(text, timestamp) {
    const item = { id: `local-${++this.seq}`, role: "user", content: text, timestamp, local: true };
    this.items.push(item);
    return item;
  }

  // A message from the AI's side of a turn (an SSE `message` event, or a heartbeat asked for).
  // A voice reply carries its media (`content` is then its words, shown on tap).
  addReply({ message_id: id, content, timestamp, kind, media_id = null, media_kind = null, duration_s = null }) {
    if (this.known(id)) return;
    const media = media_id ? { media_id, media_kind, duration_s } : {};
    this.items.push({ id, role: "assistant", content, timestamp, kind: kind || "chat", ...media });
  }

  addDivider(text) {
    this.items.push({ id: `divider-${++this.seq}`, divider: text });
  }

  // An in-app notice in the flow (the break reminder): shown where it arrived, never stored. The login's AI
  // disclosure and the session's first say the same: one card until the AI has answered.
  addNotice(text, kind) {
    if (kind === "ai_disclosure") {
      const shown = this.items.findLastIndex((item) => item.notice && item.kind === kind);
      if (shown >= 0 && !this.items.slice(shown).some((item) => item.role === "assistant")) return;
    }
    this.items.push({ id: `notice-${++this.seq}`, notice: text, kind });
  }

  remove(item) {
    const at = this.items.indexOf(item);
    if (at >= 0) this.items.splice(at, 1);
  }

  moveLast(item) {
    this.remove(item);
    this.items.push(item);
  }

  firstStored() {
    return this.items.find(isStored) || null;
  }

  lastStored() {
    return [...this.items].reverse().find(isStored) || null;
  }

  // The person's message the server names as still without an answer (after a reload).
  unanswered(messageId) {
    return (messageId && this.items.find((item) => item.id === messageId && item.role === "user")) || null;
  }

  // What is drawn: messages held back until the AI's turn ends stay last, where they will be stored.
  ordered(held) {
    return [...this.items.filter((item) => !held.includes(item)), ...held];
  }
}

function isStored(item) {
  return Boolean(item.id) && !item.local && !item.divider && !item.notice;
}

// The chat list and the last KEPT_MESSAGES messages of each chat, kept on this device in IndexedDB so they can be
// read offline (issue 40: offline, the app opened to an empty list). Per account; logging out forgets them.
// A screen drawn from here says so: it is what was last seen, not what the server holds now.

const DB = "dreamchat-offline";
const STORE = "kept";
export const KEPT_MESSAGES = 50;

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => { db.close(); resolve(request?.result); };
    tx.onerror = tx.onabort = () => { db.close(); reject(tx.error); };
  });
}

// Never in the way: storage full or disabled (a private window) only means nothing is kept.
export function keep(accountId, key, value) {
  if (!accountId || !("indexedDB" in window)) return Promise.resolve();
  return run("readwrite", (store) => store.put({ value, at: Date.now() }, `${accountId}:${key}`)).catch(() => {});
}

// {value, at} as last kept, or null.
export function kept(accountId, key) {
  if (!accountId || !("indexedDB" in window)) return Promise.resolve(null);
  return run("readonly", (store) => store.get(`${accountId}:${key}`)).then((found) => found || null).catch(() => null);
}

export function forgetKept(accountId) {
  if (!accountId || !("indexedDB" in window)) return Promise.resolve();
  const mine = IDBKeyRange.bound(`${accountId}:`, `${accountId}:\uffff`);
  return run("readwrite", (store) => store.delete(mine)).catch(() => {});
}

export function keepMessages(accountId, aiId, messages) {
  return keep(accountId, `chat:${aiId}`, messages.slice(-KEPT_MESSAGES));
}

// "离线 · 显示的是 3 月 5 日 14:02 保存的内容"
export function keptLabel(at) {
  const when = new Date(at).toLocaleString("zh-CN", { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
  return `离线 · 显示的是 ${when} 保存的内容`;
}

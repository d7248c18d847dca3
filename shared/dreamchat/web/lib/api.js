// The HTTP API: bearer tokens in localStorage, one refresh on 401, errors in plain Chinese, SSE over fetch.

const SESSION_KEY = "dreamchat.session";

export const session = {
  get() {
    try {
      return JSON.parse(localStorage.getItem(SESSION_KEY)) || null;
    } catch {
      return null;
    }
  },
  set(value) {
    localStorage.setItem(SESSION_KEY, JSON.stringify(value));
  },
  clear() {
    localStorage.removeItem(SESSION_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

const NETWORK = "network";

async function send(method, path, body, token, accept, keepalive = false) {
  const headers = {};
  const form = body instanceof FormData; // an upload: the browser writes its own Content-Type
  if (body !== undefined && !form) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (accept) headers.Accept = accept;
  try {
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined || form ? body : JSON.stringify(body),
      cache: "no-store",
      keepalive, // a call made as the page is hidden or closed still leaves
    });
    reachable(true);
    return response;
  } catch {
    reachable(false);
    throw new ApiError(0, NETWORK, "network error");
  }
}

// The app shows 离线 while the server cannot be reached (offline, or opened from the service worker's cache).
let online = true;
function reachable(now) {
  if (now === online) return;
  online = now;
  window.dispatchEvent(new CustomEvent(now ? "dreamchat:online" : "dreamchat:offline"));
}

async function errorFrom(response) {
  let code = "error";
  let message = response.statusText;
  try {
    const body = await response.json();
    code = body?.error?.code || code;
    message = body?.error?.message || message;
  } catch {
    // not JSON (a proxy's error page): the status says enough
  }
  const retry = Number.parseInt(response.headers.get("Retry-After") || "", 10);
  return new ApiError(response.status, code, message, Number.isFinite(retry) ? retry : null);
}

let refreshing = null;

// Refresh tokens rotate and a reused one revokes the whole family, so only one refresh may run:
// one per page (the shared promise) and one per browser (a Web Lock, where there is one).
function refreshAfter(usedToken) {
  refreshing ??= lockedRefresh(usedToken).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

function lockedRefresh(usedToken) {
  const run = () => refreshOnce(usedToken);
  return navigator.locks ? navigator.locks.request("dreamchat-refresh", run) : run();
}

async function refreshOnce(usedToken) {
  const current = session.get();
  if (!current?.refresh_token) return null;
  if (current.access_token !== usedToken) return current; // another tab has refreshed meanwhile
  const response = await send("POST", "/api/auth/refresh", { refresh_token: current.refresh_token });
  if (!response.ok) {
    if (response.status === 401 || response.status === 422) return null;
    throw await errorFrom(response);
  }
  const tokens = await response.json();
  const next = { ...current, access_token: tokens.access_token, refresh_token: tokens.refresh_token };
  session.set(next);
  return next;
}

function sessionExpired() {
  session.clear();
  window.dispatchEvent(new CustomEvent("dreamchat:expired"));
  return new ApiError(401, "session_expired", "session expired");
}

// Returns the Response (status 2xx) after at most one refresh; throws ApiError otherwise.
export async function raw(method, path, body, { auth = true, accept, keepalive = false } = {}) {
  const token = auth ? session.get()?.access_token : null;
  if (auth && !token) throw sessionExpired();
  let response = await send(method, path, body, token, accept, keepalive);
  if (auth && response.status === 401) {
    const fresh = await refreshAfter(token);
    if (!fresh) throw sessionExpired();
    response = await send(method, path, body, fresh.access_token, accept, keepalive);
    if (response.status === 401) throw sessionExpired();
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

export async function api(method, path, body, options) {
  const response = await raw(method, path, body, options);
  if (response.status === 204) return null;
  try {
    return await response.json();
  } catch {
    throw new ApiError(0, NETWORK, "incomplete response");
  }
}

export const get = (path) => api("GET", path);

// Every entry of a paged list: the next page's cursor comes in the X-Next-Cursor header, or in the
// body's next_cursor where the route has one. A list the server keeps bounded ends well before MAX_PAGES.
const MAX_PAGES = 50;
export async function everyPage(path, field) {
  return (await allPages(path, field)).entries;
}

// The same, with the first page's body (for a route that answers more than its list, like its settings).
export async function allPages(path, field) {
  const entries = [];
  let first = null;
  let cursor = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const separator = path.includes("?") ? "&" : "?";
    const response = await raw("GET", cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path);
    let body;
    try {
      body = await response.json();
    } catch {
      throw new ApiError(0, NETWORK, "incomplete response");
    }
    first ??= body;
    entries.push(...(body[field] || []));
    cursor = response.headers.get("X-Next-Cursor") || body.next_cursor || null;
    if (!cursor) break;
  }
  return { first, entries };
}
export const post = (path, body) => api("POST", path, body);
export const put = (path, body) => api("PUT", path, body);
export const del = (path) => api("DELETE", path);
export const patch = (path, body) => api("PATCH", path, body);

// Server-sent events from a fetch body: yields {event, data} in order. sse-starlette ends lines with \r\n.
export async function* events(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch {
        throw new ApiError(0, NETWORK, "stream interrupted");
      }
      if (chunk.done) break;
      buffer = (buffer + chunk.value).replace(/\r\n|\r(?!$)/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
    const last = parseBlock(buffer.replace(/\r$/, ""));
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { event, data: data.join("\n") } : null;
}

const BY_STATUS = {
  400: "请求有误，请检查后再试。",
  403: "没有权限做这件事。",
  404: "找不到要找的内容，它可能已被删除。",
  409: "内容有冲突，请刷新后再试。",
  413: "内容太长了。",
  415: "请求格式不对。",
  422: "填写的内容不符合要求，请检查后再试。",
  503: "服务暂时不可用，请稍后再试。",
};

// What to tell the person, in plain words; `context` lets a screen say something more specific.
export function describe(error, context = {}) {
  if (!(error instanceof ApiError)) return "出了点问题，请刷新页面后再试。";
  if (error.code === NETWORK) return context.network || "网络连接失败，请检查网络后重试。";
  if (error.code === "session_expired") return "登录已过期，请重新登录。";
  if (context[error.status]) return context[error.status];
  if (error.status === 429) {
    const wait = error.retryAfter ? `请 ${waitText(error.retryAfter)}后再试。` : "请稍后再试。";
    return `操作太频繁了，${wait}`;
  }
  if (error.status >= 500) return "服务器开小差了，请稍后再试。";
  return BY_STATUS[error.status] || `请求失败（${error.status}），请稍后再试。`;
}

function waitText(seconds) {
  return seconds >= 60 ? `${Math.ceil(seconds / 60)} 分钟` : `${seconds} 秒`;
}

// A presigned POST straight to the blob store (a file too large for one API request): no token, the URL's
// signature is the permission; resolves on 2xx, else an ApiError.
export async function postSigned(url, form) {
  let response;
  try {
    response = await fetch(url, { method: "POST", body: form });
  } catch {
    throw new ApiError(0, NETWORK, "network error");
  }
  if (!response.ok) throw new ApiError(response.status, "upload_refused", "the file store refused the upload");
}

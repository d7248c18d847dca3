// Times from the API are epoch seconds; they are shown in the browser's time zone, in Chinese.

const pad = (n) => String(n).padStart(2, "0");

function dayStart(date) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

export function clock(ts) {
  const d = new Date(ts * 1000);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function clockSeconds(ts) {
  const d = new Date(ts * 1000);
  return `${clock(ts)}:${pad(d.getSeconds())}`;
}

// "14:05", "昨天 14:05", "3月15日 14:05", "2025年3月15日 14:05"
export function chatStamp(ts, now = new Date()) {
  const d = new Date(ts * 1000);
  const days = Math.round((dayStart(now) - dayStart(d)) / 86400000);
  if (days === 0) return clock(ts);
  if (days === 1) return `昨天 ${clock(ts)}`;
  if (d.getFullYear() === now.getFullYear()) return `${d.getMonth() + 1}月${d.getDate()}日 ${clock(ts)}`;
  return `${d.getFullYear()}年${d.getMonth() + 1}月${d.getDate()}日 ${clock(ts)}`;
}

// The chat list's time of the last message: "14:05", "昨天", "3月15日", "2025/3/15"
export function listStamp(ts, now = new Date()) {
  const d = new Date(ts * 1000);
  const days = Math.round((dayStart(now) - dayStart(d)) / 86400000);
  if (days <= 0) return clock(ts);
  if (days === 1) return "昨天";
  if (d.getFullYear() === now.getFullYear()) return `${d.getMonth() + 1}月${d.getDate()}日`;
  return `${d.getFullYear()}/${d.getMonth() + 1}/${d.getDate()}`;
}

// Mid-term memory keeps hour precision, long-term day or month: show no more than is kept.
export function hourPrecision(ts) {
  const d = new Date(ts * 1000);
  return `${d.getMonth() + 1}月${d.getDate()}日 ${d.getHours()}时`;
}

export function dayPrecision(ts, precision = "day") {
  const d = new Date(ts * 1000);
  if (precision === "month") return `${d.getFullYear()}年${d.getMonth() + 1}月`;
  return `${d.getFullYear()}年${d.getMonth() + 1}月${d.getDate()}日`;
}

export function fromNow(ts, now = Date.now()) {
  const minutes = Math.round((ts * 1000 - now) / 60000);
  if (minutes <= 1) return "即将";
  if (minutes < 60) return `约 ${minutes} 分钟后`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `约 ${hours} 小时后`;
  const days = Math.round(hours / 24);
  return days > 365 ? "很久以后" : `约 ${days} 天后`;
}

export function hoursLabel(hours) {
  if (hours === null || hours === undefined) return "";
  if (hours < 1) return `${Math.round(hours * 60)} 分钟`;
  if (hours < 48) return `${+hours.toFixed(1)} 小时`;
  return `${Math.round(hours / 24)} 天`;
}

// A moment named in full, also in the future (a report's answer by): "3月15日 14:05", "2027年1月2日 09:00"
export function fullStamp(ts, now = new Date()) {
  const d = new Date(ts * 1000);
  const day = `${d.getMonth() + 1}月${d.getDate()}日 ${clock(ts)}`;
  return d.getFullYear() === now.getFullYear() ? day : `${d.getFullYear()}年${day}`;
}

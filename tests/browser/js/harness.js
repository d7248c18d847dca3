// A few lines of test runner for the web client's pure modules, run in Chromium by tests/browser/test_js_units.py:
// a suite registers its cases with test(); the page runs them with run() and hands the results to pytest.

const cases = [];

export function test(name, fn) {
  if (cases.some((c) => c.name === name)) throw new Error(`two tests named ${name}`);
  cases.push({ name, fn });
}

export async function run() {
  const results = [];
  for (const { name, fn } of cases) {
    try {
      await fn();
      results.push({ name, ok: true, error: null });
    } catch (error) {
      results.push({ name, ok: false, error: String(error?.stack || error) });
    }
  }
  return results;
}

export function assert(condition, message = "expected true") {
  if (!condition) throw new Error(message);
}

// Deep equality of plain data; the same object is equal to itself (effects carry the view's own items).
export function equal(actual, expected, message = "") {
  if (!same(actual, expected)) {
    throw new Error(`${message ? `${message}: ` : ""}expected ${show(expected)}, got ${show(actual)}`);
  }
}

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
}

function show(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

export function throws(fn, pattern) {
  try {
    fn();
  } catch (error) {
    if (pattern && !pattern.test(String(error.message))) throw new Error(`wrong error: ${error.message}`);
    return;
  }
  throw new Error("expected an error");
}

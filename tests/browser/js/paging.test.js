// Paged lists (shared/dreamchat/web/lib/api.js everyPage): the client follows the cursor to the last page.

import { everyPage, session } from "/static/lib/api.js";
import { equal, test } from "./harness.js";

// A fake server: `pages` by cursor ("" for the first), the next cursor in a header or in the body.
function serve(pages, { inBody = false } = {}) {
  const asked = [];
  window.fetch = async (path) => {
    asked.push(path);
    const cursor = new URL(path, location.origin).searchParams.get("cursor") || "";
    const { items, next } = pages[cursor];
    const headers = next && !inBody ? { "X-Next-Cursor": next } : {};
    const body = inBody ? { friends: items, next_cursor: next || null } : { friends: items };
    return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json", ...headers } });
  };
  session.set({ access_token: "t", refresh_token: "r" });
  return asked;
}

test("every page named by X-Next-Cursor is fetched, in order", async () => {
  const asked = serve({ "": { items: [1, 2], next: "c1" }, c1: { items: [3, 4], next: "c2" }, c2: { items: [5] } });
  equal(await everyPage("/api/friends?limit=2", "friends"), [1, 2, 3, 4, 5]);
  equal(asked, ["/api/friends?limit=2", "/api/friends?limit=2&cursor=c1", "/api/friends?limit=2&cursor=c2"]);
});

test("a body's next_cursor is followed the same way", async () => {
  const asked = serve({ "": { items: ["a"], next: "x y" }, "x y": { items: ["b"] } }, { inBody: true });
  equal(await everyPage("/api/friends", "friends"), ["a", "b"]);
  equal(asked, ["/api/friends", "/api/friends?cursor=x%20y"]);
});

test("one page without a cursor is the whole list", async () => {
  const asked = serve({ "": { items: [7] } });
  equal(await everyPage("/api/friends", "friends"), [7]);
  equal(asked.length, 1);
});

// The chat's send queue (shared/dreamchat/web/lib/send_queue.js): states, transitions and effects.

import {
  FAILED, IDLE, REPLYING, SENDING, SendQueue, initialState, isBusy, step, unsent,
} from "/static/lib/send_queue.js";
import { assert, equal, test, throws } from "./harness.js";

const item = (text) => ({ id: `local-${text}`, content: text });
const types = (effects) => effects.map((effect) => effect.type);

// Runs events through step() from the initial state; returns the last state and every effect, in order.
function play(...events) {
  let state = initialState();
  const effects = [];
  for (const event of events) {
    const [next, out] = step(state, typeof event === "function" ? event(state) : event);
    state = next;
    effects.push(...out);
  }
  return { state, effects };
}

// Events that name the turn in flight when they arrive, as the view's requests do.
const accepted = () => (state) => ({ type: "accepted", turn: state.turn });
const rejected = (error = "offline") => (state) => ({ type: "rejected", turn: state.turn, error });
const finished = (outcome = "replied") => (state) => ({ type: "finished", turn: state.turn, outcome });

test("a message sent while nothing is in flight starts at once", () => {
  const a = item("a");
  const { state, effects } = play({ type: "send", item: a, text: "a" });
  equal(state.phase, SENDING);
  equal(state.turn, { kind: "message", item: a, text: "a" });
  equal(effects, [{ type: "start", turn: state.turn, fromHold: false }]);
  equal(state.started, 1);
});

test("once the server accepts it the AI is replying and the draft no longer needs it", () => {
  const a = item("a");
  const sending = play({ type: "send", item: a, text: "a" }).state;
  equal(unsent(sending).map((turn) => turn.text), ["a"]);
  const { state, effects } = play({ type: "send", item: a, text: "a" }, accepted());
  equal(state.phase, REPLYING);
  equal(types(effects), ["start", "accepted"]);
  equal(unsent(state), []);
});

test("a message typed while the AI replies is held, not sent, and still unsent", () => {
  const [a, b] = [item("a"), item("b")];
  const { state, effects } = play({ type: "send", item: a, text: "a" }, accepted(), { type: "send", item: b, text: "b" });
  equal(state.phase, REPLYING);
  equal(state.turn.item, a);
  equal(state.held.map((turn) => turn.item), [b]);
  equal(effects.at(-1), { type: "hold", item: b });
  equal(unsent(state).map((turn) => turn.text), ["b"]);
});

test("a message typed while the first is still being sent is held too", () => {
  const [a, b] = [item("a"), item("b")];
  const { state } = play({ type: "send", item: a, text: "a" }, { type: "send", item: b, text: "b" });
  equal(state.phase, SENDING);
  equal(unsent(state).map((turn) => turn.text), ["a", "b"]);
});

test("a turn over with nothing held leaves the queue idle and settled", () => {
  const { state, effects } = play({ type: "send", item: item("a"), text: "a" }, accepted(), finished());
  equal(state, { ...initialState(), started: 1 });
  equal(effects.at(-1), { type: "settled" });
});

test("a turn over sends the first held message next, one at a time, in the order typed", () => {
  const [a, b, c] = [item("a"), item("b"), item("c")];
  const first = play(
    { type: "send", item: a, text: "a" }, accepted(),
    { type: "send", item: b, text: "b" }, { type: "send", item: c, text: "c" },
    finished(),
  );
  equal(first.state.phase, SENDING);
  equal(first.state.turn.item, b);
  equal(first.state.held.map((turn) => turn.item), [c]);
  equal(first.effects.at(-1), { type: "start", turn: first.state.turn, fromHold: true });
  assert(!types(first.effects).includes("settled"), "nothing settles while a message waits");

  const all = play(
    { type: "send", item: a, text: "a" }, accepted(),
    { type: "send", item: b, text: "b" }, { type: "send", item: c, text: "c" },
    finished(), accepted(), finished(), accepted(), finished(),
  );
  const started = all.effects.filter((effect) => effect.type === "start").map((effect) => effect.turn.item);
  equal(started, [a, b, c]);
  equal(all.state.phase, IDLE);
  equal(all.state.started, 3);
});

test("a message the server never took goes back to the composer with those held behind it, in order", () => {
  const [a, b, c] = [item("a"), item("b"), item("c")];
  const { state, effects } = play(
    { type: "send", item: a, text: "a" }, { type: "send", item: b, text: "b" }, { type: "send", item: c, text: "c" },
    rejected("offline"),
  );
  equal(state.phase, IDLE);
  equal(state.held, []);
  equal(effects.at(-1), { type: "restore", items: [a, b, c], texts: ["a", "b", "c"], error: "offline" });
  equal(unsent(state), []);
});

test("a turn that ends in an error leaves its message failed, and retryable", () => {
  const a = item("a");
  const failed = play({ type: "send", item: a, text: "a" }, accepted(), finished("failed"));
  equal(failed.state.phase, FAILED);
  equal(failed.state.failed, a);
  equal(failed.effects.at(-1), { type: "settled" });

  const retried = play({ type: "send", item: a, text: "a" }, accepted(), finished("failed"), { type: "retry", item: a });
  equal(retried.state.phase, SENDING);
  equal(retried.state.turn, { kind: "retry", item: a, text: null });
  equal(retried.state.failed, null);
  equal(retried.effects.at(-1), { type: "start", turn: retried.state.turn, fromHold: false });
  equal(unsent(retried.state), [], "a retried message is stored already");
});

test("a broken stream ends the turn without failing it", () => {
  const { state } = play({ type: "send", item: item("a"), text: "a" }, accepted(), finished("broken"));
  equal(state.phase, IDLE);
});

test("after a failed turn the next held message still goes", () => {
  const [a, b] = [item("a"), item("b")];
  const { state } = play(
    { type: "send", item: a, text: "a" }, accepted(), { type: "send", item: b, text: "b" }, finished("failed"),
  );
  equal(state.phase, SENDING);
  equal(state.turn.item, b);
  equal(state.failed, null);
});

test("a new message after a failed turn is sent at once", () => {
  const [a, b] = [item("a"), item("b")];
  const { state, effects } = play(
    { type: "send", item: a, text: "a" }, accepted(), finished("failed"), { type: "send", item: b, text: "b" },
  );
  equal(state.phase, SENDING);
  equal(state.turn.item, b);
  equal(effects.at(-1).type, "start");
});

test("a retry or a heartbeat asked for during a turn is not done", () => {
  const a = item("a");
  for (const event of [{ type: "retry", item: a }, { type: "heartbeat" }]) {
    const before = play({ type: "send", item: item("b"), text: "b" }).state;
    const [after, effects] = step(before, event);
    equal(after, before);
    equal(effects, [{ type: "busy", event }]);
  }
});

test("a heartbeat asked for is a turn of its own, with nothing to put back if it fails", () => {
  const asked = play({ type: "heartbeat" });
  equal(asked.state.turn, { kind: "heartbeat", item: null, text: null });
  equal(unsent(asked.state), []);
  const refused = play({ type: "heartbeat" }, rejected("busy server"));
  equal(refused.state.phase, IDLE);
  equal(types(refused.effects), ["start", "refused"]);
  const answered = play({ type: "heartbeat" }, accepted(), finished());
  equal(answered.state.phase, IDLE);
});

test("a retry the server refuses leaves its message unanswered, and what was held goes next", () => {
  const [a, b] = [item("a"), item("b")];
  const alone = play({ type: "unanswered", item: a }, { type: "retry", item: a }, rejected("conflict"));
  equal(alone.state.phase, FAILED);
  equal(alone.state.failed, a);
  equal(alone.effects.at(-1), { type: "refused", turn: { kind: "retry", item: a, text: null }, error: "conflict" });

  const withHeld = play({ type: "retry", item: a }, { type: "send", item: b, text: "b" }, rejected("conflict"));
  equal(types(withHeld.effects), ["start", "hold", "refused", "start"]);
  equal(withHeld.state.turn.item, b);
});

test("history naming an unanswered message makes the queue failed, unless a turn runs", () => {
  const a = item("a");
  equal(play({ type: "unanswered", item: a }).state.phase, FAILED);
  const busy = play({ type: "send", item: item("b"), text: "b" }, { type: "unanswered", item: a });
  equal(busy.state.phase, SENDING);
});

test("a late event for a turn that is over changes nothing", () => {
  const a = item("a");
  const first = play({ type: "send", item: a, text: "a" });
  const old = first.state.turn;
  const { state } = play({ type: "send", item: a, text: "a" }, accepted(), finished(), { type: "send", item: item("b"), text: "b" });
  for (const event of [
    { type: "accepted", turn: old }, { type: "rejected", turn: old, error: "x" }, { type: "finished", turn: old, outcome: "failed" },
  ]) {
    const [after, effects] = step(state, event);
    equal(after, state, event.type);
    equal(effects, [], event.type);
  }
});

test("an event out of its phase changes nothing", () => {
  const sending = play({ type: "send", item: item("a"), text: "a" }).state;
  equal(step(sending, { type: "finished", turn: sending.turn, outcome: "replied" }), [sending, []]);
  const replying = play({ type: "send", item: item("a"), text: "a" }, accepted()).state;
  equal(step(replying, { type: "accepted", turn: replying.turn }), [replying, []]);
  equal(step(replying, { type: "rejected", turn: replying.turn, error: "x" }), [replying, []]);
});

test("an unknown event is a mistake, not ignored", () => {
  throws(() => step(initialState(), { type: "sned" }), /unknown event sned/);
});

test("step never changes the state it is given", () => {
  const deepFreeze = (value) => {
    if (value && typeof value === "object" && !Object.isFrozen(value)) {
      Object.freeze(value);
      Object.values(value).forEach(deepFreeze);
    }
    return value;
  };
  let state = deepFreeze(initialState());
  const events = [
    { type: "send", item: item("a"), text: "a" }, accepted(), { type: "send", item: item("b"), text: "b" },
    finished("failed"), rejected(), { type: "heartbeat" }, { type: "unanswered", item: item("c") },
  ];
  for (const event of events) {
    const [next] = step(state, typeof event === "function" ? event(state) : event);
    state = deepFreeze(next);
  }
  equal([state.phase, state.turn.kind], [SENDING, "heartbeat"]);
});

// Every reachable state keeps the machine's promises, whatever the person and the network do.
test("random sequences of events keep the invariants", () => {
  let seed = 20240601;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const items = [item("a"), item("b"), item("c"), item("d")];
  const outcomes = ["replied", "failed", "broken"];
  for (let run = 0; run < 200; run += 1) {
    let state = initialState();
    let typed = 0;
    let sentOrder = [];
    for (let i = 0; i < 30; i += 1) {
      const pick = random(7);
      let event;
      if (pick === 0) event = { type: "send", item: items[typed % 4], text: `t${typed++}` };
      else if (pick === 1) event = { type: "retry", item: items[random(4)] };
      else if (pick === 2) event = { type: "heartbeat" };
      else if (pick === 3) event = { type: "accepted", turn: state.turn };
      else if (pick === 4) event = { type: "rejected", turn: state.turn, error: "e" };
      else if (pick === 5) event = { type: "finished", turn: state.turn, outcome: outcomes[random(3)] };
      else event = { type: "unanswered", item: items[random(4)] };
      const [next, effects] = step(state, event);
      for (const effect of effects) {
        if (effect.type === "start" && effect.turn.kind === "message") sentOrder.push(effect.turn.text);
        if (effect.type === "restore") sentOrder = sentOrder.filter((text) => !effect.texts.includes(text));
      }
      state = next;
      const where = `run ${run} step ${i} (${event.type}) → ${state.phase}`;
      assert([IDLE, SENDING, REPLYING, FAILED].includes(state.phase), where);
      assert(isBusy(state) === (state.turn !== null), `a turn is in flight exactly while busy: ${where}`);
      assert(state.held.length === 0 || isBusy(state), `nothing is held while idle: ${where}`);
      assert((state.phase === FAILED) === (state.failed !== null), `failed names its message: ${where}`);
      assert(state.held.every((turn) => turn.kind === "message"), `only messages are held: ${where}`);
      const order = sentOrder.map((text) => Number(text.slice(1)));
      assert(order.every((n, k) => k === 0 || n > order[k - 1]), `messages go in the order typed: ${where}`);
    }
  }
});

test("SendQueue performs a step's effects in order, and an event dispatched by an effect waits for them", () => {
  const seen = [];
  const a = item("a");
  const queue = new SendQueue((effect) => {
    seen.push(`${effect.type}:${queue.state.phase}`);
    // the view's request would answer later; here it answers at once, from inside the effect
    if (effect.type === "start") queue.dispatch({ type: "rejected", turn: effect.turn, error: "offline" });
  });
  queue.dispatch({ type: "send", item: a, text: "a" });
  equal(seen, ["start:sending", "restore:idle"]);
  assert(!queue.busy);
});

test("SendQueue tells the view what is held and what the server has not stored", () => {
  const [a, b] = [item("a"), item("b")];
  const queue = new SendQueue(() => {});
  queue.dispatch({ type: "send", item: a, text: "a" });
  assert(queue.busy && queue.isUnsent(a));
  queue.dispatch({ type: "accepted", turn: queue.state.turn });
  queue.dispatch({ type: "send", item: b, text: "b" });
  assert(!queue.isUnsent(a) && queue.isUnsent(b));
  equal(queue.held, [b]);
  equal(queue.unsent().map((turn) => turn.text), ["b"]);
});

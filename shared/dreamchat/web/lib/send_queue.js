// The chat's send queue: which turn is in flight, and what the person typed meanwhile. No DOM, no network.
//
// A turn is one message sent (or an unanswered one retried, or a heartbeat asked for) and the AI's side of it,
// shown to its end. The server stores in arrival order, so one turn runs at a time: a message typed during a
// turn is held, shown last, and sent when the turn is over; the page then shows the order the server stores.
//
//   idle ─ send / retry / heartbeat ─▶ sending ─ accepted ─▶ replying ─ finished ─▶ idle, or failed
//    ▲ ▲                                 │                                   (or sending: the next held message)
//    │ └──────────── rejected ───────────┘  a message, and those held behind it, go back to the composer
//    └ failed: the last turn's message was stored but not answered; like idle, and its retry is offered
//
// `step(state, event)` is the whole machine, a pure function: it returns the next state and the effects the
// view carries out. `SendQueue` keeps the state and hands each effect to the view.

export const IDLE = "idle";
export const SENDING = "sending";
export const REPLYING = "replying";
export const FAILED = "failed";

// turn: {kind: "message" | "retry" | "heartbeat", item, text}; item is the view's own object, never looked into.
export function initialState() {
  return { phase: IDLE, turn: null, held: [], failed: null, started: 0 };
}

export function isBusy(state) {
  return state.phase === SENDING || state.phase === REPLYING;
}

// What the server has not stored yet, in the order it was typed: the draft must keep it.
export function unsent(state) {
  const sending = state.phase === SENDING && state.turn.kind === "message" ? [state.turn] : [];
  return [...sending, ...state.held];
}

// Events: send {item, text} · retry {item} · heartbeat · unanswered {item} (history names a message without
// an answer) · accepted {turn} · rejected {turn, error} · finished {turn, outcome: "replied" | "failed" | "broken"}.
// accepted, rejected and finished name their turn: a late one for a turn that is over changes nothing.
// Effects: start {turn, fromHold} · hold {item} · accepted {turn} · restore {items, texts, error} ·
// refused {turn, error} · busy {event} (a retry or heartbeat asked for during a turn: not done) · settled.
export function step(state, event) {
  const handle = HANDLERS[event.type];
  if (!handle) throw new Error(`send queue: unknown event ${event.type}`);
  if ("turn" in event && event.turn !== state.turn) return [state, []];
  return handle(state, event);
}

const HANDLERS = {
  send(state, { item, text }) {
    if (isBusy(state)) return [{ ...state, held: [...state.held, { kind: "message", item, text }] }, [{ type: "hold", item }]];
    return begin(state, { kind: "message", item, text });
  },
  retry(state, event) {
    if (isBusy(state)) return [state, [{ type: "busy", event }]];
    return begin(state, { kind: "retry", item: event.item, text: null });
  },
  heartbeat(state, event) {
    if (isBusy(state)) return [state, [{ type: "busy", event }]];
    return begin(state, { kind: "heartbeat", item: null, text: null });
  },
  unanswered(state, { item }) {
    return isBusy(state) ? [state, []] : [{ ...state, phase: FAILED, failed: item }, []];
  },
  accepted(state, { turn }) {
    if (state.phase !== SENDING) return [state, []];
    return [{ ...state, phase: REPLYING }, [{ type: "accepted", turn }]];
  },
  rejected(state, { turn, error }) {
    if (state.phase !== SENDING) return [state, []];
    if (turn.kind === "message") {
      const back = [turn, ...state.held];
      const restore = { type: "restore", items: back.map((t) => t.item), texts: back.map((t) => t.text), error };
      return [{ ...state, phase: IDLE, turn: null, held: [], failed: null }, [restore]];
    }
    // a retry refused leaves its message unanswered, as it was; a heartbeat refused leaves nothing
    const [next, effects] = over(state, turn.kind === "retry" ? turn.item : null, false);
    return [next, [{ type: "refused", turn, error }, ...effects]];
  },
  finished(state, { turn, outcome }) {
    if (state.phase !== REPLYING) return [state, []];
    return over(state, outcome === "failed" && turn.kind !== "heartbeat" ? turn.item : null, true);
  },
};

function begin(state, turn) {
  const next = { ...state, phase: SENDING, turn, failed: null, started: state.started + 1 };
  return [next, [{ type: "start", turn, fromHold: false }]];
}

// The turn is over: the next held message goes, else the queue rests (failed if the message went unanswered).
function over(state, unansweredItem, settles) {
  if (state.held.length) {
    const [turn, ...held] = state.held;
    const next = { ...state, phase: SENDING, turn, held, failed: null, started: state.started + 1 };
    return [next, [{ type: "start", turn, fromHold: true }]];
  }
  const phase = unansweredItem ? FAILED : IDLE;
  return [{ ...state, phase, turn: null, failed: unansweredItem }, settles ? [{ type: "settled" }] : []];
}

// Keeps the state and hands effects to `perform` in order. An event dispatched while effects run waits
// for them, so effects always see the state their own step produced.
export class SendQueue {
  constructor(perform) {
    this.state = initialState();
    this.perform = perform;
    this.pending = [];
    this.running = false;
  }

  get busy() {
    return isBusy(this.state);
  }

  get held() {
    return this.state.held.map((turn) => turn.item);
  }

  unsent() {
    return unsent(this.state);
  }

  // true while the server has not stored the item (being sent, or held)
  isUnsent(item) {
    return this.unsent().some((turn) => turn.item === item);
  }

  dispatch(event) {
    this.pending.push(event);
    if (this.running) return;
    this.running = true;
    try {
      while (this.pending.length) {
        const [next, effects] = step(this.state, this.pending.shift());
        this.state = next;
        for (const effect of effects) this.perform(effect);
      }
    } finally {
      this.running = false;
    }
  }
}

// The library's live session: for a caller that assembles every turn of one conversation.
// It keeps a core session (js/core/core.js `newSession`, the incremental path the OpenClaw
// plugin uses) whose index follows the caller's history: each call indexes only the messages
// added since the last one (the whole history again when an earlier message changed), then
// plans the request from what differs from the previous one. Fold decisions made for the
// budget stick from one call to the next. Everything lives in memory: it never reads or
// writes files and never calls an LLM.
import { sameJson } from "../core/core.js";
import { InputError } from "../core/readers.js";
import { messageEntries } from "./entries.js";
import { shapeOf } from "./formats.js";
import { assembled } from "./results.js";
import { callerErrors } from "./errors.js";

/** @import { Message } from "../core/types.js" */
/** @import { Core, LiveCore } from "../core/core.js" */

export class Session {
  /**
   * @param {Core} core          a core instance (js/core/core.js `wrapGlue`)
   * @param {object} config      the core's options (js/core/config.js `splitConfig(...).core`)
   * @param {string} format      "auto" or the shape every history must have
   */
  constructor(core, config, format) {
    this.format = format;
    /** @private */ this.core = core;
    /** @private @type {LiveCore | undefined} */ this.live = core.newSession(config);
    /** @private copies of the indexed messages (the caller may change its own in place) @type {Message[]} */
    this.indexed = [];
    /** @private the entry id of each indexed message @type {string[]} */
    this.ids = [];
    /** @private @type {Set<string>} */ this.taken = new Set();
    /** @private the history of the last assemble (the caller's objects) @type {readonly Message[]} */
    this.history = [];
  }

  /**
   * Plans the next request for `messages` (the whole history, any of the three shapes).
   * @param {readonly Message[]} messages
   * @param {{prompt?: string, budget?: number}} [request]
   */
  assemble(messages, { prompt, budget } = {}) {
    const live = this.open();
    if (!Array.isArray(messages)) throw new InputError("session.assemble takes an array of messages");
    const format = shapeOf(messages, this.format);
    return callerErrors(() => {
      this.index(live, messages);
      const r = live.assemble({ messages, prompt: prompt ?? null, budget: budget ?? null });
      this.history = messages;
      return assembled(messages, r, { format });
    });
  }

  /**
   * The original messages of a turn of the last assembled history, as the caller gave them.
   * @param {string} turnId
   */
  recover(turnId) {
    const turn = this.open()
      .index()
      .turns.find((t) => t.id === turnId);
    if (!turn) throw new InputError(`no turn ${JSON.stringify(turnId)} in this session`);
    const at = new Map(this.ids.map((id, i) => [id, i]));
    return { turnId, messages: turn.entries.map((e) => this.history[at.get(e.id) ?? -1]).filter(Boolean) };
  }

  /** The topics of the indexed history, each with its turn ids. */
  topics() {
    const live = this.open();
    const ids = live.index().turns.map((t) => t.id);
    return live.topics().topics.map((t) => ({ id: t.id, label: t.label, turnIds: ids.slice(t.firstTurn, t.lastTurn + 1) }));
  }

  /** Releases the core session's memory; the session cannot be used afterwards. */
  free() {
    this.live?.free();
    this.live = undefined;
    this.indexed = [];
    this.history = [];
  }

  [Symbol.dispose]() {
    this.free();
  }

  /** @private */
  open() {
    if (!this.live) throw new Error("contextfold: this session was freed");
    if (this.core.poisoned) throw new Error("contextfold: this session's engine instance failed earlier; open a new session");
    return this.live;
  }

  /**
   * Brings the index up to `messages`: appends what is new, rebuilds after a change.
   * @private
   * @param {LiveCore} live this session's core session (open)
   * @param {readonly Message[]} messages
   */
  index(live, messages) {
    let same = 0;
    const n = Math.min(this.indexed.length, messages.length);
    while (same < n && sameJson(messages[same], this.indexed[same])) same++;
    if (same < this.indexed.length) {
      this.indexed = [];
      this.ids = [];
      this.taken = new Set();
      same = 0;
    }
    const added = messages.slice(same);
    if (added.length === 0 && same > 0) return;
    const entries = messageEntries(this.core, added, { offset: same, parentId: this.ids.at(-1) ?? null, taken: this.taken });
    if (same === 0) live.rebuild(entries);
    else if (live.append(entries).rewrite) throw new Error(`contextfold: the index did not take messages ${same}… as a continuation`);
    for (const e of entries) {
      this.ids.push(e.id);
      this.indexed.push(structuredClone(e.message));
    }
  }
}

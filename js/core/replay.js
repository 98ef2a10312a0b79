// A replay: a recorded session sent again turn by turn the way OpenClaw drives the engine
// (before each user turn, the history before its user message, with its text as the prompt),
// and what the requests would cost next to the two baselines: pass-through (the whole history
// every time) and a recency window (the newest messages that fit the budget, from a turn
// boundary). Pure (no I/O): the CLI drives the plugin's adapter (js/openclaw/replay.js), the
// playground drives a core session the same way (`replaySession` here), and both measure the
// requests with `replaySummary`, which uses the one reuse rule (cache.js) and the one set of
// prices (pricing.js).
import { HOST_COUNT_REPLANS, historyBudget, scaledBudget, smallerScale } from "./room.js";
import { scanJsonl, activeBranch, toEntry } from "./readers.js";
import { applySteps } from "./core.js";
import { compareRequests, BREAK_REASONS } from "./cache.js";
import { PRICE_NAMES, PRICE_PRESETS, PRICE_RULES, billedTokens, costOf } from "./pricing.js";

/** @import { Message } from "./types.js" */
/** @import { Core } from "./core.js" */
/** @import { TranscriptEntry } from "./readers.js" */
/** @import { PrefixBreak } from "./cache.js" */
/** @import { BilledTokens, PriceName, PricePreset } from "./pricing.js" */

/**
 * A line of the replayed transcript: its JSON value, and its bytes' range in an OpenClaw JSONL.
 * @typedef {{value: Record<string, any>, range?: [number, number]}} TranscriptLine
 */

/**
 * The session as the host's transcript holds it (`replayTimeline`).
 * @typedef {object} ReplayTimeline
 * @property {TranscriptLine[]} lines
 * @property {Record<string, any> | null} header  the OpenClaw session header line
 * @property {TranscriptEntry[]} entries  the index entry of each line
 * @property {Message[]} messages
 * @property {number[]} entryOfMessage  the line of each message
 */

/** One replayed request: the user message's position, and the messages sent before it. @typedef {{turn: number, messages: Message[]}} ReplayRequest */

/** @typedef {keyof typeof REPLAY_METHODS} ReplayMethod */

/**
 * One request of a method as measured (`replaySummary`).
 * @typedef {object} RequestMeasure
 * @property {number} turn
 * @property {number} messages
 * @property {number} tokens
 * @property {number} commonTokens
 * @property {number | null} reuse
 * @property {boolean} appendOnly
 * @property {PrefixBreak} [break]
 * @property {Record<string, BilledTokens>} billed  by preset name
 */

/**
 * What a method's requests cost with one preset, also relative to pass-through and to the
 * recency window (null when those cost nothing).
 * @typedef {{usd: number, read: number, written: number, input: number, vsPassThrough: number | null, vsRecency: number | null}} MethodCost
 */

/**
 * One method's requests as measured.
 * @typedef {object} MethodMeasure
 * @property {number} requests
 * @property {{mean: number, max: number, total: number}} tokens
 * @property {number} overBudget  requests over the budget
 * @property {number | null} meanReuse
 * @property {number} breaks
 * @property {Record<string, number>} breakReasons  breaks by cause (a key of BREAK_REASONS)
 * @property {Record<string, MethodCost>} cost  by preset name
 * @property {RequestMeasure[]} perRequest
 */

/**
 * `replaySummary`: the methods measured over the same turns, and the prices used.
 * @typedef {object} ReplaySummary
 * @property {number} budget
 * @property {number} requests
 * @property {{first: number | null, last: number | null}} turns
 * @property {Record<ReplayMethod, MethodMeasure>} methods
 * @property {Record<string, PricePreset & {ruleText: string}>} prices
 * @property {Readonly<Record<string, string>>} breakReasons  what each cause means (BREAK_REASONS)
 */

/** Token cap of the extractive summaries the adapter's background step makes without an LLM (background.js). */
const SUMMARY_TOKENS = 120;
/** At most this many turns wait for a summary (LiveSession, js/openclaw/live.js). */
const MAX_PENDING_SUMMARIES = 64;

/** @param {unknown} v @returns {v is Record<string, unknown>} */
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * An Anthropic user message that only carries tool results.
 * @param {Message | undefined} m
 */
function carriesToolResults(m) {
  return Array.isArray(m?.content) && m.content.length > 0 && m.content.every((p) => p?.type === "tool_result");
}

/**
 * True when a message opens a turn: a user message that is not only tool results (the core's rule).
 * @param {Message | undefined} m
 */
export function startsTurn(m) {
  return m?.role === "user" && !carriesToolResults(m);
}

/** @param {Message | undefined} m */
function isToolResult(m) {
  return m?.role === "toolResult" || m?.role === "tool" || (m?.role === "user" && carriesToolResults(m));
}

/**
 * The text a user message carries (what the host passes as the prompt).
 * @param {Message | undefined} m
 * @returns {string}
 */
export function promptText(m) {
  if (typeof m?.content === "string") return m.content;
  return (Array.isArray(m?.content) ? m.content : [])
    .filter((p) => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

/**
 * Positions of the user messages a replay sends as prompts: every turn start with history
 * before it, the last `k` of them when `k` is given.
 * @param {readonly Message[]} messages
 * @param {number} [k]
 * @returns {number[]}
 */
export function replayTurns(messages, k) {
  /** @type {number[]} */
  const all = [];
  messages.forEach((m, i) => {
    if (i > 0 && startsTurn(m)) all.push(i);
  });
  return k === undefined ? all : all.slice(Math.max(0, all.length - k));
}

/**
 * The session as the host's transcript holds it: the active branch, oldest first, each entry
 * with the bytes of its line when the input is an OpenClaw JSONL. Any other input (a Claude
 * Code transcript, a message list) becomes a linear transcript with ids m0001, m0002, … (as an
 * import would write it).
 * @param {import("./readers.js").BranchRule} core the core, whose rule picks the active branch
 * @param {{format: string, messages: Message[]}} read what `readMessages` returned
 * @param {Uint8Array} [bytes] the input's bytes (an OpenClaw JSONL)
 * @param {string} [name]
 * @returns {ReplayTimeline}
 */
export function replayTimeline(core, read, bytes, name = "input") {
  /** @type {TranscriptLine[]} */
  let lines;
  let header = null;
  if (read.format === "openclaw") {
    const scan = scanJsonl(/** @type {Uint8Array} */ (bytes), { name, strict: true, final: true });
    header = scan.records.find((r) => r.value?.type === "session")?.value ?? null;
    lines = activeBranch(scan.records, { name, core }).branch.map((r) => ({ value: r.value, range: [r.start, r.end] }));
  } else {
    lines = read.messages.map((message, i) => ({
      value: { type: "message", id: `m${String(i + 1).padStart(4, "0")}`, parentId: i > 0 ? `m${String(i).padStart(4, "0")}` : null, message },
    }));
  }
  /** @type {Message[]} */
  const messages = [];
  /** @type {number[]} */
  const entryOfMessage = [];
  lines.forEach((l, i) => {
    if (l.value.type === "message" && isObject(l.value.message)) {
      messages.push(l.value.message);
      entryOfMessage.push(i);
    }
  });
  // Every line is an entry with an id (the active branch, or the ids given above): none is null.
  const entries = /** @type {TranscriptEntry[]} */ (lines.map((l) => toEntry(l.value, l.range)));
  return { lines, header, entries, messages, entryOfMessage };
}

/**
 * Where the recency window of `history` starts: the newest messages whose tokens (`tokensAt[i]`
 * for message i) fit `budget`, from the first turn start among them; when the newest turn
 * alone does not fit, from the first of them that is not a tool result (never a result
 * without its call). Nothing is pinned.
 * @param {readonly Message[]} history
 * @param {readonly number[]} tokensAt
 * @param {number} budget
 */
export function recencyStart(history, tokensAt, budget) {
  let i = history.length;
  let sum = 0;
  while (i > 0 && sum + tokensAt[i - 1] <= budget) {
    sum += tokensAt[i - 1];
    i--;
  }
  for (let j = i; j < history.length; j++) if (startsTurn(history[j])) return j;
  while (i < history.length && isToolResult(history[i])) i++;
  return i;
}

/**
 * Plans the replay's requests with a live core session, as the plugin's adapter does per turn
 * (js/openclaw/engine.js, live.js, background.js) without its files and clock: the index is fed
 * the transcript up to the turn, `assemble` plans the history with the prompt, the turn's
 * entries land, then the background step makes the extractive summaries the plan queued and
 * the heuristic sub-topic label of the newest planned turn. (The playground replays this way;
 * the CLI drives the adapter itself.)
 * @param {Core} core a loaded core (js/core/core.js `wrapGlue`)
 * @param {ReplayTimeline} timeline
 * @param {{turns: number[], config?: object, budget: number, onRequest?: (j: number) => void}} o
 * @returns {ReplayRequest[]}
 */
export function replaySession(core, timeline, { turns, config = {}, budget, onRequest }) {
  const { entries, entryOfMessage, messages } = timeline;
  /** @type {ReplayRequest[]} */
  const requests = [];
  if (turns.length === 0) return requests;
  const s = core.newSession(config);
  try {
    let fed = entryOfMessage[turns[0]];
    s.rebuild(entries.slice(0, fed));
    const summarized = new Set();
    const labelled = new Set();
    /** @type {string[]} */
    let pending = [];
    /** @type {number | undefined} */
    let hostScale;
    for (let j = 0; j < turns.length; j++) {
      const u = turns[j];
      const history = messages.slice(0, u);
      // The history's budget as the plugin's adapter derives it from the host's (room.js),
      // and planned within the host's count as the adapter plans it (engine.js `planWithin`).
      const target = historyBudget({ tokenBudget: budget }).budget;
      const req = { messages: history, prompt: promptText(messages[u]) };
      let r = s.assemble({ ...req, budget: target === undefined ? undefined : scaledBudget(target, hostScale) });
      for (let i = 0; target !== undefined && i < HOST_COUNT_REPLANS; i++) {
        const scale = smallerScale(applySteps(history, r.steps), r, target, hostScale);
        if (scale === undefined) break;
        hostScale = scale;
        r = s.assemble({ ...req, budget: scaledBudget(target, scale) });
      }
      const planned = new Map((r.turns ?? []).map((t) => [t.id, t]));
      pending = [...new Set([...pending, ...(r.summarize ?? [])])].filter((id) => planned.has(id) && !summarized.has(id)).slice(-MAX_PENDING_SUMMARIES);
      requests.push({ turn: u, messages: applySteps(history, r.steps) });
      onRequest?.(j);
      const upto = j + 1 < turns.length ? entryOfMessage[turns[j + 1]] : entries.length;
      if (upto > fed) {
        if (s.append(entries.slice(fed, upto)).rewrite) s.rebuild(entries.slice(0, upto));
        fed = upto;
      }
      /** @type {Record<string, string>} */
      const made = {};
      for (const id of pending) {
        const t = planned.get(id);
        if (!Array.isArray(t?.range)) continue;
        made[id] = core.summarize(id, history.slice(t.range[0], t.range[1]), SUMMARY_TOKENS);
        summarized.add(id);
      }
      if (Object.keys(made).length > 0) s.setSummaries(made);
      pending = pending.filter((id) => !summarized.has(id));
      const last = r.turns?.[r.turns.length - 1];
      if (last && !labelled.has(last.id)) {
        const label = s.heuristicSubtopic(last.id);
        if (label) {
          s.setSubtopics({ [last.id]: label });
          labelled.add(last.id);
        }
      }
    }
  } finally {
    s.free();
  }
  return requests;
}

/**
 * The engine's token estimate of one message, remembered by object and by content (the
 * requests of a replay repeat the same messages, and the same stubs and summaries, many times).
 * @param {Pick<Core, "estimateTokens">} core
 * @returns {(m: Message) => number}
 */
export function tokenCounter(core) {
  /** @type {WeakMap<Message, number>} */
  const byObject = new WeakMap();
  /** @type {Map<string, number>} */
  const byText = new Map();
  return (m) => {
    let n = byObject.get(m);
    if (n !== undefined) return n;
    const key = JSON.stringify(m);
    n = byText.get(key);
    if (n === undefined) {
      n = core.estimateTokens([m]);
      byText.set(key, n);
    }
    byObject.set(m, n);
    return n;
  };
}

/** The methods a replay compares, in report order. */
export const REPLAY_METHODS = Object.freeze({
  contextfold: "contextfold",
  passThrough: "pass-through",
  recency: "recency window",
});

/**
 * Measures one method's requests (given one by one, so none is held longer than needed).
 * The costs relative to the other methods are filled in by `replaySummary`.
 * @param {number} count
 * @param {(j: number) => Message[]} requestAt
 * @param {readonly number[]} turns
 * @param {(m: Message) => number} tokensOf
 * @param {number} budget
 * @param {Record<string, PricePreset>} presets
 * @returns {MethodMeasure}
 */
function measureMethod(count, requestAt, turns, tokensOf, budget, presets) {
  /** @type {RequestMeasure[]} */
  const perRequest = [];
  /** @type {Record<string, MethodCost>} */
  const cost = Object.fromEntries(Object.keys(presets).map((k) => [k, { usd: 0, read: 0, written: 0, input: 0, vsPassThrough: null, vsRecency: null }]));
  /** @type {Record<string, number>} */
  const breakReasons = {};
  /** @type {Message[] | null} */
  let prev = null;
  let tokenSum = 0;
  let maxTokens = 0;
  let reuseSum = 0;
  let reused = 0;
  let overBudget = 0;
  for (let j = 0; j < count; j++) {
    const cur = requestAt(j);
    const row = compareRequests(prev, cur, tokensOf);
    tokenSum += row.tokens;
    maxTokens = Math.max(maxTokens, row.tokens);
    if (row.tokens > budget) overBudget++;
    if (row.reuse !== null) {
      reuseSum += row.reuse;
      reused++;
    }
    if (row.break) breakReasons[row.break.reason] = (breakReasons[row.break.reason] ?? 0) + 1;
    /** @type {Record<string, BilledTokens>} */
    const billed = {};
    for (const [k, p] of Object.entries(presets)) {
      const b = billedTokens(p.rule, row);
      const c = cost[k];
      c.usd += costOf(p, b);
      c.read += b.read;
      c.written += b.written;
      c.input += b.input;
      billed[k] = b;
    }
    perRequest.push({
      turn: turns[j],
      messages: cur.length,
      tokens: row.tokens,
      commonTokens: row.commonTokens,
      reuse: row.reuse,
      appendOnly: row.appendOnly,
      ...(row.break ? { break: row.break } : {}),
      billed,
    });
    prev = cur;
  }
  return {
    requests: count,
    tokens: { mean: count ? tokenSum / count : 0, max: maxTokens, total: tokenSum },
    overBudget,
    meanReuse: reused ? reuseSum / reused : null,
    breaks: Object.values(breakReasons).reduce((a, b) => a + b, 0),
    breakReasons,
    cost,
    perRequest,
  };
}

/**
 * Measures a replay: the engine's requests, and pass-through and the recency window over the
 * same turns, each with tokens per request, prefix reuse, breaks and their causes, and the
 * cost under each price preset (also relative to pass-through and to the recency window).
 * @param {object} o
 * @param {Message[]} o.messages  the session's messages (active branch)
 * @param {number[]} o.turns     the replayed user messages' positions
 * @param {Message[][]} o.requests the engine's request for each turn (messages, without the prompt)
 * @param {(m: Message) => number} o.tokensOf tokens of one message
 * @param {number} o.budget
 * @param {readonly PriceName[]} [o.prices]  preset names (default: all)
 * @returns {ReplaySummary}
 */
export function replaySummary({ messages, turns, requests, tokensOf, budget, prices = PRICE_NAMES }) {
  /** @type {Record<string, PricePreset>} */
  const presets = Object.fromEntries(prices.map((k) => [k, PRICE_PRESETS[k]]));
  const tokensAt = messages.map(tokensOf);
  const methods = {
    contextfold: measureMethod(turns.length, (j) => requests[j], turns, tokensOf, budget, presets),
    passThrough: measureMethod(turns.length, (j) => messages.slice(0, turns[j]), turns, tokensOf, budget, presets),
    recency: measureMethod(
      turns.length,
      (j) => {
        const history = messages.slice(0, turns[j]);
        return history.slice(recencyStart(history, tokensAt, budget));
      },
      turns,
      tokensOf,
      budget,
      presets,
    ),
  };
  for (const m of Object.values(methods)) {
    for (const [k, c] of Object.entries(m.cost)) {
      const pass = methods.passThrough.cost[k].usd;
      const rec = methods.recency.cost[k].usd;
      c.vsPassThrough = pass > 0 ? c.usd / pass : null;
      c.vsRecency = rec > 0 ? c.usd / rec : null;
    }
  }
  return {
    budget,
    requests: turns.length,
    turns: { first: turns[0] ?? null, last: turns[turns.length - 1] ?? null },
    methods,
    prices: Object.fromEntries(Object.entries(presets).map(([k, p]) => [k, { ...p, ruleText: PRICE_RULES[p.rule] }])),
    breakReasons: BREAK_REASONS,
  };
}

// Prompt-cache reuse between consecutive requests (EVALUATION.md §4): how much of the previous
// request a provider could serve from its cache, and, when the new request does not repeat
// the previous one whole, where and why the prefix broke. Pure (no I/O, no wasm): the replay
// command, the playground and the benchmarks measure with this one rule, each with its own
// token count (the engine's estimate, or an exact tokenizer).
//
// Two messages are the same when their JSON is equal, key order included (what a provider's
// cache sees). The cause of a break is read from the two messages at the first difference,
// using the markers the core writes into what it folds (crate/src/fold/summary/, fold/truncate.rs).
// This module never decides what is sent; it only compares.
import { sameJson } from "./core.js";
import { describeMessage } from "./describe.js";

/** @import { Message } from "./types.js" */

/** Why a prefix broke, by the key `compareRequests` reports. */
export const BREAK_REASONS = Object.freeze({
  "stub rewritten": "a stub sent before changed (another turn joined it, or its label or size changed)",
  "turn folded": "a turn sent before is now a stub",
  "summary landed": "a turn sent before is now its summary",
  "turn restored": "a folded turn (stub, summary or cut tool result) is back in full",
  "tool result truncated": "a tool result sent before is now cut to head and tail",
  "messages dropped": "messages sent before are no longer sent at this position (the window slid, or turns were left out)",
  "messages inserted": "messages were inserted before the end of the previous request",
  "cleaned differently": "the same message is sent with other parts (thinking, tool calls)",
  "message changed": "the message differs in another way",
});

/** @typedef {keyof typeof BREAK_REASONS} BreakReason */
/** @typedef {"stub" | "summary" | "truncated" | "plain"} FoldKind */

/**
 * Where a request's prefix broke against the previous request: the first message that
 * differs (`index`), why, and the two messages (at position `shown`) that tell why.
 * @typedef {{index: number, reason: BreakReason, shown: number, previous: string | null, current: string | null}} PrefixBreak
 */

/**
 * A request compared with the previous one (`compareRequests`).
 * @typedef {object} RequestComparison
 * @property {number} tokens
 * @property {number} previousTokens
 * @property {number} commonMessages
 * @property {number} commonTokens
 * @property {number | null} reuse
 * @property {boolean} appendOnly
 * @property {PrefixBreak} [break]
 */

const STUB = "[folded";
const SUMMARY = "[summary of turn ";
const TRUNCATED = " characters omitted by contextfold";
/** How far ahead a shifted message is looked for (dropped or inserted messages). */
const SHIFT_WINDOW = 16;

/**
 * The text parts of a message (also those inside Anthropic tool_result blocks).
 * @param {Message | undefined} m
 * @returns {string[]}
 */
function texts(m) {
  /** @type {string[]} */
  const out = [];
  /** @param {unknown} c */
  const walk = (c) => {
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) {
      for (const p of c) {
        if (typeof p === "string") out.push(p);
        else if (p?.type === "text" && typeof p.text === "string") out.push(p.text);
        else if (p?.type === "tool_result") walk(p.content);
      }
    }
  };
  walk(m?.content);
  return out;
}

/**
 * What the core made of a message: a stub, a summary, a cut tool result, or none of these.
 * @param {Message | undefined} m
 * @returns {FoldKind}
 */
export function foldKind(m) {
  const t = texts(m);
  if (t.some((s) => s.startsWith(STUB))) return "stub";
  if (t.some((s) => s.startsWith(SUMMARY))) return "summary";
  if (t.some((s) => s.includes(TRUNCATED))) return "truncated";
  return "plain";
}

/**
 * True when `c` is `p` with its text shortened, or shortened differently (the ask of a turn
 * that folds keeps its start, ending with "…").
 * @param {Message | undefined} p
 * @param {Message | undefined} c
 */
function shortened(p, c) {
  if (p?.role !== c?.role) return false;
  /** @param {string} t */
  const cut = (t) => (t.endsWith("…") ? t.slice(0, -1).trimEnd() : t);
  const a = texts(p).join("\n");
  const b = texts(c).join("\n");
  if (a === b || !(a.endsWith("…") || b.endsWith("…"))) return false;
  return a.startsWith(cut(b)) || b.startsWith(cut(a));
}

/**
 * True when `m` is among the messages shortly after position `from` of `xs`.
 * @param {readonly Message[]} xs
 * @param {number} from
 * @param {Message | undefined} m
 */
function shifted(xs, from, m) {
  for (let d = 1; d <= SHIFT_WINDOW && from + d < xs.length; d++) if (sameJson(xs[from + d], m)) return true;
  return false;
}

/**
 * Why `cur` differs from `prev` at message `i` (the first position where they differ, with
 * `i < prev.length`): `reason`, one key of BREAK_REASONS, and `at`, the position whose
 * messages tell it (`i`, or the next one when message `i` is the shortened ask of a turn that
 * folded).
 * @param {readonly Message[]} prev
 * @param {readonly Message[]} cur
 * @param {number} i
 * @returns {{reason: BreakReason, at: number}}
 */
export function breakCause(prev, cur, i) {
  if (i >= cur.length) return { reason: "messages dropped", at: i };
  const p = prev[i];
  const now = cur[i];
  // A turn that folds keeps its ask, shortened, before the stub or summary that follows it.
  const at = shortened(p, now) && i + 1 < cur.length ? i + 1 : i;
  const kp = at < prev.length ? foldKind(prev[at]) : "plain";
  const kc = foldKind(cur[at]);
  /** @param {BreakReason} reason */
  const is = (reason) => ({ reason, at });
  if (kc === "stub") return is(kp === "stub" ? "stub rewritten" : "turn folded");
  if (kc === "summary" && kp !== "summary") return is("summary landed");
  if (kp !== "plain" && kc !== kp) return is("turn restored");
  if (kc === "truncated" && kp !== "truncated") return is("tool result truncated");
  if (shifted(prev, i, now)) return is("messages dropped");
  if (shifted(cur, i, p)) return is("messages inserted");
  // The same message changed in place: same role and timestamp (or, without timestamps, same text).
  const sameText = texts(p).join("\n") === texts(now).join("\n");
  if (p?.role === now?.role && (p?.timestamp !== undefined ? p.timestamp === now?.timestamp : sameText))
    return is(sameText ? "cleaned differently" : "message changed");
  // Another message in its place: changed when what follows still lines up, otherwise the
  // messages sent before are gone from here on (a window that moved past them).
  if (i + 1 < prev.length && i + 1 < cur.length && sameJson(prev[i + 1], cur[i + 1])) return is("message changed");
  return is("messages dropped");
}

/**
 * Number of leading messages two requests share.
 * @param {readonly Message[]} prev
 * @param {readonly Message[]} cur
 */
export function commonPrefix(prev, cur) {
  let i = 0;
  while (i < prev.length && i < cur.length && sameJson(prev[i], cur[i])) i++;
  return i;
}

/**
 * Compares a request with the previous one (`prev` null for the first request).
 * @param {readonly Message[] | null} prev
 * @param {readonly Message[]} cur
 * @param {(m: Message) => number} tokensOf tokens of one message
 * @returns {RequestComparison}
 *   `reuse`: the share of the previous request's tokens that this one repeats from its start
 *   (null for the first request); `appendOnly`: this request starts with the whole previous one;
 *   `break`: where the prefix broke (the first message that differs), why, and the two
 *   messages (at position `shown`) that tell why
 */
export function compareRequests(prev, cur, tokensOf) {
  const tokens = cur.reduce((n, m) => n + tokensOf(m), 0);
  if (!prev) return { tokens, previousTokens: 0, commonMessages: 0, commonTokens: 0, reuse: null, appendOnly: false };
  const k = commonPrefix(prev, cur);
  let commonTokens = 0;
  for (let i = 0; i < k; i++) commonTokens += tokensOf(prev[i]);
  let previousTokens = commonTokens;
  for (let i = k; i < prev.length; i++) previousTokens += tokensOf(prev[i]);
  /** @type {RequestComparison} */
  const row = {
    tokens,
    previousTokens,
    commonMessages: k,
    commonTokens,
    reuse: previousTokens > 0 ? commonTokens / previousTokens : 1,
    appendOnly: k === prev.length,
  };
  if (k < prev.length) {
    const { reason, at } = breakCause(prev, cur, k);
    row.break = {
      index: k,
      reason,
      shown: at,
      previous: at < prev.length ? describeMessage(prev[at]) : null,
      current: at < cur.length ? describeMessage(cur[at]) : null,
    };
  }
  return row;
}

// Answer room: how many tokens the history may fill in one `assemble`, so that the model keeps
// room to answer on every model call of a turn, and how the host counts a request when it sets
// the answer's max tokens. Pure (no I/O, no clock): the engine passes in what the host said and
// what this turn's first call decided, and keeps the result. It never changes the host's own
// figures and never decides what to fold (the core does, within the budget given here).
//
// What OpenClaw (2026.9) hands an engine that owns compaction, per turn:
//   1. one assemble of the history before the prompt: `tokenBudget` is the window minus the
//      host's answer reserve (`runtimeSettings.limits.maxOutputTokens`) minus its estimate of
//      the system prompt and the prompt; the room is already set aside;
//   2. before every model call of the tool loop, an assemble of our own output again:
//      `tokenBudget` is the window (`limits.promptTokenBudget`) minus the pending messages (the
//      prompt, tool calls and results) and nothing else, so filling it leaves no room: the host
//      then cuts the answer's max tokens (it skips its own overflow check for such engines).
// The loop budget is therefore the turn's first budget minus what the loop added since its
// first call (the first budget counted the prompt already). Without these figures a
// documented share of the host's budget is kept back.

/** @import { Message } from "./types.js" */

/** Share of the host's budget kept back for the system prompt, tools and the answer when the host does not say how much it reserved. */
export const RESERVE_SHARE = 0.25;
/** The host counts characters / 4, times 1.25, when it fits the answer's max tokens into the window. */
export const HOST_CHARS_PER_TOKEN = 4;
export const HOST_MARGIN = 1.25;
/** Characters the host counts for an image. */
const HOST_IMAGE_CHARS = 8000;
// Characters the host counts four times (CJK, Hangul, full-width forms).
const NON_LATIN = /[\u2E80-\u9FFF\uA000-\uA4FF\uAC00-\uD7AF\uF900-\uFAFF\uFF01-\uFF60\uFFE0-\uFFE6\u{20000}-\u{2FA1F}]/gu;

/** @param {unknown} v @returns {number|undefined} */
const finite = (v) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * The context window and answer size the host's config lists for a model
 * (`models.providers.<provider>.models[]`), when known.
 * @param {any} config  the host's config
 * @param {string|undefined} provider
 * @param {string|undefined} modelId
 * @returns {{contextWindow?: number, maxTokens?: number}}
 */
export function modelLimits(config, provider, modelId) {
  const providers = config?.models?.providers ?? {};
  const lists = provider && providers[provider] ? [providers[provider]] : Object.values(providers);
  for (const p of lists) {
    const m = (Array.isArray(p?.models) ? p.models : []).find((/** @type {any} */ x) => x?.id === modelId);
    if (m) return { contextWindow: finite(m.contextWindow), maxTokens: finite(m.maxTokens) };
  }
  return {};
}

/**
 * What the host keeps back when it says nothing: a share of its budget, at least the model's answer (up to half).
 * @param {number} budget
 * @param {{maxTokens?: number}} model
 */
function reserveOf(budget, model) {
  return Math.max(Math.ceil(budget * RESERVE_SHARE), Math.min(model.maxTokens ?? 0, Math.floor(budget / 2)));
}

/**
 * The history budget of one assemble call.
 * @param {object} call
 * @param {number} [call.tokenBudget]  the host's `tokenBudget`
 * @param {{promptTokenBudget?: number|null, maxOutputTokens?: number|null}} [call.limits]  `runtimeSettings.limits`
 * @param {boolean} [call.inLoop] the host re-assembles our own output of this turn before a model call
 * @param {{contextWindow?: number, maxTokens?: number}} [model]  the model's limits (`modelLimits`)
 * @param {{budget: number, pending?: number, hostBudget?: number, reserve?: number}} [turn]  what this turn's first call decided
 * @returns {{budget?: number, turn?: {budget: number, pending?: number, hostBudget?: number, reserve?: number}, rule: string}}
 *   `turn`: what later calls of the same turn need (the caller keeps it)
 */
export function historyBudget(call, model = {}, turn) {
  const tb = finite(call.tokenBudget);
  if (tb === undefined) return { budget: undefined, turn, rule: "none" };
  const limits = call.limits ?? {};
  const reserved = finite(limits.maxOutputTokens);
  if (!call.inLoop && reserved !== undefined) {
    // the host set the room aside; a model whose answer is larger than that needs the rest
    const budget = Math.max(1, tb - Math.max(0, (model.maxTokens ?? 0) - reserved));
    return { budget, turn: { budget, hostBudget: tb, reserve: reserved }, rule: "host reserve" };
  }
  if (call.inLoop && turn) {
    const window = finite(limits.promptTokenBudget) ?? model.contextWindow;
    if (window !== undefined && window >= tb) {
      const pending = window - tb;
      const first = turn.pending ?? pending;
      const budget = Math.max(1, turn.budget - Math.ceil((pending - first) * HOST_MARGIN));
      return { budget, turn: { ...turn, pending: first }, rule: "loop" };
    }
    return { budget: Math.max(1, Math.min(turn.budget, tb - reserveOf(tb, model))), turn, rule: "loop without window" };
  }
  const budget = Math.max(1, tb - reserveOf(tb, model));
  return { budget, turn: { budget }, rule: "reserve" };
}

/**
 * The tokens the host counts for its system prompt (and the turn's prompt) in a window of
 * `window` tokens: what it held back from the turn's first budget besides the answer reserve.
 * Undefined unless the turn's first call said both.
 * @param {{hostBudget?: number, reserve?: number}|undefined} turn
 * @param {number|undefined} window
 * @returns {number|undefined}
 */
export function systemPromptTokens(turn, window) {
  const w = finite(window);
  if (w === undefined || finite(turn?.hostBudget) === undefined || finite(turn?.reserve) === undefined) return undefined;
  const n = w - /** @type {number} */ (turn?.hostBudget) - /** @type {number} */ (turn?.reserve);
  return n > 0 ? n : undefined;
}

/**
 * Characters of a string as the host counts them (non-Latin scripts four times).
 * @param {string|undefined} text
 */
function hostChars(text) {
  if (!text) return 0;
  const wide = text.match(NON_LATIN)?.length ?? 0;
  return text.length + 3 * wide;
}

/** @param {unknown} c */
function contentChars(c) {
  if (typeof c === "string") return hostChars(c);
  if (!Array.isArray(c)) return c == null ? 0 : hostChars(JSON.stringify(c));
  let n = 0;
  for (const p of c) {
    if (!p || typeof p !== "object") continue;
    if (p.type === "image" || p.type === "image_url" || p.type === "input_image") n += HOST_IMAGE_CHARS;
    else if (typeof p.text === "string") n += hostChars(p.text);
    else if (typeof p.thinking === "string") n += hostChars(p.thinking);
    else n += hostChars(JSON.stringify(p));
  }
  return n;
}

/**
 * The tokens the host counts for these messages when it fits the answer's max tokens into the
 * window (characters / 4 × 1.25 over text, reasoning and tool calls; an image as 8,000
 * characters). It counts most text higher than the engine's own estimate, so a history within
 * the budget by the engine's count can still leave the answer no room by the host's.
 * @param {any[]|undefined} messages
 */
export function hostTokens(messages) {
  let chars = 0;
  for (const m of messages ?? []) {
    if (!m || typeof m !== "object") continue;
    chars += contentChars(m.content);
    if (typeof m.reasoning_content === "string") chars += hostChars(m.reasoning_content);
    if (m.tool_calls !== undefined) chars += hostChars(JSON.stringify(m.tool_calls));
  }
  return Math.ceil((chars / HOST_CHARS_PER_TOKEN) * HOST_MARGIN);
}

/** Plans up to this many times more when the host would count the history over its budget. */
export const HOST_COUNT_REPLANS = 2;

/**
 * The budget to plan with so that the host counts the planned history within `target`:
 * `target` times the session's `scale` (the smallest ratio of the engine's estimate to the
 * host's count seen so far, at most 1). The scale only goes down, so from one request to
 * the next the budget, and with it the plan the next requests append to, stays the same.
 * @param {number} target
 * @param {number} [scale]
 */
export function scaledBudget(target, scale = 1) {
  return Math.max(1, Math.floor(target * Math.min(1, scale)));
}

/**
 * The scale to plan again with when the host would count a plan's history over `target`:
 * the engine's estimate of it over the host's count (what the engine estimates at `target`
 * times it, the host counts at about `target`); `undefined` when the host counts it within
 * `target`, or when a smaller budget would not help.
 * @param {Message[]} history  the history as planned (the plan's messages)
 * @param {{estimatedTokens: number, stats?: {overBudget?: boolean}}} r  the plan
 * @param {number} target
 * @param {number} [scale]  the scale it was planned with
 */
export function smallerScale(history, r, target, scale = 1) {
  const counted = hostTokens(history);
  if (counted <= target || r.estimatedTokens <= 0 || r.stats?.overBudget) return undefined;
  const next = r.estimatedTokens / counted;
  return next < Math.min(1, scale) ? next : undefined;
}

// The shapes the library hands back, made from the core's plans in one place, so that the
// one-shot calls and the live session answer alike (and as `contextfold <command> --json`
// prints them). Pure: no I/O, no core calls.
import { applySteps } from "../core/core.js";

/** @import { AssembleResult, CleanResult, Message, TurnExplanation } from "../core/types.js" */

/**
 * The per-turn explanations a caller sees.
 * @param {TurnExplanation[] | undefined} turns the core's
 * @returns {TurnExplanation[]}
 */
export function explainTurns(turns = []) {
  return turns.map((t) => ({
    id: t.id,
    topic: t.topic,
    decision: t.decision,
    reason: t.reason,
    tokensBefore: t.tokensBefore,
    tokensAfter: t.tokensAfter,
    protected: t.protected,
    range: t.range,
  }));
}

/**
 * What `assemble` returns: the messages to send (the caller's own objects where unchanged),
 * their estimated tokens, why each turn was kept or folded, the totals.
 * @param {readonly Message[]} messages the input
 * @param {Omit<AssembleResult, "folded">} r the core's plan
 * @param {{format: string, warnings?: string[]}} read
 */
export function assembled(messages, r, read) {
  return {
    messages: applySteps(messages, r.steps),
    estimatedTokens: r.estimatedTokens,
    turns: explainTurns(r.turns),
    stats: r.stats,
    ...notes(r, read),
  };
}

/**
 * What `clean` returns.
 * @param {readonly Message[]} messages the input
 * @param {CleanResult} r the core's plan
 * @param {{format: string, warnings?: string[]}} read
 */
export function cleaned(messages, r, read) {
  return { messages: applySteps(messages, r.steps), stats: r.stats, ...notes(r, read) };
}

/**
 * The input's format, and what went wrong on the way without stopping the call.
 * @param {{fallback?: string}} r
 * @param {{format: string, warnings?: string[]}} read
 */
function notes(r, { format, warnings }) {
  return {
    format,
    ...(r.fallback ? { fallback: r.fallback } : {}),
    ...(warnings?.length ? { warnings } : {}),
  };
}

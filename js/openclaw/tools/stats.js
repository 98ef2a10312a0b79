// context_stats and context_engine_status: what the session costs and whether the engine is
// serving it (the status report is shared with the /contextfold command). They refresh the
// index from the transcript and change none of the session's decisions, pins or settings.
import { SessionStore } from "../store.js";
import { breakdownTotals, indexOf, pinsOf, syncNote } from "./session.js";
import { obj } from "./schema.js";
import { fmt } from "./render.js";

/** @import { ToolDef } from "./session.js" */
/** @import { EngineDeps, OpenSession } from "../engine.js" */

/**
 * Everything `context_engine_status` reports, as `{text, details}`.
 * @param {OpenSession} s
 * @param {EngineDeps} deps
 */
export async function statusReport(s, deps) {
  const index = await indexOf(s);
  const key = s.sessionKey;
  const committed = await new SessionStore(deps.stateDir, key).committedCount().catch(() => 0);
  const slot = (() => {
    try {
      return deps.api?.config?.plugins?.slots?.contextEngine;
    } catch {
      return undefined;
    }
  })();
  const la = s.lastAssemble;
  const r = la?.result;
  const active = Boolean(la) || committed > 0;
  const why = [
    la ? `planned a request for this session at ${la.at}` : "no request planned for this session in this process yet",
    `${committed} committed turn record(s)`,
    slot !== undefined ? `engine slot: ${slot}` : null,
  ].filter(Boolean);
  const sums = Object.values(s.summaries ?? {});
  const pins = pinsOf(s);
  const llm = s.llm;
  const details = {
    sessionKey: key,
    active,
    activeReasons: why,
    slotSelected: slot === undefined ? null : slot === "contextfold",
    mode: s.config?.mode ?? "fold",
    lastAssemble: r
      ? {
          at: la.at,
          budget: r.stats.budget,
          messagesBefore: r.stats.clean.messagesBefore,
          messagesAfter: r.stats.clean.messagesAfter,
          tokensBefore: r.stats.clean.tokensBefore,
          tokensAfter: r.estimatedTokens,
          turns: r.stats.turns,
          kept: r.stats.kept,
          cleaned: r.stats.cleaned,
          truncated: r.stats.truncated,
          summarized: r.stats.summarized,
          stubbed: r.stats.stubbed,
          overBudget: r.stats.overBudget,
          fallback: r.fallback ?? null,
          recoveryTool: la.recoveryTool ?? null,
        }
      : null,
    index: { turns: index.turns.length, entries: index.entries, source: s.transcript?.kind ?? "none" },
    caches: {
      summaries: sums.length,
      llmSummaries: sums.filter((x) => x.source === "llm").length,
      foldedTurns: (s.state.folded ?? []).length,
      subtopicLabels: Object.keys(s.state.subtopics ?? {}).length,
      pins: pins.turnIds.length + pins.tools.length + pins.patterns.length,
    },
    pendingSummaries: [...(s.pendingSummaries ?? [])],
    llm: llm
      ? { callsLeft: llm.remaining().calls, tokensLeft: llm.remaining().tokens, callsUsed: llm.calls, failures: llm.failures, lastError: llm.lastError }
      : null,
    lastFallback: s.lastFallback ?? null,
  };
  const lines = [
    `contextfold ${active ? "ACTIVE" : "NOT ACTIVE YET"} for session ${key} (${why.join("; ")})${details.slotSelected === false ? " — WARNING: plugins.slots.contextEngine does not select contextfold" : ""}`,
    `mode ${details.mode}; index ${index.turns.length} turns from ${details.index.source}`,
    r
      ? `last request: ${r.stats.clean.messagesBefore}→${r.stats.clean.messagesAfter} msgs, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens of ${fmt(r.stats.budget)}; turns kept ${r.stats.kept}, cleaned ${r.stats.cleaned}, truncated ${r.stats.truncated}, summarized ${r.stats.summarized}, stubbed ${r.stats.stubbed}${r.stats.overBudget ? " (OVER BUDGET: the protected turns alone exceed it)" : ""}; recovery tool ${la.recoveryTool === undefined ? "offered: unknown" : la.recoveryTool ? "offered to the model" : "NOT offered to the model"}`
      : "last request: none in this process",
    `caches: ${details.caches.summaries} summaries (${details.caches.llmSummaries} by LLM), ${details.caches.foldedTurns} folded turns, ${details.caches.subtopicLabels} sub-topic labels, ${details.caches.pins} pins`,
    `background queue: ${details.pendingSummaries.length} turn(s) waiting for a summary`,
    llm
      ? `LLM budget left: ${fmt(details.llm?.callsLeft)} calls, ${fmt(details.llm?.tokensLeft)} tokens (used ${llm.calls} calls, ${llm.failures} failures${llm.lastError ? `, last error: ${llm.lastError}` : ""})`
      : "LLM budget: not used yet",
    s.lastFallback ? `last fallback: ${s.lastFallback.at}: ${s.lastFallback.reason}` : "last fallback: none",
  ];
  return { text: lines.join("\n"), details };
}

/**
 * context_stats and context_engine_status.
 * @returns {ToolDef[]}
 */
export function statsTools() {
  return [
    {
      name: "context_stats",
      description:
        "Token usage of this session: messages and tokens before/after the last request the engine planned, the whole session's tokens by role (user, assistant, tool results) and part type (text, thinking, tool calls, images), the prune strategy, and cache figures (summaries, folded turns, pins).",
      parameters: obj({}),
      async run({ s }) {
        const note = await syncNote(s);
        const index = await indexOf(s);
        const totals = breakdownTotals(index);
        const r = s.lastAssemble?.result;
        const strategy = s.state.prune?.strategy ?? "fifo";
        const details = {
          lastRequest: r
            ? {
                at: s.lastAssemble?.at,
                messagesBefore: r.stats.clean.messagesBefore,
                messagesAfter: r.stats.clean.messagesAfter,
                tokensBefore: r.stats.clean.tokensBefore,
                tokensAfter: r.estimatedTokens,
                budget: r.stats.budget,
              }
            : null,
          session: { turns: index.turns.length, entries: index.entries, tokens: totals },
          strategy,
          cache: {
            summaries: Object.keys(s.summaries ?? {}).length,
            foldedTurns: (s.state.folded ?? []).length,
            pins: pinsOf(s),
            prefixStability: s.prefixStability ?? null,
          },
        };
        const pct = (/** @type {number} */ a, /** @type {number} */ b) => (b ? Math.round((100 * a) / b) : 0);
        const lines = [
          r
            ? `last request (${s.lastAssemble?.at}): ${r.stats.clean.messagesBefore}→${r.stats.clean.messagesAfter} messages, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens (budget ${fmt(r.stats.budget)}, ${pct(r.stats.clean.tokensBefore - r.estimatedTokens, r.stats.clean.tokensBefore)}% saved)`
            : "last request: none planned in this process yet",
          `session: ${index.turns.length} turns, ~${fmt(totals.total)} tokens — by role: user ${fmt(totals.user)}, assistant ${fmt(totals.assistant)}, tool results ${fmt(totals.toolResult)}, other ${fmt(totals.other)}; by part: text ${fmt(totals.text)}, thinking ${fmt(totals.thinking)}, tool calls ${fmt(totals.toolCall)}, images ${fmt(totals.image)}`,
          `prune strategy: ${strategy}`,
          `cache: ${details.cache.summaries} summaries, ${details.cache.foldedTurns} folded turns, ${details.cache.pins.turnIds.length + details.cache.pins.tools.length + details.cache.pins.patterns.length} pins${s.prefixStability ? `, prefix stability ${JSON.stringify(s.prefixStability)}` : ""}`,
        ];
        if (note) lines.push(note);
        return { text: lines.join("\n"), details };
      },
    },
    {
      name: "context_engine_status",
      description:
        "Is contextfold active for this session, and how is it doing: whether it planned a request for this session in this process and how many turns it committed, the last request's figures, caches (summaries, folded turns, labels, pins), the background summary queue, the LLM budget left, and the last fallback with its reason.",
      parameters: obj({}),
      async run({ s, deps }) {
        return statusReport(s, deps);
      },
    },
  ];
}

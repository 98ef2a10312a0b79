// context_prune, context_summarize and context_engine_compact: fold old turns now, on the
// agent's request. Folding adds turns to the session's sticky folded set (as stubs or their
// summaries from the next request on); the transcript is never changed and every turn stays
// recoverable. Recent (protected), pinned and live turns are never chosen.
import { createEngine } from "../engine.js";
import { splitConfig } from "../../core/config.js";
import { pickComplete } from "../llm.js";
import { summarizeQueued } from "../background.js";
import { ToolError } from "./errors.js";
import { STRATEGIES, TURN_ID, obj } from "./schema.js";
import { TOOL_DEADLINE_MS, currentMessages, findTurn, indexOf, originalMessages, pinnedTurnIds, pinsOf, preview, protectedCount, syncNote } from "./session.js";
import { fmt } from "./render.js";

/** @import { ToolDef } from "./session.js" */
/** @import { IndexTurn } from "../../core/types.js" */
/** @import { LiveState } from "../live.js" */

/**
 * context_prune, context_summarize and context_engine_compact.
 * @returns {ToolDef[]}
 */
export function foldTools() {
  return [
    {
      name: "context_prune",
      description:
        "Prune old turns now, so the next request is smaller. Strategies: fifo (oldest first until targetTokens or maxTurns), sliding-window (keep the keepMessages most recent messages), importance (lowest role weight × tool presence × content length × recency first, until targetTokens or maxTurns). Defaults come from context_set_strategy. " +
        "Pruning FOLDS the chosen turns (adds them to the session's sticky folded set): from the next request on each is sent as its summary (an LLM's when one was made, else an extractive one of its asks, answer, ids and facts) or, when too small for one, as a one-line stub naming its turn id. Folding rather than deleting keeps pairing valid and every turn recoverable with context_engine_recover (unfold: true restores it). Recent (protected), pinned and live turns are never pruned. dryRun: true only shows the choice.",
      parameters: obj({
        strategy: { type: "string", enum: STRATEGIES, description: "fifo, sliding-window or importance (default: the session's strategy)." },
        keepMessages: { type: "integer", minimum: 1, maximum: 1000000, description: "sliding-window: how many of the most recent messages to keep." },
        targetTokens: {
          type: "integer",
          minimum: 0,
          maximum: 100000000,
          description: "fifo / importance: prune until the request is estimated at most this many tokens.",
        },
        maxTurns: { type: "integer", minimum: 1, maximum: 100000, description: "Prune at most this many turns." },
        dryRun: { type: "boolean", description: "Only report what would be pruned (default false)." },
      }),
      async run({ s, core }, p) {
        const note = await syncNote(s);
        /** @type {Partial<NonNullable<LiveState["prune"]>>} */
        const saved = s.state.prune ?? {};
        const strategy = p.strategy ?? saved.strategy ?? "fifo";
        // the saved defaults belong to the saved strategy
        const useSaved = !p.strategy || p.strategy === (saved.strategy ?? "fifo");
        const opts = {
          keepMessages: p.keepMessages ?? (useSaved ? saved.keepMessages : undefined),
          targetTokens: p.targetTokens ?? (useSaved ? saved.targetTokens : undefined),
          maxTurns: p.maxTurns ?? (useSaved ? saved.maxTurns : undefined),
        };
        if (strategy === "sliding-window" && opts.keepMessages === undefined)
          throw new ToolError("sliding-window needs keepMessages (how many recent messages to keep)");
        if (strategy !== "sliding-window" && opts.targetTokens === undefined && opts.maxTurns === undefined)
          throw new ToolError(`${strategy} needs targetTokens (a token target for the next request) or maxTurns (how many turns to prune)`);
        const { messages, source } = await currentMessages(s);
        if (!messages.length) return { text: "nothing to prune: no messages known for this session yet", details: { pruned: [] } };
        const w = await s.session();
        const index = w.index();
        // what each turn costs in the next request as planned now (cleaned, pins and config applied)
        const budget = s.lastAssemble?.budget;
        const planned = await preview(s, messages, budget);
        /** @type {Record<string, number>} */
        const turnTokens = {};
        for (const t of planned.turns ?? []) turnTokens[t.id] = t.tokensAfter;
        const r = core.prune({
          messages,
          strategy,
          ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
          protectRecentTurns: protectedCount(core, s),
          preserveSystemMessages: s.config?.preserveSystemMessages ?? true,
          pins: pinsOf(s),
          idsByKey: Object.fromEntries(index.turns.map((t) => [t.key, t.id])),
          turnTokens,
          exclude: w.folded(),
        });
        let after = null;
        if (!p.dryRun && r.turnIds.length) {
          w.setFolded([...new Set([...w.folded(), ...r.turnIds])]);
          await s.saveState();
          after = (await preview(s, messages, budget)).estimatedTokens;
        }
        const ids = r.turnIds;
        const lines = [
          `${p.dryRun ? "would prune" : "pruned"} ${ids.length} turn(s) by ${strategy}${ids.length ? `: ${ids.slice(0, 20).join(", ")}${ids.length > 20 ? ` … (+${ids.length - 20})` : ""}` : ""}`,
          `estimate: ~${fmt(r.tokensBefore)} → ~${fmt(r.tokensAfter)} tokens with the turns removed${after !== null ? `; the next request as planned now: ~${fmt(planned.estimatedTokens)} → ~${fmt(after)} tokens (pruned turns become summaries or one-line stubs)` : ""}; target ${r.targetMet ? "met" : "not met"}`,
          `not pruned: ${r.skipped.protected} protected (recent or live), ${r.skipped.pinned} pinned, ${r.skipped.excluded} already folded${r.skipped.gate ? `, ${r.skipped.gate} refused by the validity gate` : ""}`,
          ids.length && !p.dryRun ? "recover any of them with context_engine_recover (turnId; unfold: true sends it in full again)" : null,
          note,
        ].filter(Boolean);
        return {
          text: lines.join("\n"),
          details: {
            strategy,
            dryRun: Boolean(p.dryRun),
            source,
            turnIds: ids,
            pruned: r.pruned,
            tokensBefore: r.tokensBefore,
            tokensAfter: r.tokensAfter,
            plannedBefore: planned.estimatedTokens,
            nextRequestTokens: after,
            targetMet: r.targetMet,
            skipped: r.skipped,
          },
        };
      },
    },
    {
      name: "context_summarize",
      description:
        "Summarize old turns now and fold them: each turn gets a summary (by the LLM when available and useLlm is not false, else a deterministic extractive one from the core), stored in the session's summary cache, and from the next request on the turn is sent as that summary. Give turnIds, or count for the N oldest unsummarized turns. Recent and pinned turns are skipped. The transcript is never changed; context_engine_recover restores any turn.",
      parameters: obj({
        turnIds: { type: "array", items: TURN_ID, minItems: 1, maxItems: 50, description: "Turn ids to summarize (at most 50)." },
        count: { type: "integer", minimum: 1, maximum: 50, description: "Summarize the N oldest turns that are not protected, pinned or already summarized." },
        useLlm: { type: "boolean", description: "Use the LLM when available (default: the autoSummarize setting)." },
      }),
      async run({ s, core, deps, signal }, p) {
        if (!p.turnIds && !p.count) throw new ToolError("give turnIds (a list of turn ids) or count (how many of the oldest turns)");
        const note = await syncNote(s);
        const index = await indexOf(s);
        const pins = pinsOf(s);
        const protectedFrom = index.turns.length - Math.max(1, protectedCount(core, s));
        const pinned = await pinnedTurnIds(core, s, pins, index.turns.slice(0, protectedFrom));
        const isProtected = (/** @type {IndexTurn} */ t) => index.turns.indexOf(t) >= protectedFrom || pinned.has(t.id);
        let turns;
        const skipped = [];
        if (p.turnIds) {
          turns = [];
          for (const id of new Set(p.turnIds)) {
            const t = findTurn(index, id);
            if (isProtected(t)) skipped.push({ id, reason: "protected (recent or pinned)" });
            else turns.push(t);
          }
        } else {
          turns = index.turns.filter((t) => !isProtected(t) && !t.compacted && !s.summaries[t.id]).slice(0, p.count);
        }
        const already = turns.filter((t) => s.summaries[t.id]).map((t) => t.id);
        const todo = turns.filter((t) => !s.summaries[t.id]);
        const messagesById = await originalMessages(s, todo);
        const { js } = splitConfig({ ...(deps.config ?? {}), ...(s.state.config ?? {}) });
        const useLlm = p.useLlm ?? js.autoSummarize;
        const complete = useLlm ? pickComplete(undefined, deps.api) : undefined;
        const made = await summarizeQueued(s, {
          core,
          llm: s.llm,
          complete,
          autoSummarize: useLlm,
          summaryModel: js.summaryModel,
          turnIds: todo.map((t) => t.id),
          messagesById,
          signal,
          deadline: Date.now() + TOOL_DEADLINE_MS,
        });
        const ids = turns.map((t) => t.id).filter((id) => s.summaries[id]);
        const w = await s.session();
        if (ids.length) {
          w.setFolded([...new Set([...w.folded(), ...ids])]);
          await s.saveState();
        }
        const rows = ids.map((id) => ({ id, source: s.summaries[id].source, summary: s.summaries[id].text }));
        const lines = [
          `summarized ${made} turn(s) now${already.length ? `, ${already.length} already had a summary` : ""}; ${ids.length} turn(s) folded to their summaries from the next request on`,
          ...rows.map((x) => `- ${x.id} (${x.source}): ${x.summary.slice(0, 300)}`),
          ...skipped.map((x) => `- ${x.id}: skipped, ${x.reason}`),
          turns.length === 0 && !skipped.length ? "no turn qualified (all recent, pinned, compacted or summarized)" : null,
          s.llm?.lastError && useLlm && made > 0 && rows.some((x) => x.source !== "llm") ? `LLM not used for some: ${s.llm.lastError}` : null,
          note,
        ].filter(Boolean);
        return {
          text: lines.join("\n"),
          details: { made, folded: ids, summaries: rows.map(({ id, source }) => ({ id, source })), skipped, alreadySummarized: already },
        };
      },
    },
    {
      name: "context_engine_compact",
      description:
        "Run folding now, exactly as a host compaction does: old unprotected turns are summarized into the side cache (LLM when available, else extractive) and folded to their summaries from the next request on. The transcript is never rewritten; every turn stays recoverable.",
      parameters: obj({}),
      async run({ s, deps, ident, signal }) {
        const engine = createEngine(deps);
        // the engine's compact needs the session key only (a tool context may have no session id)
        const params = /** @type {Parameters<typeof engine.compact>[0]} */ ({
          ...ident,
          sessionKey: s.sessionKey,
          tokenBudget: s.lastAssemble?.budget,
          abortSignal: signal,
        });
        const r = await engine.compact(params);
        const res = /** @type {any} */ (r.result);
        const text = r.ok
          ? `${r.compacted ? "compacted" : "nothing compacted"}: ${r.reason ?? ""}${res ? `; ~${fmt(res.tokensBefore)} → ~${fmt(res.tokensAfter)} tokens, ${res.details?.folded ?? 0} turns folded in all` : ""}`
          : `compaction failed: ${r.reason}`;
        return { text, details: r };
      },
    },
  ];
}

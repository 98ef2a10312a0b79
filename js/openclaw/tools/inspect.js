// context_engine_recover, context_engine_assemble, context_engine_explain,
// context_engine_topics and context_engine_detect_subtopics: what the engine did and would do
// with the session, and a turn's original messages. Only recover with unfold: true and
// sub-topic detection change the session (its folded set, its labels).
import { splitConfig } from "../../core/config.js";
import { pickComplete, parseSubtopic } from "../llm.js";
import { turnAsText } from "../background.js";
import { ToolError } from "./errors.js";
import { MAX_PAGE_SIZE, capText, pageLine, pageOf } from "./paging.js";
import { OFFSET, PAGE, TURN_ID, obj, pageSize } from "./schema.js";
import { TOOL_DEADLINE_MS, currentMessages, findTurn, hashId, indexOf, originalMessages, preview, syncNote } from "./session.js";
import { fmt, renderMessage } from "./render.js";

/** @import { ToolDef } from "./session.js" */

/**
 * context_engine_recover, _assemble, _explain, _topics and _detect_subtopics.
 * @returns {ToolDef[]}
 */
export function inspectTools() {
  return [
    {
      name: "context_engine_recover",
      description:
        "Unfold a turn: its complete original messages (user prompt, assistant text, thinking, tool calls with arguments, tool results), read from the session transcript — not from a summary. Paged by messages; a page cut at 64 KB continues with offset. unfold: true also sends the turn in full in later requests again (removes it from the folded set; the budget may fold it again).",
      parameters: obj(
        {
          turnId: TURN_ID,
          page: PAGE,
          pageSize: pageSize(50),
          offset: OFFSET,
          unfold: { type: "boolean", description: "Also stop folding this turn (default false)." },
        },
        ["turnId"],
      ),
      async run({ s }, p) {
        await syncNote(s);
        const index = await indexOf(s);
        const t = findTurn(index, p.turnId);
        const msgs = (await originalMessages(s, [t])).get(t.id);
        if (!msgs) throw new ToolError(`turn ${t.id} is indexed but its transcript is not readable here`);
        const pg = pageOf(msgs, p.page ?? 1, p.pageSize ?? 50);
        const first = (pg.page - 1) * pg.pageSize;
        const body = pg.items.map((m, i) => renderMessage(m, first + i + 1)).join("\n");
        let unfolded = false;
        if (p.unfold) {
          const w = await s.session();
          const before = w.folded();
          /** @param {string} id */
          const other = (id) => id !== t.id && id !== hashId(t);
          const next = before.filter(other);
          const compacted = w.compacted();
          unfolded = next.length !== before.length || !compacted.every(other);
          w.setFolded(next);
          w.setCompacted(compacted.filter(other));
          await s.saveState();
        }
        const head = `turn ${t.id}: ${msgs.length} message(s), ~${fmt(t.tokens.total)} tokens, source ${s.transcript?.kind ?? "last request"}; ${pageLine(pg, "messages")}${p.unfold ? (unfolded ? "; unfolded for later requests" : "; it was not folded") : ""}`;
        const cut = capText(`${head}\n${body}`, p.offset ?? 0);
        return {
          text: cut.text,
          details: {
            turnId: t.id,
            entryIds: t.entries.map((e) => e.id),
            messages: msgs.length,
            page: pg.page,
            pages: pg.pages,
            nextOffset: cut.nextOffset,
            unfolded,
          },
        };
      },
    },
    {
      name: "context_engine_assemble",
      description:
        "Preview what the model will see on the next request: the engine plans the session's current history (as the next request would carry it) without changing anything, and lists per turn the decision (kept, cleaned, truncated, summarized, stubbed), tokens before → after, topic and reason. includeContent: true adds the planned messages of the listed turns. Paged by turns.",
      parameters: obj({
        page: PAGE,
        pageSize: pageSize(30),
        budget: { type: "integer", minimum: 256, maximum: 100000000, description: "Token budget to plan for (default: the last request's)." },
        includeContent: { type: "boolean", description: "Also show the planned messages of the turns on this page (default false)." },
        offset: OFFSET,
      }),
      async run({ s }, p) {
        const note = await syncNote(s);
        const { messages, source } = await currentMessages(s);
        if (!messages.length) return { text: "nothing to preview: no messages known for this session yet", details: { turns: [] } };
        const budget = p.budget ?? s.lastAssemble?.budget ?? undefined;
        const r = await preview(s, messages, budget);
        const pg = pageOf(r.turns, p.page ?? 1, p.pageSize ?? 30);
        const lines = [
          `next request preview (from the ${source}): ${r.stats.clean.messagesBefore}→${r.steps.length} messages, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens of ${fmt(r.stats.budget)}; ${pageLine(pg, "turns")}${r.fallback ? `; fallback: ${r.fallback}` : ""}`,
        ];
        for (const t of pg.items) {
          lines.push(
            `${t.id}  ${t.decision}  ${fmt(t.tokensBefore)}→${fmt(t.tokensAfter)}${t.protected ? "  protected" : ""}${t.topic ? `  [${t.topic}]` : ""}  ${t.reason}`,
          );
          if (p.includeContent) {
            const [a, b] = t.range;
            for (const st of r.steps.filter((x) => x.source !== undefined && x.source >= a && x.source < b)) {
              const src = /** @type {number} */ (st.source);
              const m = st.message ?? messages[src];
              lines.push(renderMessage(m, src + 1).replace(/^/gm, "    "));
            }
          }
        }
        if (note) lines.push(note);
        const cut = capText(lines.join("\n"), p.offset ?? 0);
        return {
          text: cut.text,
          details: {
            source,
            budget: r.stats.budget,
            messagesBefore: r.stats.clean.messagesBefore,
            messagesAfter: r.steps.length,
            tokensBefore: r.stats.clean.tokensBefore,
            tokensAfter: r.estimatedTokens,
            page: pg.page,
            pages: pg.pages,
            turns: pg.items.map(({ id, decision, tokensBefore, tokensAfter, topic, reason, protected: prot }) => ({
              id,
              decision,
              tokensBefore,
              tokensAfter,
              topic,
              reason,
              protected: prot,
            })),
            nextOffset: cut.nextOffset,
          },
        };
      },
    },
    {
      name: "context_engine_explain",
      description:
        "For the last request the engine planned in this session: why each turn was kept, cleaned (thinking / finished tool output removed), truncated (huge tool results cut head + tail), summarized or stubbed (folded to one line), with tokens before → after. Filter with decision; paged by turns.",
      parameters: obj({
        decision: { type: "string", enum: ["kept", "cleaned", "truncated", "summarized", "stubbed"], description: "Only turns with this decision." },
        page: PAGE,
        pageSize: pageSize(50),
      }),
      async run({ s }, p) {
        const la = s.lastAssemble;
        if (!la)
          return { text: "no request planned for this session in this process yet (the engine explains the last request it planned)", details: { turns: [] } };
        const r = la.result;
        const turns = (r.turns ?? []).filter((t) => !p.decision || t.decision === p.decision);
        const pg = pageOf(turns, p.page ?? 1, p.pageSize ?? 50);
        const lines = [
          `last request (${la.at}): budget ${fmt(r.stats.budget)}, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens; ${r.stats.turns} turns: kept ${r.stats.kept}, cleaned ${r.stats.cleaned}, truncated ${r.stats.truncated}, summarized ${r.stats.summarized}, stubbed ${r.stats.stubbed}${r.stats.overBudget ? "; OVER BUDGET (protected turns alone exceed it)" : ""}${r.fallback ? `; fallback: ${r.fallback}` : ""}`,
          pageLine(pg, p.decision ? `${p.decision} turns` : "turns"),
          ...pg.items.map(
            (t) =>
              `${t.id}  ${t.decision}  ${fmt(t.tokensBefore)}→${fmt(t.tokensAfter)}${t.protected ? "  protected" : ""}${t.topic ? `  [${t.topic}]` : ""}  ${t.reason}`,
          ),
        ];
        if (r.stats.cleaned + r.stats.kept > 0 && (r.stats.clean.cleanedThink || r.stats.clean.dropTool)) {
          lines.push(
            `cleaner: ${r.stats.clean.cleanedThink} thinking blocks, ${r.stats.clean.cleanedRC} reasoning fields, ${r.stats.clean.dropTool} tool results, ${r.stats.clean.dropAsstTC} call-only messages removed from completed turns`,
          );
        }
        return {
          text: capText(lines.join("\n")).text,
          details: {
            at: la.at,
            stats: r.stats,
            page: pg.page,
            pages: pg.pages,
            turns: pg.items.map(({ id, decision, reason, tokensBefore, tokensAfter, topic, protected: prot }) => ({
              id,
              decision,
              reason,
              tokensBefore,
              tokensAfter,
              topic,
              protected: prot,
            })),
          },
        };
      },
    },
    {
      name: "context_engine_topics",
      description:
        "The session's topics (detected from the turns' vocabulary) and their sub-topics (labels from the background classifier or context_engine_detect_subtopics), each with its turn range (first … last turn id), size and how many of its turns are folded. Paged by topics.",
      parameters: obj({ page: PAGE, pageSize: pageSize(20) }),
      async run({ s }, p) {
        const note = await syncNote(s);
        const w = await s.session();
        const index = w.index();
        const { topics, topicOfTurn } = w.topics();
        const folded = new Set(w.folded());
        const labels = s.state.subtopics ?? {};
        const rows = topics.map((tp) => {
          const turns = index.turns.slice(tp.firstTurn, tp.lastTurn + 1);
          /** @type {{label: string | null, firstTurnId: string, lastTurnId: string, turns: number}[]} */
          const subs = [];
          for (const t of turns) {
            const label = labels[t.id] ?? null;
            const last = subs[subs.length - 1];
            if (last && last.label === label) {
              last.lastTurnId = t.id;
              last.turns++;
            } else subs.push({ label, firstTurnId: t.id, lastTurnId: t.id, turns: 1 });
          }
          return {
            id: tp.id,
            label: tp.label,
            terms: tp.terms,
            firstTurn: tp.firstTurn,
            lastTurn: tp.lastTurn,
            firstTurnId: turns[0]?.id,
            lastTurnId: turns[turns.length - 1]?.id,
            turns: turns.length,
            folded: turns.filter((t) => folded.has(t.id)).length,
            subtopics: subs.filter((x) => x.label !== null || subs.length > 1),
          };
        });
        const pg = pageOf(rows, p.page ?? 1, p.pageSize ?? 20);
        const lines = [`${rows.length} topic(s) over ${index.turns.length} turns (${topicOfTurn.length} segmented); ${pageLine(pg, "topics")}`];
        for (const t of pg.items) {
          lines.push(
            `#${t.id} "${t.label}": turns ${t.firstTurn + 1}–${t.lastTurn + 1} (${t.turns}; ${t.firstTurnId} … ${t.lastTurnId})${t.folded ? `, ${t.folded} folded` : ""}`,
          );
          for (const x of t.subtopics)
            lines.push(`    - ${x.label === null ? "(unlabelled)" : JSON.stringify(x.label)}: ${x.turns} turn(s), ${x.firstTurnId} … ${x.lastTurnId}`);
        }
        if (note) lines.push(note);
        return { text: capText(lines.join("\n")).text, details: { topics: pg.items, page: pg.page, pages: pg.pages } };
      },
    },
    {
      name: "context_engine_detect_subtopics",
      description:
        "Run sub-topic detection now over the newest turns without a label (or all of them with relabel): one small LLM call per turn when an LLM is available (and useLlm is not false), else a local heuristic that splits each topic where the vocabulary shifts. Labels persist; the engine then stubs old turns of other sub-topics like other topics.",
      parameters: obj({
        maxTurns: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, description: "Label at most this many of the newest turns (default 20)." },
        relabel: { type: "boolean", description: "Also replace existing labels (default false)." },
        useLlm: { type: "boolean", description: "Use the LLM when available (default: the enableLlmConfirmation setting)." },
      }),
      async run({ s, deps, signal }, p) {
        const note = await syncNote(s);
        const w = await s.session();
        const index = w.index();
        s.state.subtopics ??= {};
        const labels = s.state.subtopics;
        const want = index.turns.map((t, i) => ({ t, i })).filter(({ t }) => p.relabel || !labels[t.id]);
        const chosen = want.slice(-(p.maxTurns ?? 20));
        const { js } = splitConfig({ ...(deps.config ?? {}), ...(s.state.config ?? {}) });
        const useLlm = p.useLlm ?? js.enableLlmConfirmation;
        const complete = useLlm ? pickComplete(undefined, deps.api) : undefined;
        // the core's deterministic labels: each topic split where the vocabulary shifts
        const heuristic = w.heuristicSubtopics();
        /** @type {Record<string, string>} */
        const made = {};
        let byLlm = 0;
        const deadline = Date.now() + TOOL_DEADLINE_MS;
        for (const { t, i } of chosen) {
          if (signal?.aborted || Date.now() > deadline) break;
          let label = null;
          if (complete && !s.llm.exhausted) {
            const prevId = index.turns[i - 1]?.id;
            const prev = prevId ? (made[prevId] ?? labels[prevId]) : undefined;
            const brief = turnAsText(
              [
                { role: "user", content: t.topicUser },
                { role: "assistant", content: t.topicAssistant },
              ],
              600,
            );
            const prompt =
              `Current sub-topic: ${JSON.stringify(prev ?? "none")}.\nTurn:\n${brief}\nTools: ${t.tools.join(", ") || "none"}\n` +
              'Answer only with JSON: {"subtopic": "<2-4 word label>", "isNewSubtopic": true|false}';
            const text = await s.llm.complete(
              complete,
              { messages: [{ role: "user", content: prompt }], maxTokens: 60, purpose: "contextfold.subtopic" },
              { signal, accept: (x) => parseSubtopic(x) !== null },
            );
            const parsed = text ? parseSubtopic(text) : null;
            if (parsed) {
              label = parsed.isNewSubtopic || !prev ? parsed.subtopic : prev;
              byLlm++;
            }
          }
          label ??= heuristic[t.id] ?? null;
          if (label) made[t.id] = label;
        }
        const ids = Object.keys(made);
        if (ids.length) {
          Object.assign(labels, made);
          w.setSubtopics(made);
          await s.saveState();
        }
        const lines = [
          `labelled ${ids.length} turn(s): ${byLlm} by the LLM, ${ids.length - byLlm} by the local heuristic${complete ? "" : " (no LLM used)"}${useLlm && complete && byLlm < ids.length && s.llm.lastError ? `; LLM: ${s.llm.lastError}` : ""}`,
          ...ids.slice(0, 50).map((id) => `- ${id}: ${JSON.stringify(made[id])}`),
          want.length > chosen.length ? `${want.length - chosen.length} older unlabelled turn(s) left; call again with a larger maxTurns` : null,
          note,
        ].filter(Boolean);
        return { text: capText(lines.join("\n")).text, details: { labelled: made, byLlm, heuristic: ids.length - byLlm } };
      },
    },
  ];
}

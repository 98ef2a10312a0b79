// Background work after a committed turn (maintain) and in compact(): summaries of the
// turns the planner queued, and the sub-topic label of the newest turn. Bounded: an
// iteration cap, a deadline, a stop when a pass makes no progress, the per-session LLM
// budget; every LLM failure falls back to the core's deterministic heuristics.
import { parseSubtopic } from "./llm.js";

/** @import { Message } from "../core/types.js" */
/** @import { Core } from "../core/core.js" */
/** @import { Complete, LlmBudget } from "./llm.js" */
/** @import { LiveSession } from "./live.js" */

const SUMMARY_PROMPT =
  "Summarize this earlier conversation turn for an assistant that will continue the conversation. " +
  "Keep every identifier, file path, URL, number, date, name, error and decision, and any request still open. " +
  "Plain text, at most 120 words, no preamble.";

/**
 * True when an LLM answer can stand in for a turn as its summary: at least 10 characters, and
 * at least half of its non-space characters letters or digits (prose in any script, with
 * identifiers and numbers), not noise.
 * @param {unknown} text
 */
export function usableSummary(text) {
  const visible = String(text ?? "").replace(/\s+/g, "");
  const alnum = visible.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  return visible.length >= 10 && alnum * 2 >= visible.length;
}

/**
 * Renders a turn's messages as plain text for an LLM prompt (bounded).
 * @param {any[]} messages
 */
export function turnAsText(messages, maxChars = 12_000) {
  /** @type {string[]} */
  const lines = [];
  for (const m of messages) {
    const role = m?.role ?? "?";
    const parts = Array.isArray(m?.content) ? m.content : [{ type: "text", text: String(m?.content ?? "") }];
    for (const p of parts) {
      if (p?.type === "text") lines.push(`${role}: ${p.text}`);
      else if (p?.type === "toolCall" || p?.type === "tool_use")
        lines.push(`${role} calls ${p.name}(${JSON.stringify(p.arguments ?? p.input ?? {}).slice(0, 400)})`);
      else if (p?.type === "tool_result") lines.push(`tool result: ${JSON.stringify(p.content).slice(0, 2000)}`);
    }
    for (const c of m?.tool_calls ?? []) lines.push(`${role} calls ${c?.function?.name}(${String(c?.function?.arguments ?? "").slice(0, 400)})`);
  }
  let text = lines.join("\n");
  if (text.length > maxChars) text = text.slice(0, (maxChars * 2) / 3) + "\n[…]\n" + text.slice(-maxChars / 3);
  return text;
}

/**
 * The messages of each turn of the last assembled request, by turn id; only the turns `ids`
 * names when it is given (the background step needs a few turns of a long session).
 * @param {LiveSession} live
 * @param {Iterable<string>} [ids]
 */
export function turnMessages(live, ids) {
  /** @type {Map<string, Message[]>} */
  const out = new Map();
  const r = live.lastAssemble?.result;
  const msgs = live.lastMessages;
  if (!r || !msgs) return out;
  const wanted = ids === undefined ? null : new Set(ids);
  for (const t of r.turns ?? []) {
    if (Array.isArray(t.range) && (wanted === null || wanted.has(t.id))) out.set(t.id, msgs.slice(t.range[0], t.range[1]));
  }
  return out;
}

/**
 * Summarizes queued turns (`turnIds`, else the session's queue). Returns how many summaries
 * were made.
 * @param {LiveSession} live
 * @param {object} o
 * @param {Core} o.core
 * @param {LlmBudget} o.llm
 * @param {Complete} [o.complete]
 * @param {boolean} o.autoSummarize
 * @param {string} [o.summaryModel]
 * @param {string[]} [o.turnIds]
 * @param {Map<string, Message[]>} [o.messagesById]  the turns' messages (default: the last request's)
 * @param {AbortSignal} [o.signal]
 * @param {number} o.deadline  a Date.now() value
 * @param {number} [o.maxIterations]
 */
export async function summarizeQueued(live, { core, llm, complete, autoSummarize, summaryModel, turnIds, messagesById, signal, deadline, maxIterations = 20 }) {
  const queue = [...(turnIds ?? live.pendingSummaries ?? [])].filter((id) => !live.summaries[id]);
  if (queue.length === 0) return 0;
  const byId = messagesById ?? turnMessages(live, queue);
  let made = 0;
  for (let iter = 0; iter < maxIterations && queue.length > 0; iter++) {
    let progress = 0;
    for (const id of queue.splice(0, queue.length)) {
      if (signal?.aborted || Date.now() > deadline) return made;
      const msgs = byId.get(id);
      if (!msgs || msgs.length === 0) continue;
      let text = null;
      if (autoSummarize && complete && !llm.exhausted) {
        text = await llm.complete(
          complete,
          {
            messages: [{ role: "user", content: `${SUMMARY_PROMPT}\n\n${turnAsText(msgs)}` }],
            maxTokens: 300,
            purpose: "contextfold.summary",
            ...(summaryModel ? { model: summaryModel } : {}),
          },
          { signal, accept: usableSummary },
        );
      }
      const source = text ? "llm" : "heuristic";
      if (!text) text = core.summarize(id, msgs, 120);
      const summary = source === "llm" ? `[summary of turn ${id}] ${text}` : text;
      if (await live.putSummary(id, summary, source)) {
        made++;
        progress++;
      }
    }
    if (progress === 0) break; // no progress: stop rather than loop
  }
  return made;
}

/**
 * Labels the newest turn's sub-topic with one small LLM call (~150 tokens in). Without an
 * LLM, or when it fails, the heuristic label (the turn's fine-grained lexical segment) is used.
 * @param {LiveSession} live
 * @param {{llm: LlmBudget, complete?: Complete, heuristic?: (turnId: string) => Promise<string | null>, signal?: AbortSignal}} o
 */
export async function labelSubtopic(live, { llm, complete, heuristic, signal }) {
  const r = live.lastAssemble?.result;
  const turns = r?.turns ?? [];
  const last = turns[turns.length - 1];
  if (!last || live.state.subtopics[last.id]) return false;
  let label = null;
  if (complete && !llm.exhausted) {
    const prev = turns.length > 1 ? live.state.subtopics[turns[turns.length - 2].id] : undefined;
    const msgs = turnMessages(live, [last.id]).get(last.id) ?? [];
    const brief = turnAsText(msgs, 600);
    const prompt =
      `Current sub-topic: ${JSON.stringify(prev ?? "none")}. Topic: ${JSON.stringify(last.topic)}.\n` +
      `Turn:\n${brief}\n` +
      'Answer only with JSON: {"subtopic": "<2-4 word label>", "isNewSubtopic": true|false}';
    const text = await llm.complete(
      complete,
      { messages: [{ role: "user", content: prompt }], maxTokens: 60, purpose: "contextfold.subtopic" },
      { signal, accept: (t) => parseSubtopic(t) !== null },
    );
    const parsed = text ? parseSubtopic(text) : null;
    if (parsed) label = parsed.isNewSubtopic || !prev ? parsed.subtopic : prev;
  }
  const byLlm = label !== null;
  label ??= (await heuristic?.(last.id)) ?? null;
  if (!label) return false;
  await live.putSubtopic(last.id, label, { heuristic: !byLlm });
  return true;
}

/**
 * Parses the boundary judge's answer: `{"sameTopic": bool}`.
 * @param {string | null | undefined} text
 * @returns {boolean | null}
 */
export function parseSameTopic(text) {
  const m = /\{[\s\S]*\}/.exec(text ?? "");
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]);
    return typeof v.sameTopic === "boolean" ? v.sameTopic : null;
  } catch {
    return null;
  }
}

/**
 * LLM confirmation of the newest lexical topic boundary: one small call asks whether the turn
 * that opened the newest topic really changed the subject; "same" removes the boundary.
 * Each boundary is judged once; without an LLM the lexical boundaries stand.
 * @param {LiveSession} live
 * @param {{llm: LlmBudget, complete?: Complete, signal?: AbortSignal}} o
 */
export async function confirmBoundary(live, { llm, complete, signal }) {
  if (!complete || llm.exhausted) return false;
  const { topics } = (await live.session()).topics();
  if (topics.length < 2) return false;
  const idx = (await live.session()).index();
  const newest = topics[topics.length - 1];
  const prev = topics[topics.length - 2];
  const opener = idx.turns[newest.firstTurn];
  const before = idx.turns[newest.firstTurn - 1];
  if (!opener || !before || live.state.boundaries?.[opener.id]) return false;
  const prompt =
    `Earlier topic: ${JSON.stringify(prev.label)}. Last turn of it: user asked ${JSON.stringify(before.userPreview)}; ` +
    `the answer began ${JSON.stringify(before.assistantPreview)}.\n` +
    `Next turn: user asked ${JSON.stringify(opener.userPreview)}; the answer began ${JSON.stringify(opener.assistantPreview)}.\n` +
    'Does the next turn continue the same topic? Answer only with JSON: {"sameTopic": true|false}';
  const text = await llm.complete(
    complete,
    { messages: [{ role: "user", content: prompt }], maxTokens: 20, purpose: "contextfold.topic-boundary" },
    { signal, accept: (t) => parseSameTopic(t) !== null },
  );
  const same = text ? parseSameTopic(text) : null;
  if (same === null) return false;
  await live.putBoundary(opener.id, same);
  return true;
}

// EVALUATION.md §4: prompt-cache stability over a replayed session.
//
// The session is replayed turn by turn the way OpenClaw drives the engine: before turn k the
// host calls assemble with the history before turn k's user message and that message's text
// as the prompt. Engine methods use one live session (the core's `Session`): new transcript
// entries are appended to its index, its sticky fold decisions carry over from call to call,
// and the turns a call queues for a summary get the core's extractive summary before the next
// call (what the plugin's background step does without an LLM).
//
// Per request k > first, measured by js/core/cache.js (the rule the replay command uses): the
// longest common prefix, message by message (equal JSON), in exact tokens, divided by the
// previous request's exact size: the share of the previous prompt a provider could serve from
// its cache. Also the request size and the part of it outside that prefix (what is billed at
// the full input price). A break is a request that does not start with the whole previous
// one; its position and cause (stub rewritten, summary landed, …) are recorded. Every request,
// the first too, is priced with each preset's cache rule (js/core/pricing.js): `usd` sums them.
import { engine, applyPlan, exactMessage, readSession, turnStarts, userText, recencySteps, estimates } from "./common.mjs";
import { METHODS } from "./methods.mjs";
// The reuse rule is the product's own (the replay command and the playground measure with it too).
import { compareRequests } from "../../js/core/cache.js";
// The prices are the product's own too (`contextfold replay --price`).
import { PRICE_NAMES, PRICE_PRESETS, billedTokens, costOf } from "../../js/core/pricing.js";

const SUMMARY_TOKENS = 120;

/** Counts of each value, most frequent first (the first `k`). */
function top(values, k = 5) {
  const counts = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return Object.fromEntries(
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .slice(0, k),
  );
}

/** Replays one session with one method. */
export async function replay({ name, file, budget, method, maxTurns = Infinity }) {
  const { core } = await engine();
  const { entries, messages, entryIds } = readSession(file);
  const starts = turnStarts(messages);
  const m = METHODS[method];
  const est = m.kind === "recency" ? estimates(core, messages) : null;
  const s = m.kind === "engine" ? core.newSession(m.config) : null;
  const entryPos = new Map(entries.map((e, i) => [e.id, i]));
  let fed = 0;
  const summaries = new Set();
  let prev = null;
  const perTurn = [];
  let fallbacks = 0;
  let summariesMade = 0;
  const usd = Object.fromEntries(PRICE_NAMES.map((p) => [p, 0]));
  // Turns folded (stub or summary) in one request and back in full in the next: with sticky
  // folds that happens only when the prompt or the latest turns refer to the turn's topic.
  let prevDecisions = null;
  const unfolds = { total: 0, relevant: 0, other: 0, example: null };
  const last = Math.min(starts.length, maxTurns);
  try {
    for (let k = 1; k < last; k++) {
      const end = starts[k];
      const history = messages.slice(0, end);
      let steps;
      if (m.kind === "passthrough") steps = history.map((_, i) => ({ source: i }));
      else if (m.kind === "recency") steps = recencySteps(history, est, budget);
      else {
        const upto = entryPos.get(entryIds[end - 1]) + 1;
        if (upto > fed) {
          const u = s.append(entries.slice(fed, upto));
          if (u.rewrite) s.rebuild(entries.slice(0, upto));
          fed = upto;
        }
        const r = s.assemble({ messages: history, prompt: userText(messages[end]), budget });
        if (r.fallback) fallbacks++;
        steps = r.steps;
        const decisions = new Map((r.turns ?? []).map((t) => [t.id, t]));
        if (prevDecisions) {
          for (const [id, before] of prevDecisions) {
            const now = decisions.get(id);
            if (!now || !["stubbed", "summarized"].includes(before.decision) || !["kept", "cleaned", "truncated"].includes(now.decision)) continue;
            unfolds.total++;
            if (/\brefers? to topic /.test(now.reason)) unfolds.relevant++;
            else {
              unfolds.other++;
              unfolds.example ??= { turn: k, id, before: before.reason, now: now.reason };
            }
          }
        }
        prevDecisions = decisions;
        const byId = new Map((r.turns ?? []).map((t) => [t.id, t]));
        const add = {};
        for (const id of r.summarize ?? []) {
          const t = byId.get(id);
          if (!t || summaries.has(id)) continue;
          add[id] = core.summarize(id, history.slice(t.range[0], t.range[1]), SUMMARY_TOKENS);
          summaries.add(id);
          summariesMade++;
        }
        if (Object.keys(add).length) s.setSummaries(add);
      }
      const out = applyPlan(history, steps);
      const c = compareRequests(prev, out, exactMessage);
      for (const p of PRICE_NAMES) usd[p] += costOf(PRICE_PRESETS[p], billedTokens(PRICE_PRESETS[p].rule, c));
      if (prev) {
        const row = {
          turn: k,
          reuse: c.reuse,
          commonTokens: c.commonTokens,
          tokens: c.tokens,
          uncached: c.tokens - c.commonTokens,
          commonMessages: c.commonMessages,
          messages: out.length,
        };
        // Where the prefix broke, and why (js/core/cache.js).
        if (c.break) row.diff = c.break;
        perTurn.push(row);
      }
      prev = out;
    }
  } finally {
    s?.free();
  }
  const n = perTurn.length;
  const sum = (k) => perTurn.reduce((a, t) => a + t[k], 0);
  // A break: a request that does not start with the whole previous one (js/core/cache.js).
  const broken = perTurn.filter((t) => t.diff);
  const inputTokens = messages.slice(0, starts[last - 1] ?? 0).reduce((a, x) => a + exactMessage(x), 0);
  // how many prefix breaks kept each number of leading messages
  const breaksAt = {};
  for (const t of perTurn) if (t.reuse < 0.5) breaksAt[t.commonMessages] = (breaksAt[t.commonMessages] ?? 0) + 1;
  return {
    name,
    method,
    budget,
    requests: n,
    meanReuse: n ? sum("reuse") / n : null,
    meanTokens: n ? sum("tokens") / n : null,
    meanUncached: n ? sum("uncached") / n : null,
    lastHistoryTokens: inputTokens,
    fallbacks,
    summariesMade,
    usd,
    unfolds,
    breaks: broken.length,
    breakAtIndex: top(broken.map((t) => t.commonMessages)),
    breakReasons: top(
      broken.map((t) => t.diff.reason),
      Infinity,
    ),
    worst: perTurn
      .slice()
      .sort((a, b) => a.reuse - b.reuse || a.turn - b.turn)
      .slice(0, 3),
  };
}

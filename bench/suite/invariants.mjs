// EVALUATION.md §3: invariants over every converted session, and the cleaner's savings.
//
// Per session, method and budget (through `assembleOnce`, a fresh index per call):
//   determinism   two calls give identical bytes;
//   reuse         the benchmarks' session-reusing planner gives the same bytes as the
//                 one-shot call (so the LoCoMo figures are what `assembleOnce` would give);
//   validity      PROVIDERS.md rules checked here, independently of the engine's own gate
//                 (OpenClaw-shaped sessions): 1/2/4 positional pairing, 6 result fields kept,
//                 7 thinking blocks byte-identical and on their own message, 10 no empty
//                 messages, 11 first message stays a user message, 12 no new same-role
//                 neighbours, 13 images whole, 14 content arrays stay arrays, 15 unknown
//                 fields pass through; plus plan order (sources strictly increasing);
//   budget        fold: the engine's estimate of the output ≤ B unless `stats.overBudget`;
//                 the reported estimate equals the estimate of the applied output;
//   live turn     every message from the frontier on is kept verbatim, the latest user
//                 message is kept verbatim and the latest turn is never stubbed, summarized
//                 or truncated (its tool chatter before the frontier is cleaned by design).
// Per session: idempotence of clean (cleaning the cleaned output changes nothing).
import { engine, applyPlan, exactMessages, readSession, readJson, checkPairing, turnStarts } from "./common.mjs";
import { METHODS, planner } from "./methods.mjs";

const same = (a, b) => a === b || JSON.stringify(a) === JSON.stringify(b);
/** Equal, or equal once a string `content` is written as one text part (the engine's phase 4). */
function sameModuloParts(src, out) {
  if (same(src, out)) return true;
  if (typeof src?.content !== "string") return false;
  return same({ ...src, content: [{ type: "text", text: src.content }] }, out);
}

function isEmpty(m) {
  if (m?.role !== "assistant") return false;
  const c = m.content;
  if (typeof c === "string") return c.trim() === "" && !(m.tool_calls?.length > 0);
  if (!Array.isArray(c) || c.length === 0) return !(m.tool_calls?.length > 0);
  return c.every((p) => p?.type === "thinking" || (p?.type === "text" && !String(p.text ?? "").trim()));
}

const firstConversational = (ms) => ms.find((m) => m?.role !== "system" && m?.role !== "developer");
function sameRoleNeighbours(ms) {
  let n = 0;
  for (let i = 1; i < ms.length; i++) if ((ms[i].role === "user" || ms[i].role === "assistant") && ms[i].role === ms[i - 1].role) n++;
  return n;
}

/** PROVIDERS.md rules on an OpenClaw-shaped output; returns the failures (empty when valid). */
export function validity(input, steps) {
  const fails = [];
  const out = applyPlan(input, steps);
  for (let p = 1; p < steps.length; p++)
    if (!(steps[p].source > steps[p - 1].source)) fails.push(`order: step ${p} source ${steps[p].source} after ${steps[p - 1].source}`);
  const inPair = checkPairing(input);
  const outPair = checkPairing(out);
  if (outPair.violations.length > inPair.violations.length) fails.push(`pairing (rules 1/2/4): ${JSON.stringify(outPair.violations.slice(0, 3))}`);
  steps.forEach((s, p) => {
    const src = input[s.source];
    const m = out[p];
    if (!src || !m) {
      fails.push(`step ${p}: no source message`);
      return;
    }
    if (s.message === undefined) return;
    if (src.role === "toolResult" && m.role === "toolResult") {
      for (const k of ["toolCallId", "toolName", "isError"]) if (!same(src[k], m[k])) fails.push(`rule 6: step ${p} changed ${k}`);
    }
    const srcParts = Array.isArray(src.content) ? src.content : [];
    const outParts = Array.isArray(m.content) ? m.content : [];
    const srcJson = new Set(srcParts.map((x) => JSON.stringify(x)));
    for (const part of outParts) {
      if ((part?.type === "thinking" || part?.type === "redacted_thinking") && !srcJson.has(JSON.stringify(part)))
        fails.push(`rule 7: step ${p} has a thinking block not byte-identical to one of its source`);
      if (part?.type === "image" && !srcJson.has(JSON.stringify(part))) fails.push(`rule 13: step ${p} has an image not found whole in its source`);
    }
    if ((src.role === "assistant" || src.role === "toolResult") && Array.isArray(src.content) && !Array.isArray(m.content))
      fails.push(`rule 14: step ${p} content is no longer an array`);
    for (const k of Object.keys(src)) {
      if (["content", "tool_calls", "reasoning_content"].includes(k)) continue;
      if (!same(src[k], m[k])) fails.push(`rule 15: step ${p} changed field ${k}`);
    }
  });
  out.forEach((m, p) => {
    if (isEmpty(m)) fails.push(`rule 10: step ${p} is an empty ${m.role} message`);
  });
  if (firstConversational(input)?.role === "user" && out.length && firstConversational(out)?.role !== "user")
    fails.push("rule 11: output does not start with a user message");
  if (sameRoleNeighbours(out) > sameRoleNeighbours(input)) fails.push("rule 12: new same-role neighbours");
  return fails;
}

/** Frontier and latest-turn checks; returns the failures and whether the last turn stayed whole. */
function liveTurn(input, steps, result) {
  const fails = [];
  const frontier = result?.stats?.clean?.frontier ?? result?.stats?.frontier;
  const bySource = new Map(steps.map((s, p) => [s.source, p]));
  const out = applyPlan(input, steps);
  if (Number.isInteger(frontier)) {
    for (let i = frontier; i < input.length; i++) {
      const p = bySource.get(i);
      if (p === undefined || !sameModuloParts(input[i], out[p])) fails.push(`live part: message ${i} (frontier ${frontier}) not kept verbatim`);
    }
  }
  const starts = turnStarts(input);
  const lastUser = starts[starts.length - 1];
  if (lastUser !== undefined) {
    const p = bySource.get(lastUser);
    if (p === undefined || !sameModuloParts(input[lastUser], out[p])) fails.push(`latest user message ${lastUser} not kept verbatim`);
    const t = result?.turns?.find((x) => x.range[0] === lastUser);
    if (t && ["stubbed", "summarized", "truncated"].includes(t.decision)) fails.push(`latest turn ${t.id} ${t.decision}`);
  }
  let whole = true;
  for (let i = lastUser ?? input.length; i < input.length; i++) {
    const p = bySource.get(i);
    if (p === undefined || !sameModuloParts(input[i], out[p])) whole = false;
  }
  return { fails, whole };
}

/**
 * Sweeps one session. `shape`: "openclaw" (all checks) or "anthropic" (determinism, reuse,
 * budget, idempotence only).
 */
export async function sweepSession(_manifest, { name, file, budgets, methods, shape = "openclaw", prompt = null }) {
  const { core, applySteps } = await engine();
  let session;
  if (shape === "anthropic") {
    const messages = readJson(file);
    session = { entries: undefined, messages };
  } else session = readSession(file);
  const { messages } = session;
  const p = shape === "anthropic" ? null : await planner(session);
  const rows = [];
  const tokensIn = shape === "anthropic" ? null : exactMessages(messages);
  try {
    for (const method of methods) {
      for (const budget of method === "clean" ? [budgets[budgets.length - 1]] : budgets) {
        const req = {
          messages,
          ...(session.entries ? { entries: session.entries } : {}),
          budget,
          config: METHODS[method].config,
          prompt: METHODS[method].prompt ? prompt : null,
        };
        const a = JSON.stringify(core.assembleOnce(req));
        const b = JSON.stringify(core.assembleOnce(req));
        const r = JSON.parse(a);
        const fails = [];
        if (a !== b) fails.push("determinism: two calls differ");
        if (p) {
          const reuse = JSON.stringify(p.plan(method, { prompt, budget }).result);
          if (reuse !== a) fails.push("reuse: the session planner differs from assembleOnce");
        }
        const out = applySteps(messages, r.steps);
        const est = core.estimateTokens(out);
        if (est !== r.estimatedTokens) fails.push(`estimate: reported ${r.estimatedTokens}, output estimates ${est}`);
        const fits = r.estimatedTokens <= budget;
        if (METHODS[method].config.mode !== "clean" && !fits && !r.stats?.overBudget) fails.push(`budget: ${r.estimatedTokens} > ${budget} without overBudget`);
        let whole = null;
        if (shape === "openclaw") {
          fails.push(...validity(messages, r.steps));
          const lt = liveTurn(messages, r.steps, r);
          fails.push(...lt.fails);
          whole = lt.whole;
        }
        rows.push({
          method,
          budget,
          fails,
          fits: fits ? 1 : 0,
          overBudget: r.stats?.overBudget ? 1 : 0,
          exactOut: shape === "openclaw" ? exactMessages(out) : null,
          estimated: r.estimatedTokens,
          fallback: r.fallback ?? null,
          lastTurnWhole: whole,
          decisions: r.stats
            ? { kept: r.stats.kept, cleaned: r.stats.cleaned, truncated: r.stats.truncated, summarized: r.stats.summarized, stubbed: r.stats.stubbed }
            : null,
        });
      }
    }
  } finally {
    p?.free();
  }
  // Idempotence of clean
  const c1 = core.clean(messages, {});
  const once = applySteps(messages, c1.steps);
  const c2 = core.clean(once, {});
  const twice = applySteps(once, c2.steps);
  const idempotent =
    c2.steps.every((s, i) => s.source === i && s.message === undefined) && c2.steps.length === once.length && JSON.stringify(twice) === JSON.stringify(once);
  return {
    name,
    shape,
    messages: messages.length,
    tokensIn,
    idempotent,
    idempotenceDetail: idempotent
      ? null
      : { steps: c2.steps.length, changed: c2.steps.filter((s, i) => s.source !== i || s.message !== undefined).length, stats: c2.stats },
    clean: c1.stats,
    cleanFallback: c1.fallback ?? null,
    cleanExact: shape === "openclaw" ? { before: tokensIn, after: exactMessages(once) } : null,
    rows,
  };
}

// EVALUATION.md §2: tool-heavy replay on tau-bench.
//
// For each trajectory with a query point, the history is the prefix before the assistant
// message that first calls a gold write action. The airline policy (the system prompt) is
// pinned outside the budget: it is not part of the messages the engine or the baseline sees,
// so B counts the conversation only. No upcoming prompt is passed (the prefix already ends
// with the customer's latest message or a tool result of the live loop).
//
// Gold-argument survival@B: the share of the gold write actions' argument values (≥ 3
// characters, occurring in the prefix; the converter's `goldArgValues`) that still occur in
// the output's searchable text. Pairing violations: PROVIDERS.md rules 1, 2 and 4 checked
// positionally on the output (a call still open at the very end is the live loop, not a
// violation).
import { join } from "node:path";
import { applyPlan, exactMessages, messageSearchText, readSession, readJson, checkPairing } from "./common.mjs";
import { planner } from "./methods.mjs";

/** Runs every method and budget on one trajectory. */
export async function runTrajectory(manifest, { name, budgets, methods }) {
  const sidecar = readJson(join(manifest.sessionsDir, `${name}.query.json`));
  if (sidecar.queryIndex == null) return null;
  const full = readSession(join(manifest.sessionsDir, `${name}.jsonl`));
  const k = sidecar.queryIndex;
  const lastEntry = full.entryIds[k - 1];
  const cut = full.entries.findIndex((e) => e.id === lastEntry);
  const session = { entries: full.entries.slice(0, cut + 1), messages: full.messages.slice(0, k) };
  const p = await planner(session);
  const tokensIn = exactMessages(session.messages);
  const values = sidecar.goldArgValues;
  const rows = [];
  try {
    for (const method of methods) {
      for (const budget of budgets) {
        const { steps, result } = p.plan(method, { budget });
        const out = applyPlan(session.messages, steps);
        const text = out.map(messageSearchText).join("\n");
        const survived = values.filter((v) => text.includes(v)).length;
        const pairing = checkPairing(out);
        const estimated = result?.estimatedTokens ?? steps.reduce((n, s) => n + p.est[s.source], 0);
        rows.push({
          method,
          budget,
          values: values.length,
          survived,
          tokensOut: exactMessages(out),
          estimated,
          overBudget: result?.stats?.overBudget ? 1 : 0,
          violations: pairing.violations.length,
          violationDetail: pairing.violations.slice(0, 3),
          fallback: result?.fallback ?? null,
          missing: values.filter((v) => !text.includes(v)),
        });
      }
    }
  } finally {
    p.free();
  }
  return { name, messages: session.messages.length, tokensIn, estimatedIn: p.est.reduce((a, b) => a + b, 0), rows };
}

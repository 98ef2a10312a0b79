// EVALUATION.md §1: evidence retention vs savings on LoCoMo.
//
// A task is one (session, method, mode, budget) cell. The whole conversation is the history
// (the questions are about all of it); "focused" passes the question as the upcoming prompt,
// one engine call per question; "agnostic" plans once without a prompt and scores every
// question against that one output.
//
// Strict: every evidence message of the question survives verbatim, i.e. its plan step keeps
// the input message (no replacement), or the replacement belongs to a turn that was neither
// stubbed nor summarized and its text still contains the evidence line verbatim (the line as
// rendered: `Speaker: text [image: caption]`; a cleaned or truncated message can keep it).
// Soft: strict, or (only for questions whose normalized answer occurs in an evidence line)
// the normalized answer occurs in a replacement message (stub, summary, short ask,
// truncation) that stands for an evidence message, i.e. whose span of input messages
// covers it. Soft ≥ strict, over the same questions.
import { join } from "node:path";
import { containsNormalized } from "../convert/locomo.mjs";
import { applyPlan, exactMessages, exactMessage, messageSearchText, readSession, readJson } from "./common.mjs";
import { planner } from "./methods.mjs";

const cache = new Map();

/** Loads (once per thread) a LoCoMo session, its sidecar, the dialog lines and a planner. */
async function load(manifest, name) {
  let c = cache.get(name);
  if (!c) {
    const session = readSession(join(manifest.sessionsDir, `${name}.jsonl`));
    const sidecar = readJson(join(manifest.sessionsDir, `${name}.questions.json`));
    const lines = readJson(join(manifest.sessionsDir, manifest.lines));
    const questions = sidecar.questions.filter((q) => q.scorable);
    c = { session, sidecar, lines, questions, tokensIn: exactMessages(session.messages), plan: await planner(session) };
    cache.set(name, c);
  }
  return c;
}

export function dropCaches() {
  for (const c of cache.values()) c.plan.free();
  cache.clear();
}

/** Everything about one output that the per-question scoring needs. */
function analyse(c, steps, result) {
  const messages = c.session.messages;
  const out = applyPlan(messages, steps);
  const turnAt = new Array(messages.length).fill(null);
  for (const t of result?.turns ?? []) for (let i = t.range[0]; i < t.range[1]; i++) turnAt[i] = t;
  const positions = new Map();
  steps.forEach((s, p) => {
    if (s.source === undefined) return;
    if (!positions.has(s.source)) positions.set(s.source, []);
    positions.get(s.source).push(p);
  });
  // Replacement messages and the input span each stands for: (previous step's source, own source].
  const replacements = [];
  steps.forEach((s, p) => {
    if (s.message === undefined) return;
    const lo = p > 0 && steps[p - 1].source !== undefined ? steps[p - 1].source + 1 : 0;
    replacements.push({ lo, hi: s.source ?? lo, text: messageSearchText(s.message) });
  });
  const relevant = [];
  for (const t of result?.turns ?? []) {
    // "the prompt refers to topic L" (newer builds: "the prompt or the latest turns refer to topic L")
    const m = /\brefers? to topic (.*)$/.exec(t.reason);
    if (m && !relevant.includes(m[1])) relevant.push(m[1]);
  }
  // Tokens spent on stubs (the short ask and the stub line of every stubbed run).
  let stubTokens = 0;
  steps.forEach((s, p) => {
    if (s.message !== undefined && turnAt[s.source]?.decision === "stubbed") stubTokens += exactMessage(out[p]);
  });
  const last = result?.turns?.[result.turns.length - 1];
  return {
    out,
    steps,
    turnAt,
    positions,
    replacements,
    relevant,
    currentTopic: last?.topic ?? null,
    tokensOut: exactMessages(out),
    stubTokens,
    estimated: result?.estimatedTokens ?? null,
    overBudget: !!result?.stats?.overBudget,
    fallback: result?.fallback ?? null,
  };
}

const FOLDED = new Set(["stubbed", "summarized"]);

/** Scores one question against one analysed output. */
function score(c, a, q) {
  const lines = c.lines[q.conversation] ?? {};
  const dia = c.sidecar.diaMap[q.conversation] ?? {};
  const lost = [];
  for (const id of q.evidence) {
    const mi = dia[id]?.messageIndex;
    if (mi == null) continue;
    const line = lines[id] ?? "";
    const turn = a.turnAt[mi];
    const ok = (a.positions.get(mi) ?? []).some((p) => {
      const s = a.steps[p];
      if (s.message === undefined) return true;
      return !(turn && FOLDED.has(turn.decision)) && line !== "" && messageSearchText(s.message).includes(line);
    });
    if (!ok)
      lost.push({
        dia: id,
        message: mi,
        turn: turn?.id ?? null,
        decision: turn?.decision ?? (a.positions.has(mi) ? "replaced" : "dropped"),
        reason: turn?.reason ?? null,
        topic: turn?.topic ?? null,
      });
  }
  const strict = lost.length === 0;
  // Whether the engine put every evidence turn's topic among the ones this request is about
  // (the current topic, or a topic kept because the prompt or the latest turns refer to it).
  const evTopics = q.evidence.map((id) => a.turnAt[dia[id]?.messageIndex]?.topic).filter((t) => t != null);
  const topicMatched = evTopics.length > 0 && evTopics.every((t) => t === a.currentTopic || a.relevant.includes(t));
  let soft = strict;
  if (!strict && q.answerInEvidence) {
    const ev = q.evidence.map((id) => dia[id]?.messageIndex).filter((x) => x != null);
    soft = a.replacements.some((r) => ev.some((mi) => mi >= r.lo && mi <= r.hi) && containsNormalized(r.text, q.answer));
  }
  return { strict, soft, lost, topicMatched };
}

/**
 * Runs one cell. Returns per-question records (scorable questions only) and the input size.
 * @param {{session: string, variant: string, method: string, mode: "focused"|"agnostic", budget: number}} task
 */
export async function runCell(manifest, task) {
  const c = await load(manifest, task.session);
  const records = [];
  const rec = (q, a, sc) => ({
    id: q.id,
    category: q.category,
    strict: sc.strict ? 1 : 0,
    soft: sc.soft ? 1 : 0,
    tokensOut: a.tokensOut,
    stubTokens: a.stubTokens,
    estimated: a.estimated,
    overBudget: a.overBudget ? 1 : 0,
    fallback: a.fallback,
    lost: sc.lost,
    relevant: task.mode === "focused" ? a.relevant : undefined,
    topicMatched: task.mode === "focused" ? (sc.topicMatched ? 1 : 0) : undefined,
    currentTopic: task.mode === "focused" ? a.currentTopic : undefined,
  });
  if (task.mode === "focused") {
    for (const q of c.questions) {
      const { steps, result } = c.plan.plan(task.method, { prompt: q.question, budget: task.budget });
      const a = analyse(c, steps, result);
      records.push(rec(q, a, score(c, a, q)));
    }
  } else {
    const { steps, result } = c.plan.plan(task.method, { prompt: null, budget: task.budget });
    const a = analyse(c, steps, result);
    if (a.estimated == null) a.estimated = steps.reduce((n, s) => n + c.plan.est[s.source], 0);
    for (const q of c.questions) records.push(rec(q, a, score(c, a, q)));
  }
  return { ...task, tokensIn: c.tokensIn, messages: c.session.messages.length, questions: records };
}

/** Exact tokens of the input of a session (for the report's dataset table). */
export async function sessionInfo(manifest, name) {
  const c = await load(manifest, name);
  return {
    name,
    messages: c.session.messages.length,
    turns: c.session.messages.filter((m) => m.role === "user").length,
    tokensIn: c.tokensIn,
    estimatedIn: c.plan.est.reduce((a, b) => a + b, 0),
    questions: c.questions.length,
    answerInEvidence: c.questions.filter((q) => q.answerInEvidence).length,
  };
}

export { exactMessage };

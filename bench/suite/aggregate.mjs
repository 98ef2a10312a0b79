// Turns the raw task results into the figures the report shows. Pure functions; every
// number is rounded so that the JSON is stable byte for byte.
import { round, mean, quantile } from "./common.mjs";
import { METHOD_ORDER } from "./methods.mjs";

const CATEGORIES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
export { CATEGORIES };

const key = (c) => `${c.variant}|${c.method}|${c.mode}|${c.budget}`;

/** LoCoMo cells: one row per (variant, method, mode, budget), pooled over sessions. */
export function locomoCells(cells) {
  const groups = new Map();
  for (const c of cells) {
    if (!c || c.error) continue;
    const k = key(c);
    if (!groups.has(k)) groups.set(k, { variant: c.variant, method: c.method, mode: c.mode, budget: c.budget, parts: [] });
    groups.get(k).parts.push(c);
  }
  const rows = [];
  for (const g of groups.values()) {
    let n = 0,
      strict = 0,
      soft = 0,
      inTok = 0,
      outTok = 0,
      stubTok = 0,
      estOut = 0,
      exactOver = 0,
      estOver = 0,
      flagged = 0,
      fallbacks = 0;
    const cat = {};
    for (const c of g.parts) {
      for (const q of c.questions) {
        n++;
        strict += q.strict;
        soft += q.soft;
        inTok += c.tokensIn;
        outTok += q.tokensOut;
        stubTok += q.stubTokens ?? 0;
        estOut += q.estimated ?? 0;
        if (q.tokensOut > g.budget) exactOver++;
        if ((q.estimated ?? 0) > g.budget) estOver++;
        flagged += q.overBudget;
        if (q.fallback) fallbacks++;
        const k = q.category;
        cat[k] ??= { n: 0, strict: 0, soft: 0 };
        cat[k].n++;
        cat[k].strict += q.strict;
        cat[k].soft += q.soft;
      }
    }
    rows.push({
      variant: g.variant,
      method: g.method,
      mode: g.mode,
      budget: g.budget,
      sessions: g.parts.length,
      questions: n,
      strict: round(strict / n),
      soft: round(soft / n),
      savings: round(1 - outTok / inTok),
      meanTokensOut: round(outTok / n, 1),
      stubShare: round(stubTok / outTok),
      meanEstimatedOut: round(estOut / n, 1),
      exactOverBudget: round(exactOver / n),
      estimateOverBudget: round(estOver / n),
      flaggedOverBudget: round(flagged / n),
      fallbacks,
      byCategory: Object.fromEntries(Object.entries(cat).map(([k, v]) => [k, { n: v.n, strict: round(v.strict / v.n), soft: round(v.soft / v.n) }])),
    });
  }
  const order = METHOD_ORDER;
  const vorder = ["chat", "agentic", "multitopic"];
  rows.sort(
    (a, b) =>
      vorder.indexOf(a.variant) - vorder.indexOf(b.variant) ||
      a.budget - b.budget ||
      order.indexOf(a.method) - order.indexOf(b.method) ||
      (a.mode === "focused" ? -1 : 1) - (b.mode === "focused" ? -1 : 1),
  );
  return rows;
}

const reasonClass = (l) => {
  const r = l.reason ?? "";
  if (r.startsWith("other topic")) return "other topic → stub";
  if (r.startsWith("other sub-topic")) return "other sub-topic → stub";
  if (r.startsWith("over budget: summarized")) return "over budget → summary";
  if (r.startsWith("over budget")) return "over budget → stub";
  if (r.startsWith("folded for the budget")) return "sticky fold";
  return `${l.decision}${r ? `: ${r}` : ""}`;
};

/**
 * Where an engine method (focused) and recency disagree, per variant and budget: how many
 * questions each wins, why the engine lost the evidence, and concrete examples.
 */
export function losses(cells, { method = "fold", mode = "focused", examples = 3 } = {}) {
  const byKey = new Map();
  for (const c of cells) if (c && !c.error) byKey.set(`${c.session}|${c.method}|${c.mode}|${c.budget}`, c);
  // Whether the engine matched the prompt to an earlier topic, read at the largest budget
  // (under budget pressure the matched turns may be folded and their reason overwritten).
  const matched = new Map();
  const largest = new Map();
  for (const c of cells) {
    if (!c || c.error || c.method !== method || c.mode !== mode) continue;
    if ((largest.get(c.session)?.budget ?? -1) < c.budget) largest.set(c.session, c);
  }
  const topicMatched = new Map();
  for (const c of largest.values()) {
    for (const q of c.questions) {
      matched.set(`${c.session}|${q.id}`, q.relevant?.length > 0);
      topicMatched.set(`${c.session}|${q.id}`, !!q.topicMatched);
    }
  }
  const out = [];
  const groups = new Map();
  for (const c of cells) {
    if (!c || c.error || c.method !== method || c.mode !== mode) continue;
    const rec = byKey.get(`${c.session}|recency|agnostic|${c.budget}`);
    if (!rec) continue;
    const gk = `${c.variant}|${c.budget}`;
    if (!groups.has(gk))
      groups.set(gk, {
        variant: c.variant,
        budget: c.budget,
        questions: 0,
        engineOnly: 0,
        recencyOnly: 0,
        both: 0,
        neither: 0,
        reasons: {},
        examples: [],
        lostRelevant: 0,
        lostEvidence: 0,
        recognized: 0,
        evidenceTopic: 0,
        fillSum: 0,
        outSum: 0,
        stubSum: 0,
      });
    const g = groups.get(gk);
    const recById = new Map(rec.questions.map((q) => [q.id, q]));
    for (const q of c.questions) {
      const r = recById.get(q.id);
      if (!r) continue;
      g.questions++;
      g.fillSum += q.tokensOut / c.budget;
      g.outSum += q.tokensOut;
      g.stubSum += q.stubTokens ?? 0;
      if (matched.get(`${c.session}|${q.id}`)) g.recognized++;
      if (topicMatched.get(`${c.session}|${q.id}`)) g.evidenceTopic++;
      if (q.strict && r.strict) g.both++;
      else if (q.strict) g.engineOnly++;
      else if (r.strict) {
        g.recencyOnly++;
        for (const l of q.lost) {
          const k = reasonClass(l);
          g.reasons[k] = (g.reasons[k] ?? 0) + 1;
          g.lostEvidence++;
          if (q.relevant?.includes(l.topic)) g.lostRelevant++;
        }
        if (g.examples.length < examples)
          g.examples.push({
            id: q.id,
            session: c.session,
            lost: q.lost.slice(0, 2),
            relevant: q.relevant,
            currentTopic: q.currentTopic,
            tokensOut: q.tokensOut,
          });
      } else g.neither++;
    }
  }
  for (const g of groups.values()) {
    const { fillSum, outSum, stubSum, ...rest } = g;
    out.push({
      ...rest,
      meanFill: round(fillSum / g.questions),
      stubShare: round(stubSum / outSum),
      recognizedShare: round(g.recognized / g.questions),
      evidenceTopicShare: round(g.evidenceTopic / g.questions),
    });
  }
  const vorder = ["chat", "agentic", "multitopic"];
  out.sort((a, b) => vorder.indexOf(a.variant) - vorder.indexOf(b.variant) || a.budget - b.budget);
  return out;
}

/** tau-bench: one row per (method, budget), pooled over trajectories. */
export function taubenchRows(trajectories) {
  const groups = new Map();
  for (const t of trajectories) {
    if (!t || t.error) continue;
    for (const r of t.rows) {
      const k = `${r.method}|${r.budget}`;
      if (!groups.has(k))
        groups.set(k, {
          method: r.method,
          budget: r.budget,
          trajectories: 0,
          values: 0,
          survived: 0,
          tokensIn: 0,
          tokensOut: 0,
          exactOver: 0,
          estOver: 0,
          flagged: 0,
          violations: 0,
          withViolations: [],
          fallbacks: 0,
          perTraj: [],
        });
      const g = groups.get(k);
      g.trajectories++;
      g.values += r.values;
      g.survived += r.survived;
      g.tokensIn += t.tokensIn;
      g.tokensOut += r.tokensOut;
      if (r.tokensOut > r.budget) g.exactOver++;
      if (r.estimated > r.budget) g.estOver++;
      g.flagged += r.overBudget;
      g.violations += r.violations;
      if (r.violations) g.withViolations.push({ name: t.name, detail: r.violationDetail });
      if (r.fallback) g.fallbacks++;
      if (r.values) g.perTraj.push(r.survived / r.values);
    }
  }
  const order = METHOD_ORDER;
  return [...groups.values()]
    .map((g) => ({
      method: g.method,
      budget: g.budget,
      trajectories: g.trajectories,
      values: g.values,
      survival: round(g.survived / g.values),
      survivalMacro: round(mean(g.perTraj)),
      savings: round(1 - g.tokensOut / g.tokensIn),
      exactOverBudget: round(g.exactOver / g.trajectories),
      estimateOverBudget: round(g.estOver / g.trajectories),
      flaggedOverBudget: round(g.flagged / g.trajectories),
      violations: g.violations,
      withViolations: g.withViolations.slice(0, 5),
      fallbacks: g.fallbacks,
    }))
    .sort((a, b) => a.budget - b.budget || order.indexOf(a.method) - order.indexOf(b.method));
}

/** Invariant sweep: per (family, method) totals and every failure (capped). */
export function invariantRows(sweeps) {
  const groups = new Map();
  const failures = [];
  const idempotence = { sessions: 0, idempotent: 0, failures: [] };
  for (const s of sweeps) {
    if (!s || s.error) {
      if (s?.error) failures.push({ session: s.name ?? "?", method: "-", budget: null, fail: s.error });
      continue;
    }
    idempotence.sessions++;
    if (s.idempotent) idempotence.idempotent++;
    else idempotence.failures.push({ session: s.name, detail: s.idempotenceDetail });
    const family = s.family;
    for (const r of s.rows) {
      const k = `${family}|${r.method}`;
      if (!groups.has(k))
        groups.set(k, {
          family,
          method: r.method,
          runs: 0,
          failed: 0,
          fits: 0,
          flagged: 0,
          exactOver: 0,
          exactRuns: 0,
          fallbacks: 0,
          lastTurnWhole: 0,
          lastTurnRuns: 0,
          sessions: new Set(),
        });
      const g = groups.get(k);
      g.runs++;
      g.sessions.add(s.name);
      if (r.fails.length) {
        g.failed++;
        for (const f of r.fails) if (failures.length < 200) failures.push({ session: s.name, method: r.method, budget: r.budget, fail: f });
      }
      g.fits += r.fits;
      g.flagged += r.overBudget;
      if (r.exactOut != null) {
        g.exactRuns++;
        if (r.exactOut > r.budget) g.exactOver++;
      }
      if (r.fallback) g.fallbacks++;
      if (r.lastTurnWhole != null) {
        g.lastTurnRuns++;
        if (r.lastTurnWhole) g.lastTurnWhole++;
      }
    }
  }
  const rows = [...groups.values()].map(({ sessions, ...g }) => ({ ...g, sessions: sessions.size }));
  return { rows, failures, idempotence };
}

/** Cleaner savings rows (the seed log line's fields), exact tokens beside the estimate. */
export function cleanerRows(sweeps) {
  const rows = [];
  const tau = {
    sessions: 0,
    messagesBefore: 0,
    messagesAfter: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    exactBefore: 0,
    exactAfter: 0,
    cleanedRC: 0,
    cleanedThink: 0,
    dropTool: 0,
    dropAsstTC: 0,
    perSession: [],
  };
  for (const s of sweeps) {
    if (!s || s.error || s.shape !== "openclaw") continue;
    const st = s.clean;
    const row = {
      name: s.name,
      family: s.family,
      messagesBefore: st.messagesBefore,
      messagesAfter: st.messagesAfter,
      tokensBefore: st.tokensBefore,
      tokensAfter: st.tokensAfter,
      exactBefore: s.cleanExact.before,
      exactAfter: s.cleanExact.after,
      cleanedRC: st.cleanedRC,
      cleanedThink: st.cleanedThink,
      dropTool: st.dropTool,
      dropAsstTC: st.dropAsstTC,
      fallback: s.cleanFallback,
    };
    if (s.family === "taubench") {
      tau.sessions++;
      for (const k of [
        "messagesBefore",
        "messagesAfter",
        "tokensBefore",
        "tokensAfter",
        "exactBefore",
        "exactAfter",
        "cleanedRC",
        "cleanedThink",
        "dropTool",
        "dropAsstTC",
      ])
        tau[k] += row[k];
      tau.perSession.push(1 - row.exactAfter / row.exactBefore);
    } else if (s.family !== "locomo") rows.push(row);
  }
  if (tau.sessions) {
    const { perSession, ...t } = tau;
    rows.push({ name: `tau-bench, all ${tau.sessions} trajectories`, family: "taubench", ...t, medianSavings: round(quantile(perSession, 0.5)) });
  }
  return rows;
}

/** Cache stability rows. */
export function cacheRows(replays) {
  return replays
    .filter((r) => r && !r.error)
    .map((r) => ({
      ...r,
      meanReuse: round(r.meanReuse),
      meanTokens: round(r.meanTokens, 1),
      meanUncached: round(r.meanUncached, 1),
      worst: r.worst.map((w) => ({ ...w, reuse: round(w.reuse) })),
    }));
}

// Writes docs/benchmarks.md (tables) and docs/benchmarks-savings-recall.svg (hand-written
// SVG: savings vs recall per variant, the recency curve on the same axes) from the results.
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { METHODS } from "./methods.mjs";
import { CATEGORIES } from "./aggregate.mjs";
import { readJson } from "./common.mjs";
import { sessionPath } from "./datasets.mjs";

const pct = (x) => (x == null ? "–" : `${Math.round(x * 100)} %`);
const pct1 = (x) => (x == null ? "–" : `${(x * 100).toFixed(1)} %`);
const f2 = (x) => (x == null ? "–" : x.toFixed(2));
const int = (x) => (x == null ? "–" : Math.round(x).toLocaleString("en-US"));
const kb = (b) => (b >= 1000 ? `${b / 1000}k` : String(b));
const modeLabel = (m) => (m.method && METHODS[m.method]?.prompt ? ` (${m.mode})` : "");
const label = (r) => `${METHODS[r.method]?.label ?? r.method}${modeLabel(r)}`;
const table = (head, rows) => [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

const VARIANT_TEXT = {
  chat: "**chat**: one message per run of one speaker's lines; speaker A is the user, speaker B the assistant.",
  agentic: "**agentic**: each dated session arrives as a `read_chat_log` tool round-trip; the evidence sits inside tool results.",
  multitopic: "**multitopic**: conversations interleaved session by session in one long session; each question concerns one of them.",
};

// ---------------------------------------------------------------------------------------
// The plot

const SERIES = [
  { method: "passthrough", mode: "agnostic", color: "#000000", marker: "square", name: "pass-through" },
  { method: "recency", mode: "agnostic", color: "#7f7f7f", dash: "5 3", name: "recency (baseline)", budgets: true },
  { method: "clean", mode: "agnostic", color: "#d62728", marker: "cross", name: "clean" },
  { method: "fold", mode: "focused", color: "#1f77b4", name: "fold (focused)", budgets: true, labelLeft: true },
  { method: "fold", mode: "agnostic", color: "#6baed6", dash: "2 2", name: "fold (agnostic)" },
  { method: "foldOtherOn", mode: "focused", color: "#2ca02c", name: "fold, foldOtherTopics on (focused)" },
  { method: "foldOtherOff", mode: "focused", color: "#17becf", name: "fold, foldOtherTopics off (focused)" },
  { method: "foldKeepTools", mode: "focused", color: "#ff7f0e", name: "fold, tool results kept (focused)" },
  { method: "foldSummaries", mode: "focused", color: "#9467bd", name: "fold, all turns summarized (focused)" },
];

function panel(x0, y0, w, h, title, yLabel, points) {
  const L = 46,
    R = 12,
    T = 24,
    B = 34;
  const pw = w - L - R,
    ph = h - T - B;
  const X = (v) => x0 + L + Math.max(0, Math.min(1, v)) * pw;
  const Y = (v) => y0 + T + (1 - Math.max(0, Math.min(1, v))) * ph;
  const out = [];
  out.push(`<text x="${x0 + L + pw / 2}" y="${y0 + 16}" text-anchor="middle" font-weight="bold">${title}</text>`);
  for (let i = 0; i <= 5; i++) {
    const v = i / 5;
    out.push(`<line x1="${X(v)}" y1="${Y(0)}" x2="${X(v)}" y2="${Y(1)}" stroke="#e5e5e5"/>`);
    out.push(`<line x1="${X(0)}" y1="${Y(v)}" x2="${X(1)}" y2="${Y(v)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${X(v)}" y="${Y(0) + 14}" text-anchor="middle" font-size="10">${Math.round(v * 100)}%</text>`);
    out.push(`<text x="${X(0) - 5}" y="${Y(v) + 3}" text-anchor="end" font-size="10">${v.toFixed(1)}</text>`);
  }
  out.push(`<rect x="${X(0)}" y="${Y(1)}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  out.push(`<text x="${X(0.5)}" y="${Y(0) + 28}" text-anchor="middle" font-size="11">savings (exact tokens)</text>`);
  out.push(`<text transform="translate(${x0 + 12},${Y(0.5)}) rotate(-90)" text-anchor="middle" font-size="11">${yLabel}</text>`);
  for (const s of SERIES) {
    const pts = points.filter((p) => p.method === s.method && p.mode === s.mode).sort((a, b) => a.budget - b.budget);
    if (!pts.length) continue;
    if (pts.length > 1)
      out.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="1.8"${s.dash ? ` stroke-dasharray="${s.dash}"` : ""} points="${pts.map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" ")}"/>`,
      );
    // Budgets that land on the same spot share one marker and one label ("8k, 16k").
    const spots = [];
    for (const p of pts) {
      const cx = +X(p.x).toFixed(1),
        cy = +Y(p.y).toFixed(1);
      const near = spots.find((q) => Math.abs(q.cx - cx) < 6 && Math.abs(q.cy - cy) < 6);
      if (near) near.budgets.push(p.budget);
      else spots.push({ cx, cy, budgets: [p.budget] });
    }
    for (const { cx, cy, budgets } of spots) {
      if (s.marker === "square") out.push(`<rect x="${cx - 3.5}" y="${cy - 3.5}" width="7" height="7" fill="${s.color}"/>`);
      else if (s.marker === "cross")
        out.push(`<path d="M${cx - 4},${cy - 4}L${cx + 4},${cy + 4}M${cx - 4},${cy + 4}L${cx + 4},${cy - 4}" stroke="${s.color}" stroke-width="2"/>`);
      else out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${s.color}"/>`);
      if (s.budgets)
        out.push(
          `<text x="${cx + (s.labelLeft ? -5 : 5)}" y="${cy - 5}" font-size="9" fill="${s.color}"${s.labelLeft ? ' text-anchor="end"' : ""}>${budgets.map(kb).join(", ")}</text>`,
        );
    }
  }
  return out.join("\n");
}

export function svgPlot(results) {
  const cells = results.locomo.cells;
  const panels = [];
  for (const v of ["chat", "agentic", "multitopic"]) {
    const pts = cells.filter((c) => c.variant === v).map((c) => ({ method: c.method, mode: c.mode, budget: c.budget, x: c.savings, y: c.strict }));
    if (pts.length) panels.push({ title: `LoCoMo ${v}`, y: "strict evidence recall", pts });
  }
  const tau = results.taubench.rows.map((r) => ({
    method: r.method,
    mode: r.method === "fold" || r.method.startsWith("fold") ? "focused" : "agnostic",
    budget: r.budget,
    x: r.savings,
    y: r.survival,
  }));
  if (tau.length) panels.push({ title: "tau-bench (policy pinned, no prompt)", y: "gold-argument survival", pts: tau });
  const W = 370,
    H = 280,
    cols = 2;
  const rows = Math.ceil(panels.length / cols);
  const used = SERIES.filter((s) => panels.some((p) => p.pts.some((q) => q.method === s.method && q.mode === s.mode)));
  const legendH = 18 * Math.ceil(used.length / 2) + 12;
  const width = W * cols,
    height = H * rows + legendH;
  const body = panels.map((p, i) => panel((i % cols) * W, Math.floor(i / cols) * H, W, H, p.title, p.y, p.pts)).join("\n");
  const legend = used
    .map((s, i) => {
      const x = 20 + (i % 2) * (width / 2),
        y = H * rows + 14 + Math.floor(i / 2) * 18;
      return `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ""}/><circle cx="${x + 11}" cy="${y}" r="3" fill="${s.color}"/><text x="${x + 28}" y="${y + 4}" font-size="11">${s.name}</text>`;
    })
    .join("\n");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
<rect width="${width}" height="${height}" fill="#ffffff"/>
${body}
${legend}
</svg>
`;
}

// ---------------------------------------------------------------------------------------
// The markdown

function questionText(manifest, sessionName, id, cache) {
  if (!cache.has(sessionName)) {
    try {
      const side = readJson(sessionPath(manifest, sessionName, ".questions.json"));
      cache.set(sessionName, new Map(side.questions.map((q) => [q.id, q])));
    } catch {
      cache.set(sessionName, new Map());
    }
  }
  return cache.get(sessionName).get(id);
}

function locomoSection(results, manifest) {
  const out = [];
  const cells = results.locomo.cells;
  const info = results.datasets.locomo;
  out.push("## 1. LoCoMo: evidence retention vs savings");
  out.push("");
  out.push(
    "Every scorable question (category 5 and questions without usable evidence excluded) is asked after the whole conversation: the history is the full session, " +
      "**focused** passes the question as the upcoming prompt (one engine call per question), **agnostic** passes none (one call per session and budget). " +
      "**Strict** recall: all evidence messages survive verbatim (kept, or a cleaned/truncated replacement that still contains the evidence line; stubs and summaries never count). " +
      "**Soft**: strict, or, for questions whose normalized answer occurs in an evidence line, the answer occurs in a stub, summary, short ask or truncation that stands for an evidence message. " +
      "**Savings** = 1 − exact output tokens / exact input tokens, pooled over the requests (one per question). Cells read `strict / soft · savings`.",
  );
  out.push("");
  if (info.length) {
    out.push(
      table(
        ["session", "messages", "turns", "tokens (o200k)", "engine estimate", "estimate / exact", "scorable questions", "answer in evidence"],
        info.map((s) => [
          s.name.replace(/^locomo\./, ""),
          int(s.messages),
          int(s.turns),
          int(s.tokensIn),
          int(s.estimatedIn),
          f2(s.estimatedIn / s.tokensIn),
          int(s.questions),
          int(s.answerInEvidence),
        ]),
      ),
    );
    out.push("");
  }
  for (const v of ["chat", "agentic", "multitopic"]) {
    const vc = cells.filter((c) => c.variant === v);
    if (!vc.length) continue;
    const budgets = [...new Set(vc.map((c) => c.budget))].sort((a, b) => a - b);
    const methods = [];
    for (const c of vc) if (!methods.some((m) => m.method === c.method && m.mode === c.mode)) methods.push({ method: c.method, mode: c.mode });
    const sessions = vc[0].sessions,
      questions = vc[0].questions;
    out.push(`### ${v} (${sessions} session${sessions > 1 ? "s" : ""}, ${questions} questions)`);
    out.push("");
    out.push(VARIANT_TEXT[v]);
    out.push("");
    const get = (m, b) => vc.find((c) => c.method === m.method && c.mode === m.mode && c.budget === b);
    out.push(
      table(
        ["method", ...budgets.map((b) => `B = ${kb(b)}`)],
        methods.map((m) => [
          label(m),
          ...budgets.map((b) => {
            const c = get(m, b);
            return c ? `${f2(c.strict)} / ${f2(c.soft)} · ${pct(c.savings)}` : "–";
          }),
        ]),
      ),
    );
    out.push("");
    out.push(
      `Budget adherence (${v}): share of requests whose output exceeds B by the exact count / by the engine's estimate / flagged \`overBudget\` by the engine (the protected recent turns alone do not fit).`,
    );
    out.push("");
    out.push(
      table(
        ["method", ...budgets.map((b) => `B = ${kb(b)}`)],
        methods
          .filter((m) => m.method !== "passthrough")
          .map((m) => [
            label(m),
            ...budgets.map((b) => {
              const c = get(m, b);
              return c ? `${pct1(c.exactOverBudget)} / ${pct1(c.estimateOverBudget)} / ${pct1(c.flaggedOverBudget)}` : "–";
            }),
          ]),
      ),
    );
    out.push("");
  }

  // Per category
  out.push("### Strict recall per question category");
  out.push("");
  out.push("Categories as LoCoMo numbers them: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop (n = questions).");
  out.push("");
  for (const v of ["chat", "agentic", "multitopic"]) {
    const vc = cells.filter(
      (c) =>
        c.variant === v &&
        ["recency", "fold", "foldOtherOn", "foldOtherOff", "foldKeepTools"].includes(c.method) &&
        (c.mode === "focused" || c.method === "recency"),
    );
    if (!vc.length) continue;
    const cats = Object.keys(CATEGORIES).filter((k) => vc.some((c) => c.byCategory[k]));
    out.push(`**${v}**`);
    out.push("");
    out.push(
      table(
        ["B", "method", ...cats.map((k) => `${CATEGORIES[k]} (n=${vc[0].byCategory[k]?.n ?? 0})`), "all"],
        vc.map((c) => [kb(c.budget), label(c), ...cats.map((k) => f2(c.byCategory[k]?.strict)), f2(c.strict)]),
      ),
    );
    out.push("");
  }

  // Losses
  const qcache = new Map();
  const alt = results.locomo.alternative;
  for (const [key, title] of [
    ["losses", "fold (focused)"],
    ["lossesAlternative", `${METHODS[alt]?.label ?? alt} (focused)`],
  ]) {
    const L = results.locomo[key];
    if (!L?.length) continue;
    out.push(`### Where ${title} and recency disagree`);
    out.push("");
    out.push(
      "Per question: both keep the evidence, only the engine does, only recency does. For the questions only recency gets right, why the engine lost each evidence message (the decision and reason of its turn in the per-turn explanation). " +
        '*Fill* = mean output tokens / B; *stub share* = share of the output spent on stubs (short asks and stub lines of stubbed turns); *prompt matched* = share of questions for which, at the largest budget, the engine keeps at least one turn of an earlier topic as relevant (reason "the prompt … refer(s) to topic …"); *evidence topic matched* = share of questions whose evidence turns all belong to the current topic or to such a relevant topic (both at the largest budget).',
    );
    out.push("");
    out.push(
      table(
        [
          "variant",
          "B",
          "questions",
          "both",
          "engine only",
          "recency only",
          "neither",
          "fill",
          "stub share",
          "prompt matched",
          "evidence topic matched",
          "lost evidence: reasons",
        ],
        L.map((g) => [
          g.variant,
          kb(g.budget),
          int(g.questions),
          int(g.both),
          int(g.engineOnly),
          int(g.recencyOnly),
          int(g.neither),
          pct(g.meanFill),
          pct(g.stubShare),
          pct(g.recognizedShare),
          pct(g.evidenceTopicShare),
          Object.entries(g.reasons)
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n}`)
            .join("; ") || "–",
        ]),
      ),
    );
    out.push("");
    if (key === "losses") {
      const ex = L.filter((g) => g.examples.length).slice(0, 6);
      if (ex.length) {
        out.push("Examples (first questions in id order that recency keeps and the engine loses):");
        out.push("");
        for (const g of ex) {
          for (const e of g.examples.slice(0, 2)) {
            const q = questionText(manifest, e.session, e.id, qcache);
            const lost = e.lost.map((l) => `${l.dia} (message ${l.message}, turn \`${l.turn}\`): ${l.decision}, "${l.reason}"`).join("; ");
            out.push(
              `- ${g.variant} ${kb(g.budget)}, \`${e.id}\` "${q?.question ?? "?"}" (answer: ${q?.answer ?? "?"}): ${lost}. Topics kept as relevant: ${e.relevant?.length ? e.relevant.map((r) => `"${r}"`).join(", ") : "none"}; current topic "${e.currentTopic ?? "?"}"; output ${int(e.tokensOut)} tokens.`,
            );
          }
        }
        out.push("");
      }
    }
  }
  return out.join("\n");
}

function taubenchSection(results) {
  const rows = results.taubench.rows;
  if (!rows.length) return "";
  const out = ["## 2. tau-bench: tool-heavy replay", ""];
  out.push(
    `${results.taubench.trajectories} trajectories with a query point (the first assistant message calling a gold write action); the history is the prefix before it, the airline policy is pinned outside the budget (not counted, not sent through the engine), no upcoming prompt. ` +
      "**Survival** = share of the gold write-action argument values (≥ 3 characters, present in the prefix) still present in the output, pooled (per trajectory, averaged: *macro*). " +
      "**Pairing violations**: PROVIDERS.md rules 1, 2 and 4 checked positionally on the output (must be 0). Over B: exact / estimate / flagged `overBudget`.",
  );
  out.push("");
  out.push(
    table(
      ["B", "method", "survival", "macro", "savings", "over B", "pairing violations", "gate fallbacks"],
      rows.map((r) => [
        kb(r.budget),
        METHODS[r.method]?.label ?? r.method,
        f2(r.survival),
        f2(r.survivalMacro),
        pct(r.savings),
        `${pct(r.exactOverBudget)} / ${pct(r.estimateOverBudget)} / ${pct(r.flaggedOverBudget)}`,
        int(r.violations),
        int(r.fallbacks),
      ]),
    ),
  );
  out.push("");
  return out.join("\n");
}

function invariantsSection(results) {
  const inv = results.invariants;
  const out = ["## 3. Invariants and cleaner savings", ""];
  out.push(
    "Every converted session (LoCoMo, tau-bench full trajectories, Claude Code as an OpenClaw session and as its raw Anthropic message list) and `samples/session.jsonl`, for every budget, through `assembleOnce`. " +
      "A run fails when any of these does not hold: two calls give identical bytes; the benchmarks' session-reusing planner gives the same bytes; PROVIDERS.md rules 1/2/4, 6, 7, 10–15 checked on the output by the benchmark itself; plan order; the reported estimate equals the estimate of the applied output; fold output ≤ B by the estimate unless flagged `overBudget`; every message from the frontier on and the latest user message kept verbatim, the latest turn never stubbed/summarized/truncated. " +
      "*Last turn whole* counts runs where every message of the latest turn is kept verbatim (the cleaner drops the tool chatter of a finished latest turn before its frontier by design).",
  );
  out.push("");
  out.push(
    table(
      ["sessions", "method", "count", "runs", "failed", "fits B (estimate)", "flagged overBudget", "exact > B", "gate fallbacks", "last turn whole"],
      inv.rows.map((r) => [
        r.family,
        METHODS[r.method]?.label ?? r.method,
        int(r.sessions),
        int(r.runs),
        int(r.failed),
        pct(r.fits / r.runs),
        pct(r.flagged / r.runs),
        r.exactRuns ? pct(r.exactOver / r.exactRuns) : "n/a",
        int(r.fallbacks),
        r.lastTurnRuns ? pct(r.lastTurnWhole / r.lastTurnRuns) : "n/a",
      ]),
    ),
  );
  out.push("");
  out.push(`Idempotence of clean (cleaning the cleaned output changes nothing): ${inv.idempotence.idempotent} of ${inv.idempotence.sessions} sessions.`);
  out.push("");
  if (inv.failures.length) {
    out.push(`Failures (${inv.failures.length}${inv.failures.length >= 200 ? "+" : ""}; first 25):`);
    out.push("");
    for (const f of inv.failures.slice(0, 25)) out.push(`- \`${f.session}\` ${f.method} B=${f.budget}: ${f.fail}`);
    out.push("");
  } else {
    out.push("No failures.");
    out.push("");
  }
  const c = results.cleaner;
  if (c.length) {
    out.push("### Cleaner savings (mode `clean`, as the seed's log line reports them)");
    out.push("");
    out.push(
      table(
        ["session", "msgs", "tokens (estimate)", "tokens (o200k)", "cleanedRC", "cleanedThink", "dropTool", "dropAsstTC"],
        c.map((r) => [
          r.name,
          `${int(r.messagesBefore)}→${int(r.messagesAfter)}`,
          `${int(r.tokensBefore)}→${int(r.tokensAfter)} (${int(r.tokensAfter - r.tokensBefore)})`,
          `${int(r.exactBefore)}→${int(r.exactAfter)} (−${pct(1 - r.exactAfter / r.exactBefore)}${r.medianSavings != null ? `, median per trajectory −${pct(r.medianSavings)}` : ""})`,
          int(r.cleanedRC),
          int(r.cleanedThink),
          int(r.dropTool),
          int(r.dropAsstTC),
        ]),
      ),
    );
    out.push("");
    out.push("Log lines:");
    out.push("");
    out.push("```");
    for (const r of c)
      out.push(
        `[contextfold] session=${r.name.replace(/\s+/g, "_")} ${r.messagesBefore}→${r.messagesAfter} msgs ${r.tokensBefore}→${r.tokensAfter} tok (${r.tokensAfter - r.tokensBefore}) cleanedRC=${r.cleanedRC} cleanedThink=${r.cleanedThink} dropTool=${r.dropTool} dropAsstTC=${r.dropAsstTC}`,
      );
    out.push("```");
    out.push("");
  }
  return out.join("\n");
}

const short = (name) => name.replace(/^locomo\.|^taubench\.gpt-4o-airline-dev\./, "");

/** Replays of several sessions under one label (tau-bench) become one row per method. */
function mergeReplays(all) {
  const count = new Map();
  for (const r of all) if (r.requests > 0) count.set(r.label, new Set([...(count.get(r.label) ?? []), r.name]));
  const out = [];
  const merged = new Map();
  for (const r of all) {
    if (!(r.requests > 0)) continue;
    const names = count.get(r.label);
    if (names.size < 2) {
      out.push(r);
      continue;
    }
    const k = `${r.label}|${r.method}`;
    let m = merged.get(k);
    if (!m) {
      m = {
        label: r.label,
        name: `${names.size} sessions`,
        method: r.method,
        budget: r.budget,
        requests: 0,
        reuseSum: 0,
        tokenSum: 0,
        uncachedSum: 0,
        breaks: 0,
        summariesMade: 0,
        usd: {},
        breakAtIndex: {},
        breakReasons: {},
        worst: [],
      };
      merged.set(k, m);
      out.push(m);
    }
    m.requests += r.requests;
    m.reuseSum += r.meanReuse * r.requests;
    m.tokenSum += r.meanTokens * r.requests;
    m.uncachedSum += r.meanUncached * r.requests;
    m.breaks += r.breaks;
    m.summariesMade += r.summariesMade;
    for (const [p, v] of Object.entries(r.usd ?? {})) m.usd[p] = (m.usd[p] ?? 0) + v;
    if (r.unfolds) {
      m.unfolds ??= { total: 0, relevant: 0, other: 0 };
      m.unfolds.total += r.unfolds.total;
      m.unfolds.relevant += r.unfolds.relevant;
      m.unfolds.other += r.unfolds.other;
    }
    for (const [i, n] of Object.entries(r.breakAtIndex ?? {})) m.breakAtIndex[i] = (m.breakAtIndex[i] ?? 0) + n;
    for (const [why, n] of Object.entries(r.breakReasons ?? {})) m.breakReasons[why] = (m.breakReasons[why] ?? 0) + n;
    m.worst.push(...(r.worst ?? []).map((w) => ({ ...w, session: r.name })));
  }
  for (const m of merged.values()) {
    m.meanReuse = m.reuseSum / m.requests;
    m.meanTokens = m.tokenSum / m.requests;
    m.meanUncached = m.uncachedSum / m.requests;
    m.worst.sort((a, b) => a.reuse - b.reuse);
  }
  return out;
}

/**
 * A replay's cache-priced cost over pass-through's on the same sessions and budget, per price
 * preset (`undefined` without both).
 * @returns {Record<string, number> | undefined}
 */
function costRatios(rows, r) {
  const pass = rows.find((x) => x.method === "passthrough" && x.label === r.label && x.name === r.name && x.budget === r.budget);
  if (!pass?.usd || !r.usd) return undefined;
  return Object.fromEntries(Object.entries(r.usd).map(([p, v]) => [p, pass.usd[p] > 0 ? v / pass.usd[p] : NaN]));
}

/** Cost ratios as `0.42× / 0.51×` (Anthropic / OpenAI). */
const costCell = (c) => (c ? `${f2(c.anthropic)}× / ${f2(c.openai)}×` : "–");

function cacheSection(results) {
  const rows = mergeReplays(results.cache);
  if (!rows.length) return "";
  const out = ["## 4. Prompt-cache stability", ""];
  out.push(
    "Each session is replayed turn by turn as OpenClaw drives the engine: before turn k, assemble gets the history before turn k's user message and that message as the prompt; engine methods keep one live session (index appended entry by entry, sticky fold decisions carried over, queued turns summarized by the core's extractive summary before the next request). " +
      "**Reuse** = longest common prefix with the previous request (message by message, exact tokens) / the previous request's size, averaged over the requests. " +
      "*Cost* = the requests' messages priced with the providers' prompt caches (js/core/pricing.js, the presets of `contextfold replay --price`: Anthropic's breakpoint rule, cache reads 0.1× and writes 1.25× the input rate; OpenAI's automatic prefix rule, cached input 0.1×), over the same for pass-through; below 1 is cheaper than sending the whole history. " +
      "*Uncached* = mean tokens per request outside that prefix (billed at the full input price); *breaks* = requests that do not start with the whole previous request (the rule of js/core/cache.js, which `contextfold replay` uses too); *unfolds* = turns stubbed or summarized in one request and back in full in the next (in parentheses: those whose reason is not that the prompt or the latest turns refer to their topic, i.e. fold decisions that did not stick).",
  );
  out.push("");
  out.push(
    table(
      [
        "session",
        "B",
        "method",
        "requests",
        "reuse",
        "cost (Anthropic / OpenAI)",
        "tokens / request",
        "uncached / request",
        "breaks",
        "unfolds (not by relevance)",
        "summaries made",
      ],
      rows.map((r) => [
        /^\d+ sessions$/.test(r.name) ? `${r.label} (${r.name})` : `${r.label}: \`${short(r.name)}\``,
        kb(r.budget),
        METHODS[r.method]?.label ?? r.method,
        int(r.requests),
        f2(r.meanReuse),
        costCell(costRatios(rows, r)),
        int(r.meanTokens),
        int(r.meanUncached),
        int(r.breaks),
        r.unfolds ? `${int(r.unfolds.total)} (${int(r.unfolds.other)})` : "–",
        int(r.summariesMade),
      ]),
    ),
  );
  out.push("");
  const broken = rows.filter((r) => METHODS[r.method]?.kind === "engine" && r.breaks > 0 && r.worst?.[0]?.diff);
  if (broken.length) {
    out.push("Where the engine's prefix breaks (the first message that differs from the previous request; *at message i* counts breaks by that position):");
    out.push("");
    for (const r of broken) {
      const w = r.worst[0];
      const code = (t) => String(t ?? "(none)").replace(/`/g, "'");
      const at = Object.entries(r.breakAtIndex ?? {})
        .map(([i, n]) => `${i} (${n}×)`)
        .join(", ");
      const why = Object.entries(r.breakReasons ?? {})
        .map(([k, n]) => `${k} ${n}×`)
        .join(", ");
      out.push(
        `- ${r.label} \`${short(w.session ?? r.name)}\`, ${METHODS[r.method].label}: ${r.breaks} breaks in ${r.requests} requests, at message ${at}${why ? `; causes: ${why}` : ""}. Worst, turn ${w.turn} (reuse ${f2(w.reuse)}): ${w.diff.reason}, message ${w.diff.shown ?? w.diff.index} was \`${code(w.diff.previous)}\`, now \`${code(w.diff.current)}\`.`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}

function summarySection(results) {
  const cells = results.locomo.cells;
  const out = ["## Summary", ""];
  const rows = [];
  // Reuse · cost (over pass-through, Anthropic's rule) of the replay of a dataset at B, by method.
  const replays = mergeReplays(results.cache ?? []);
  const economics = (label, b, method) => {
    const r = replays.find((x) => x.label === label && x.budget === b && x.method === method);
    const c = r && costRatios(replays, r);
    return r ? `${f2(r.meanReuse)} · ${c ? `${f2(c.anthropic)}×` : "–"}` : "–";
  };
  for (const v of ["chat", "agentic", "multitopic"]) {
    const budgets = [...new Set(cells.filter((c) => c.variant === v).map((c) => c.budget))].sort((a, b) => a - b);
    for (const b of budgets) {
      const at = (m, mode) => cells.find((c) => c.variant === v && c.budget === b && c.method === m && c.mode === mode);
      const rec = at("recency", "agnostic");
      const fold = at("fold", "focused");
      const engine = cells.filter(
        (c) => c.variant === v && c.budget === b && !["passthrough", "recency", "clean"].includes(c.method) && c.estimateOverBudget <= 0.05,
      );
      const best = engine.sort((a, c) => c.strict - a.strict || c.savings - a.savings)[0];
      rows.push([
        v,
        kb(b),
        rec ? `${f2(rec.strict)} · ${pct(rec.savings)}` : "–",
        fold ? `${f2(fold.strict)} · ${pct(fold.savings)}` : "–",
        best ? `${label(best)}: ${f2(best.strict)} · ${pct(best.savings)}` : "–",
        rec && best ? `${best.strict - rec.strict >= 0 ? "+" : "−"}${Math.abs(best.strict - rec.strict).toFixed(2)}` : "–",
        economics(`LoCoMo ${v}`, b, "recency"),
        economics(`LoCoMo ${v}`, b, "fold"),
      ]);
    }
  }
  for (const b of [...new Set(results.taubench.rows.map((r) => r.budget))]) {
    const at = (m) => results.taubench.rows.find((r) => r.budget === b && r.method === m);
    const rec = at("recency");
    const fold = at("fold");
    const best = results.taubench.rows
      .filter((r) => r.budget === b && !["passthrough", "recency", "clean"].includes(r.method) && r.estimateOverBudget <= 0.05)
      .sort((a, c) => c.survival - a.survival || c.savings - a.savings)[0];
    rows.push([
      "tau-bench",
      kb(b),
      rec ? `${f2(rec.survival)} · ${pct(rec.savings)}` : "–",
      fold ? `${f2(fold.survival)} · ${pct(fold.savings)}` : "–",
      best ? `${METHODS[best.method].label}: ${f2(best.survival)} · ${pct(best.savings)}` : "–",
      rec && best ? `${best.survival - rec.survival >= 0 ? "+" : "−"}${Math.abs(best.survival - rec.survival).toFixed(2)}` : "–",
      economics("tau-bench", b, "recency"),
      economics("tau-bench", b, "fold"),
    ]);
  }
  out.push(
    "Strict evidence recall (LoCoMo) or gold-argument survival (tau-bench) · savings, at each budget B. *Best engine* = the fold configuration with the highest recall among those whose output fits B (engine estimate) in at least 95 % of the requests; – when none does. " +
      "*Reuse · cost* = where the session is also replayed request by request at B (section 4): mean prompt-cache prefix reuse · cost of the requests with Anthropic's prompt cache over sending the whole history (section 4 has OpenAI's too).",
  );
  out.push("");
  out.push(table(["variant", "B", "recency", "fold (focused)", "best engine", "best − recency", "recency: reuse · cost", "fold: reuse · cost"], rows));
  out.push("");
  out.push("![savings vs strict recall per variant, recency on the same axes](benchmarks-savings-recall.svg)");
  out.push("");
  return out.join("\n");
}

/** Writes the report and the plot. */
const ms = (x) => (x == null ? "–" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;

/** §6: speed and size (bench/speed/run.mjs) and the long-session soak (bench/soak/soak.mjs). */
function speedSection(speed, soak) {
  const out = ["## 6. Speed and size", ""];
  if (speed) {
    out.push(
      `From \`node bench/speed/run.mjs\` (see [bench/speed/README.md](../bench/speed/README.md)), run by the same command: generated sessions (thinking, tool calls with ~${speed.resultChars}-character results, answers; \`tokenBudget\` ${speed.budget}), Node ${speed.node}, ${speed.cpus} cores. Times in ms, p50 / p95 over the repetitions; **floor** = \`JSON.parse(JSON.stringify(history))\` on the same input in the same run, timed on each per-turn request's history right after that request. *assemble* is the engine adapter's \`assemble\` as the host calls it (boundary crossing, core, side caches): **per turn** = one request per new turn with the host's messages as fresh objects, after \`commitTurn\` of the previous turn; *first* = the first request after the session opened; *repeat* = the same history again.`,
    );
    out.push("");
    out.push(
      "| turns | messages | history | floor | assemble per turn | ratio to floor (p50) | first | repeat | native core (first / per turn) | index update per turn | commitTurn | full index rebuild |",
    );
    out.push("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const r of speed.sizes) {
      out.push(
        `| ${r.turns.toLocaleString("en")} | ${r.messages.toLocaleString("en")} | ${(r.historyBytes / 1048576).toFixed(1)} MiB | ${ms(r.floor.p50)} / ${ms(r.floor.p95)} | ${ms(r.turn.p50)} / ${ms(r.turn.p95)} | **${r.ratio.turn.toFixed(1)}×** | ${ms(r.first)} | ${ms(r.repeat.p50)} / ${ms(r.repeat.p95)} | ${r.native ? `${ms(r.native.assemble.p50)} (+ parse ${ms(r.native.parse.p50)}) / ${r.native.turn ? ms(r.native.turn.p50) : "–"}` : "–"} | ${ms(r.indexAppendPerTurn.p50)} / ${ms(r.indexAppendPerTurn.p95)} | ${ms(r.commitTurn.p50)} / ${ms(r.commitTurn.p95)} | ${ms(r.rebuild.p50)} |`,
      );
    }
    out.push("");
    const worst = Math.max(...speed.sizes.map((r) => r.ratio.turn));
    const idx = Math.max(...speed.sizes.map((r) => r.indexAppendPerTurn.p50));
    const gz = speed.wasm.gzip / 1024;
    out.push("| target | measured | met |");
    out.push("|---|---|---|");
    out.push(`| \`assemble\` ≤ 1.5× the floor at every size | worst ${worst.toFixed(1)}× | ${worst <= 1.5 ? "yes" : "**no**"} |`);
    out.push(`| incremental index update < 1 ms per turn | worst p50 ${ms(idx)} ms | ${idx < 1 ? "yes" : "**no**"} |`);
    out.push(`| wasm ≤ 200 KiB gzipped | ${kib(speed.wasm.raw)} raw, **${kib(speed.wasm.gzip)}** gzip -9 | ${gz <= 200 ? "yes" : "**no**"} |`);
    out.push("");
    out.push(
      `Peak resident memory of the whole benchmark process: ${speed.peakRssMiB.toFixed(0)} MiB; linear memory of the wasm instance at the end: ${speed.wasmMemoryMiB.toFixed(1)} MiB. *native core* is the same core compiled for the host (\`crate/examples/speed.rs\`, release), without the boundary: \`Session::assemble\` of the whole history (first), and per turn the index update plus the delta request of a live session; the wasm module is built for size (\`opt-level = "z"\`, \`wasm-opt -Oz\` and the passes in \`scripts/build.sh\`). Causes and what was changed: [bench/speed/README.md](../bench/speed/README.md).`,
    );
    out.push("");
  }
  if (soak?.samples?.length) {
    const last = soak.samples.at(-1);
    const turns = soak.summary?.turns ?? soak.turns; // a finished run says it in its summary
    out.push(`### Long session (soak)`);
    out.push("");
    out.push(
      `From \`node --expose-gc bench/soak/soak.mjs\` (the last run on this machine: ${soak.partial ? `stopped after turn ${last.turn} of ${turns}` : `${turns} turns`}; see [bench/soak/README.md](../bench/soak/README.md)). Means per window of turns, memory after a GC:`,
    );
    out.push("");
    out.push("| turn | messages | ms per turn | assemble | commitTurn | maintain | heapUsed MiB | rss MiB | wasm MiB |");
    out.push("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const x of soak.samples)
      out.push(
        `| ${x.turn} | ${x.messages} | ${ms(x.msPerTurn)} | ${ms(x.ms_assemble)} | ${ms(x.ms_commitTurn)} | ${ms(x.ms_maintain)} | ${x.heapUsedMiB} | ${x.rssMiB} | ${x.wasmMiB} |`,
      );
    out.push("");
  }
  return out.join("\n");
}

/** §6, last part: the release tarball (bench/size/package.mjs). */
export function packageSection(pack) {
  return [
    "### Release package",
    "",
    `\`bash scripts/pack.sh\` packs the built package into \`dist/${pack.filename}\`; measured with \`npm pack --dry-run\` when this page is generated. ${pack.files} files, **${kib(pack.packed)} packed**, ${kib(pack.unpacked)} unpacked; of that the wasm core ${kib(pack.wasm)} and the built playground ${kib(pack.playground)} (a byte-identical copy of the wasm, its page, the shared JS and the two samples). The tests of tests/package install this tarball.`,
    "",
  ].join("\n");
}

export function writeReport(results, { manifest, docsDir, tokensMarkdown, speed = null, soak = null, pack = null }) {
  mkdirSync(docsDir, { recursive: true });
  const parts = [];
  parts.push("# Benchmarks");
  parts.push("");
  parts.push(
    `Generated by \`node bench/run.mjs\` (see [bench/README.md](../bench/README.md) for the methods and definitions); do not edit by hand. ` +
      `Engine ${results.meta.engine} (source \`${results.meta.source ?? "?"}\`, wasm sha256 \`${results.meta.wasm ?? "?"}\`); data \`${results.meta.dataDir}\`; exact tokens ${results.meta.tokenizer}.`,
  );
  parts.push("");
  parts.push(
    "Methods: **pass-through** (the history as is), **recency** (the newest messages whose engine estimate fits B, never starting with an orphaned tool result), **clean** (mode `clean`: the cleaner alone, no budget), **fold** (mode `fold`, the engine's defaults), **fold, foldOtherTopics on/off** (the other value than the default), **fold, tool results kept** (`dropToolResults: false`), **fold, all turns summarized** (defaults, with every turn's extractive summary in the cache). Engine budgets are enforced with the engine's own estimate; savings and the *exact > B* shares use o200k.",
  );
  parts.push("");
  if (results.meta.defaults) parts.push(`Engine defaults: \`${JSON.stringify(results.meta.defaults)}\`.`);
  parts.push("");
  if (results.errors.length) {
    parts.push(
      `**${results.errors.length} task(s) failed** (engine errors): ${results.errors
        .slice(0, 5)
        .map((e) => `${e.task.kind} ${e.task.session ?? e.task.name} ${e.task.method ?? ""} ${e.task.budget ?? ""}: ${e.error}`)
        .join("; ")}`,
    );
    parts.push("");
  }
  parts.push(summarySection(results));
  parts.push(locomoSection(results, manifest));
  parts.push(taubenchSection(results));
  parts.push(invariantsSection(results));
  parts.push(cacheSection(results));
  if (tokensMarkdown) {
    parts.push("## 5. Token estimate accuracy");
    parts.push("");
    parts.push("From `node bench/tokens/run.mjs` (see [bench/tokens/README.md](../bench/tokens/README.md)), run by the same command:");
    parts.push("");
    parts.push(
      tokensMarkdown
        .replace(/^# .*\n+/, "")
        .replace(/^(#+) /gm, "#$1 ")
        .trim(),
    );
    parts.push("");
  }
  if (speed || soak) parts.push(speedSection(speed, soak));
  if (pack) parts.push(packageSection(pack));
  parts.push("## Reproduce");
  parts.push("");
  parts.push(
    "```bash\nbash scripts/setup.sh && bash scripts/build.sh   # the wasm core\nbash bench/setup.sh                              # exact tokenizer\nnode bench/run.mjs                               # this page, raw results in bench/out/\nnode bench/run.mjs --fast                        # the CI subset with assertions\n```",
  );
  parts.push("");
  writeFileSync(join(docsDir, "benchmarks.md"), parts.join("\n").replace(/\n{3,}/g, "\n\n"));
  writeFileSync(join(docsDir, "benchmarks-savings-recall.svg"), svgPlot(results));
}

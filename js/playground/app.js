// The playground page: input, settings, and the three views (assembled context, turn
// timeline, totals). Everything runs here; the input never leaves the page.
import { readSession, recover } from "./engine.js";
import { createRunner } from "./runner.js";
import { applySteps } from "../core/core.js";
import { h, renderMessage, partsOf, roleOf } from "./view.js";
import { encodeUtf8 } from "./entries.js";
import { describeMessage } from "../core/describe.js";
import { JS_KEYS } from "../core/config.js";

const ROOT = new URL("../../", import.meta.url);
const SAMPLES = ["session.jsonl", "multitopic.jsonl"];
const PROMPT_HINTS = {
  "session.jsonl": "e.g. Did the rounding fix in ledger.rs touch the tests?",
  "multitopic.jsonl": "e.g. Back to the sourdough: how long should the levain rest before I mix the dough?",
};

// Which settings go in which panel; any other core key of the manifest goes to "more".
const GROUPS = {
  mode: ["mode", "foldOtherTopics", "preserveRecentMessages"],
  fold: ["summarizeThreshold", "embeddingSimilarityThreshold", "promptRelevanceThreshold", "toolResultTruncateChars", "minTurnsPerTopic"],
  clean: ["cleanThinking", "clearReasoningContent", "dropToolResults", "dropToolCallMessages", "keepRecentTurns"],
};
const NOT_CORE = new Set([...JS_KEYS, "stateDir"]);

const DECISIONS = ["kept", "cleaned", "truncated", "summarized", "stubbed"];
const DECISION_HELP = {
  kept: "sent as it was",
  cleaned: "completed-turn cleaning: thinking and finished tool output removed",
  truncated: "a huge tool result cut to head and tail",
  summarized: "replaced by its summary",
  stubbed: "folded to a one-line stub",
};

const $ = (id) => document.getElementById(id);

const state = {
  runner: null,
  running: false,
  dirty: false,
  inputGen: 0,
  schema: {},
  hints: {},
  defaults: {},
  config: {},
  budget: null,
  prompt: "",
  format: "auto",
  input: null, // {bytes, name}
  session: null,
  readError: null,
  result: null,
  runError: null,
  invalid: new Map(), // key → message, for settings the page refused
  expanded: new Set(),
  samples: new Map(),
  sampleName: null,
};
const controls = {};

// ---------------------------------------------------------------- settings

function coreKeys() {
  return Object.keys(state.schema).filter((k) => !NOT_CORE.has(k));
}

/** The settings that differ from the manifest's defaults (what a --config file would hold). */
function configDiff() {
  const out = {};
  for (const k of coreKeys()) {
    if (state.config[k] !== undefined && state.config[k] !== state.defaults[k]) out[k] = state.config[k];
  }
  return out;
}

function validate(key, v) {
  const s = state.schema[key];
  if (s.type === "integer" && !Number.isInteger(v)) return "must be a whole number";
  if ((s.type === "number" || s.type === "integer") && !Number.isFinite(v)) return "must be a number";
  if (s.minimum !== undefined && v < s.minimum) return `must be at least ${s.minimum}`;
  if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return `must be more than ${s.exclusiveMinimum}`;
  if (s.maximum !== undefined && v > s.maximum) return `must be at most ${s.maximum}`;
  return null;
}

function setSetting(key, value, source) {
  if (typeof value === "number") {
    const why = validate(key, value);
    const ctl = controls[key];
    if (why) {
      state.invalid.set(key, `${state.hints[key]?.label ?? key} ${why}`);
      ctl?.markInvalid(true);
      renderStatus();
      return;
    }
    ctl?.markInvalid(false);
  }
  state.invalid.delete(key);
  state.config[key] = value;
  controls[key]?.set(value, source);
  schedule();
}

function buildControls() {
  const placed = new Set();
  const groupOf = (k) => Object.keys(GROUPS).find((g) => GROUPS[g].includes(k)) ?? "more";
  const order = [...GROUPS.mode, ...GROUPS.fold, ...GROUPS.clean, ...coreKeys()];
  for (const key of order) {
    if (placed.has(key) || !state.schema[key] || NOT_CORE.has(key)) continue;
    placed.add(key);
    $(`group-${groupOf(key)}`).append(buildControl(key));
  }
}

function buildControl(key) {
  const s = state.schema[key];
  const hint = state.hints[key] ?? {};
  const label = hint.label ?? key;
  const id = `cfg-${key}`;
  const helpId = `${id}-help`;
  const help = h("p", { class: "help", id: helpId }, hint.help ?? s.description ?? "", h("code", { class: "key" }, key));
  if (s.enum) {
    const radios = s.enum.map((v) =>
      h("label", { class: "radio" }, h("input", { type: "radio", name: id, value: v, id: `${id}-${v}`, onchange: () => setSetting(key, v, "ui") }), v),
    );
    controls[key] = {
      set: (v) => radios.forEach((r) => (r.firstChild.checked = r.firstChild.value === v)),
      markInvalid() {},
    };
    return h("fieldset", { class: "field", "aria-describedby": helpId }, h("legend", {}, label), h("div", { class: "radios" }, radios), help);
  }
  if (s.type === "boolean") {
    const input = h("input", { type: "checkbox", id, "aria-describedby": helpId, onchange: () => setSetting(key, input.checked, "ui") });
    controls[key] = { set: (v) => (input.checked = Boolean(v)), markInvalid() {} };
    return h("div", { class: "field check" }, h("label", { for: id }, input, label), help);
  }
  if (s.type === "number" || s.type === "integer") {
    const unit = s.type === "number" && (s.maximum ?? 1) <= 1;
    const step = s.type === "integer" ? 1 : 0.01;
    const num = h("input", {
      type: "number",
      id,
      step,
      min: s.minimum ?? s.exclusiveMinimum,
      max: s.maximum,
      inputmode: s.type === "integer" ? "numeric" : "decimal",
      "aria-describedby": helpId,
      oninput: () => setSetting(key, num.value.trim() === "" ? NaN : Number(num.value), "num"),
    });
    let range;
    if (unit) {
      range = h("input", {
        type: "range",
        min: 0,
        max: 1,
        step: 0.01,
        "aria-label": `${label} slider`,
        oninput: () => setSetting(key, Number(range.value), "range"),
      });
    }
    controls[key] = {
      set(v, source) {
        if (source !== "num") num.value = String(v);
        if (range && source !== "range") range.value = String(v);
      },
      markInvalid(bad) {
        if (bad) num.setAttribute("aria-invalid", "true");
        else num.removeAttribute("aria-invalid");
      },
    };
    return h("div", { class: `field num${unit ? " unit" : ""}` }, h("label", { for: id }, label), h("div", { class: "num-row" }, range, num), help);
  }
  // Strings and anything else: a text field.
  const input = h("input", { type: "text", id, "aria-describedby": helpId, oninput: () => setSetting(key, input.value, "ui") });
  controls[key] = { set: (v) => (input.value = v ?? ""), markInvalid() {} };
  return h("div", { class: "field" }, h("label", { for: id }, label), input, help);
}

function syncControls() {
  for (const k of coreKeys()) controls[k]?.set(state.config[k]);
  for (const k of coreKeys()) controls[k]?.markInvalid(false);
  state.invalid.clear();
  $("budget").value = state.budget == null ? "" : String(state.budget);
  $("prompt").value = state.prompt;
  $("format").value = state.format;
  syncBudgetRange();
}

// The budget slider is logarithmic: from 100 tokens to a bit over the input's size, in
// 1000 steps, snapped to two significant digits.
const SLIDER_STEPS = 1000;
function budgetScale() {
  const before = state.result?.stats.clean.tokensBefore ?? 10000;
  const lo = Math.log(100);
  const hi = Math.log(niceCeil(Math.max(1000, before * 1.1)));
  return { lo, hi };
}
function sliderToBudget(v) {
  const { lo, hi } = budgetScale();
  const raw = Math.exp(lo + ((hi - lo) * v) / SLIDER_STEPS);
  const p = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 1);
  return Math.round(raw / p) * p;
}
function budgetToSlider(b) {
  const { lo, hi } = budgetScale();
  const v = ((Math.log(Math.max(1, b)) - lo) / (hi - lo)) * SLIDER_STEPS;
  return Math.round(Math.min(SLIDER_STEPS, Math.max(0, v)));
}

function syncBudgetRange() {
  const range = $("budget-range");
  range.max = String(SLIDER_STEPS);
  range.step = "1";
  const eff = state.budget ?? state.config.maxTokens ?? 128000;
  range.value = String(budgetToSlider(eff));
  range.setAttribute("aria-valuetext", `${fmt(eff)} tokens`);
}

function niceCeil(n) {
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

// ---------------------------------------------------------------- running

let pending = 0;
/** Re-runs on the next frame (many input events in one frame make one run). */
function schedule() {
  if (pending) return;
  pending = requestAnimationFrame(() => {
    pending = 0;
    rerun();
  });
}

const idleWaiters = [];
/** Resolves once no run is scheduled, running or due. */
function whenIdle() {
  if (!pending && !state.running && !state.dirty) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push(resolve));
}
function notifyIdle() {
  if (pending || state.running || state.dirty) return;
  for (const r of idleWaiters.splice(0)) r();
}

function settings() {
  return { prompt: state.prompt, budget: state.budget, config: configDiff() };
}

/**
 * Runs the engine with the current settings. One run at a time: a change made meanwhile
 * marks the state dirty and runs once more when the current run is back.
 */
function rerun() {
  if (pending) {
    cancelAnimationFrame(pending);
    pending = 0;
  }
  if (!state.runner) return;
  if (!state.session) {
    state.result = null;
    render();
    notifyIdle();
    return;
  }
  if (state.running) {
    state.dirty = true;
    return;
  }
  state.running = true;
  state.dirty = false;
  const gen = state.inputGen;
  const session = state.session;
  const busy = setTimeout(() => setBusy(true), 150);
  state.runner
    .run(settings())
    .then(
      (r) => {
        if (gen !== state.inputGen) return;
        state.result = { ...r, messages: applySteps(session.messages, r.steps) };
        state.runError = null;
      },
      (err) => {
        if (gen !== state.inputGen) return;
        state.runError = String(err?.message ?? err);
      },
    )
    .finally(() => {
      clearTimeout(busy);
      state.running = false;
      if (gen === state.inputGen) render();
      if (state.dirty || gen !== state.inputGen) {
        state.dirty = false;
        rerun();
        return;
      }
      setBusy(false);
      notifyIdle();
    });
}

function setBusy(on) {
  $("busy").hidden = !on;
  $("context").setAttribute("aria-busy", String(on));
}

/** Reads the input on the page (for the views) and hands it to the engine. */
function readInput() {
  if (!state.input) return;
  state.inputGen++;
  state.result = null;
  try {
    state.session = readSession(state.input.bytes, { name: state.input.name, format: state.format });
    state.readError = null;
  } catch (err) {
    state.session = null;
    state.readError = String(err?.message ?? err);
    return;
  }
  state.runner.setInput(state.input.bytes, state.input.name, state.format).catch((err) => {
    state.runError = String(err?.message ?? err);
  });
}

function loadBytes(bytes, name, { sample = null } = {}) {
  state.input = { bytes, name };
  state.sampleName = sample;
  state.expanded.clear();
  $("prompt").placeholder = PROMPT_HINTS[sample] ?? "Optional. A topic it refers to is brought back.";
  for (const b of document.querySelectorAll(".sample")) b.setAttribute("aria-pressed", String(b.dataset.sample === sample));
  readInput();
  rerun();
}

async function loadFile(file) {
  if (!file) return;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    loadBytes(bytes, file.name);
  } catch (err) {
    state.readError = `cannot read ${file.name}: ${err?.message ?? err}`;
    render();
  }
}

function loadSample(name) {
  const bytes = state.samples.get(name);
  if (bytes) loadBytes(bytes, name, { sample: name });
}

// ---------------------------------------------------------------- rendering

function render() {
  hueMap = new Map();
  for (const t of state.result?.turns ?? []) hueOf(t.topic);
  renderSource();
  renderStatus();
  renderTotals();
  renderContext();
  renderTimeline();
  renderRepro();
  syncBudgetRange();
}

function renderSource() {
  const s = state.session;
  const el = $("source");
  if (!state.runner) return;
  if (!s) {
    el.replaceChildren(state.input ? h("span", {}, state.input.name) : "No session loaded");
    return;
  }
  el.replaceChildren(
    ...[
      h("span", { class: "src-name", title: s.name }, s.name),
      h("span", { class: "src-meta" }, `${s.format} · ${s.messages.length} messages · session ${s.session}`),
      s.warnings.length
        ? h("span", { class: "src-warn", title: s.warnings.join("\n") }, `${s.warnings.length} warning${s.warnings.length > 1 ? "s" : ""}`)
        : null,
    ].filter(Boolean),
  );
}

function renderStatus() {
  const el = $("status");
  const msgs = [];
  if (state.readError) msgs.push(["error", `Cannot read the input: ${state.readError}`]);
  if (state.runError) msgs.push(["error", `The engine refused these settings: ${state.runError}`]);
  for (const why of state.invalid.values()) msgs.push(["error", `${why}; the last valid value is used.`]);
  if (state.result?.fallback) msgs.push(["warn", `The engine fell back: ${state.result.fallback}`]);
  if (state.session?.warnings.length) for (const w of state.session.warnings) msgs.push(["warn", w]);
  el.hidden = msgs.length === 0;
  el.replaceChildren(...msgs.map(([k, t]) => h("p", { class: `status-${k}` }, t)));
}

const fmt = (n) => Number(n).toLocaleString("en");
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 2 });
/** Exact below 100,000, compact above (1.31M): for the cards. */
const short = (n) => (Math.abs(n) < 100000 ? fmt(n) : compact.format(n));

function renderTotals() {
  const r = state.result;
  const el = $("totals");
  if (!r) {
    el.replaceChildren();
    return;
  }
  const st = r.stats;
  const before = st.clean.tokensBefore;
  const after = r.estimatedTokens;
  const saved = before - after;
  const pct = before ? Math.round((100 * saved) / before) : 0;
  const usage = st.budget ? Math.min(1, after / st.budget) : 0;
  const gauge = h(
    "span",
    { class: `gauge${st.overBudget ? " over" : ""}`, role: "img", "aria-label": `${Math.round(usage * 100)} % of the budget` },
    h("span", { class: "gauge-fill" }),
  );
  gauge.firstChild.style.setProperty("--fill", `${(usage * 100).toFixed(1)}%`);
  const counts = DECISIONS.filter((d) => st[d] > 0).map((d) => h("span", { class: `chip decision-${d}`, title: DECISION_HELP[d] }, `${st[d]} ${d}`));
  const copy = h("button", { type: "button", class: "small", onclick: () => copyText(r.logLine, copy) }, "copy");
  el.replaceChildren(
    h(
      "div",
      { class: "cards" },
      h(
        "div",
        { class: "card" },
        h("span", { class: "card-label" }, "Messages"),
        h(
          "span",
          { class: "card-value", id: "total-messages", title: `${fmt(st.clean.messagesBefore)} → ${fmt(r.messages.length)}` },
          `${short(st.clean.messagesBefore)} → ${short(r.messages.length)}`,
        ),
      ),
      h(
        "div",
        { class: "card" },
        h("span", { class: "card-label" }, "Tokens (estimated)"),
        h("span", { class: "card-value", id: "total-tokens", title: `${fmt(before)} → ${fmt(after)}` }, `${short(before)} → ${short(after)}`),
      ),
      h(
        "div",
        { class: "card save" },
        h("span", { class: "card-label" }, "Saved"),
        h(
          "span",
          { class: "card-value", id: "total-saved" },
          `${pct} %`,
          h("span", { class: "card-sub", title: `${fmt(saved)} tokens` }, ` ${short(saved)} tok`),
        ),
      ),
      h(
        "div",
        { class: "card" },
        h("span", { class: "card-label" }, "Budget"),
        h(
          "span",
          { class: "card-value", id: "total-budget", title: fmt(st.budget) },
          short(st.budget),
          st.overBudget ? h("span", { class: "over-label", title: "the protected turns alone exceed the budget" }, " over") : null,
        ),
        gauge,
      ),
    ),
    h("div", { class: "totals-row" }, h("span", { class: "turn-counts" }, st.turns ? `${st.turns} turns:` : "clean mode: no folding", counts)),
    h("div", { class: "logline" }, h("code", { id: "logline" }, r.logLine), copy),
  );
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "copied";
  } catch {
    button.textContent = "select it";
  }
  setTimeout(() => (button.textContent = "copy"), 1500);
}

/** Per input message position: the index of the turn it belongs to (or -1). */
function turnIndexByMessage(s, turns) {
  const at = new Array(s.messages.length).fill(-1);
  turns.forEach((t, k) => {
    for (let i = t.range[0]; i < t.range[1] && i < at.length; i++) at[i] = k;
  });
  return at;
}

/** Sorted JSON, for comparing a message with its input. */
function canon(v) {
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** What cleaning changed in a message, in a few words (null when only the shape changed). */
function changeSummary(orig, m) {
  const norm = (x) => (typeof x?.content === "string" && Array.isArray(m.content) ? { ...x, content: [{ type: "text", text: x.content }] } : x);
  if (canon(norm(orig)) === canon(m)) return null;
  const count = (x) => {
    const c = {};
    for (const p of partsOf(x)) c[p.type] = (c[p.type] ?? 0) + 1;
    return c;
  };
  const a = count(orig);
  const b = count(m);
  const names = { thinking: "thinking", reasoning: "reasoning_content", toolCall: "call", text: "text", toolResult: "result", image: "image", data: "part" };
  const out = [];
  for (const k of Object.keys(names)) {
    const d = (b[k] ?? 0) - (a[k] ?? 0);
    if (d < 0) out.push(`−${-d} ${names[k]}`);
  }
  return out.length ? out.join(", ") : "edited";
}

function renderContext() {
  const el = $("context");
  const r = state.result;
  const s = state.session;
  if (!r || !s) {
    el.replaceChildren(
      h(
        "div",
        { class: "empty" },
        state.runner
          ? h("p", {}, "Choose a built-in sample or drop a session file. ", h("kbd", {}, "Tab"), " moves through the settings; every change re-runs at once.")
          : h("p", {}, "Loading the engine…"),
      ),
    );
    return;
  }
  const turns = r.turns;
  const at = turnIndexByMessage(s, turns);
  const sources = new Set(r.steps.map((x) => x.source).filter((x) => x !== undefined));
  const removed = [];
  for (let i = 0; i < s.messages.length; i++) if (!sources.has(i)) removed.push(i);
  const showRemoved = $("show-removed").checked;
  let rp = 0;
  const nodes = [];
  const flushRemoved = (upTo) => {
    const run = [];
    while (rp < removed.length && removed[rp] < upTo) run.push(removed[rp++]);
    if (!run.length || !showRemoved) return;
    // Consecutive input positions form one group.
    let g = [run[0]];
    const groups = [];
    for (const i of run.slice(1)) {
      if (i === g.at(-1) + 1) g.push(i);
      else {
        groups.push(g);
        g = [i];
      }
    }
    groups.push(g);
    for (const grp of groups) {
      const range = grp.length > 1 ? `input #${grp[0]}–#${grp.at(-1)}` : `input #${grp[0]}`;
      nodes.push(
        h(
          "details",
          { class: "removed" },
          h("summary", {}, `${grp.length} message${grp.length > 1 ? "s" : ""} not sent (${range})`),
          h(
            "ul",
            {},
            grp.map((i) => h("li", {}, h("code", {}, `#${i} ${describeMessage(s.messages[i])}`))),
          ),
        ),
      );
    }
  };
  let runStart = -1;
  r.steps.forEach((step, i) => {
    const m = r.messages[i];
    const src = step.source;
    if (src !== undefined) flushRemoved(src);
    const k = src !== undefined ? at[src] : -1;
    const t = k >= 0 ? turns[k] : null;
    const edited = step.message !== undefined;
    const badges = [];
    const meta = [];
    let cls = "";
    if (t) {
      const stub = t.decision === "stubbed" && edited;
      if (stub) {
        badges.push({ text: "stub", kind: "stub", title: "other turns folded to one line; click the turn to see them" });
        cls = "is-stub";
        if (roleOf(m) === "user" || runStart < 0) runStart = k;
      } else if (t.decision === "summarized" && edited) {
        badges.push({ text: "summary", kind: "summary", title: "the turn's summary in place of its messages" });
        cls = "is-summary";
      } else if (t.decision === "truncated" && edited && /tool/.test(roleOf(m)) && changeSummary(s.messages[src], m)) {
        badges.push({ text: "truncated", kind: "truncated", title: `cut to head and tail (toolResultTruncateChars ${state.config.toolResultTruncateChars})` });
        cls = "is-truncated";
      } else if (edited) {
        const what = changeSummary(s.messages[src], m);
        if (what) badges.push({ text: `cleaned: ${what}`, kind: "cleaned", title: "changed by completed-turn cleaning" });
      }
      meta.push(turnLink(t, k));
      if (t.protected) meta.push(h("span", { class: "meta-note", title: "one of the protected recent turns" }, "protected"));
    } else if (src !== undefined) {
      meta.push(h("span", { class: "meta-note" }, "preamble"));
      if (edited) {
        const what = changeSummary(s.messages[src], m);
        if (what) badges.push({ text: `cleaned: ${what}`, kind: "cleaned" });
      }
    }
    meta.push(h("span", { class: "meta-src", title: "position in the input" }, src === undefined ? "new" : `input #${src}`));
    let footer = null;
    const next = r.steps[i + 1];
    const nextStub =
      next?.source !== undefined &&
      at[next.source] >= 0 &&
      turns[at[next.source]].decision === "stubbed" &&
      next.message !== undefined &&
      roleOf(r.messages[i + 1]) !== "user";
    if (cls === "is-stub" && !nextStub) {
      const run = turns.slice(runStart, k + 1).map((tt, j) => ({ t: tt, k: runStart + j }));
      const shown = run.length > 8 ? [...run.slice(0, 5), null, ...run.slice(-2)] : run;
      footer = h(
        "footer",
        { class: "stub-turns" },
        `Folded here (${run.length} turn${run.length > 1 ? "s" : ""}): `,
        shown.map((x) => (x ? turnLink(x.t, x.k, "unfold") : h("span", {}, `… ${run.length - 7} more in the timeline …`))),
      );
      runStart = -1;
    }
    const art = renderMessage(m, { index: i, badges, meta, cls, footer });
    if (t) art.dataset.turn = t.id;
    if (t) art.style.setProperty("--hue", hueOf(t.topic));
    nodes.push(art);
  });
  flushRemoved(Infinity);
  el.replaceChildren(...nodes);
}

function turnLink(t, k, verb) {
  return h(
    "button",
    { type: "button", class: "turn-link", title: `show turn ${t.id} in the timeline`, onclick: () => openTurn(t.id, true) },
    verb ? `${verb} ${t.id}` : `turn ${t.id}`,
  );
}

// Topic colours: hues in order of first appearance, spread by the golden angle.
let hueMap = new Map();
function hueOf(topic) {
  if (!topic) return 220;
  if (!hueMap.has(topic)) hueMap.set(topic, Math.round((210 + hueMap.size * 137.508) % 360));
  return hueMap.get(topic);
}

function renderTimeline() {
  const list = $("turns");
  const legend = $("legend");
  const r = state.result;
  const s = state.session;
  const focusedId = document.activeElement?.closest?.(".turn")?.dataset.turn;
  if (!r || !s) {
    list.replaceChildren();
    legend.replaceChildren();
    return;
  }
  if (!r.turns.length) {
    legend.replaceChildren();
    list.replaceChildren(
      h(
        "li",
        { class: "empty" },
        r.stats.turns
          ? `Mode "clean" cleans completed turns without folding, so there is no per-turn plan (${r.stats.turns} turns).`
          : "No turns in this input.",
      ),
    );
    return;
  }
  const topics = new Map();
  for (const t of r.turns) topics.set(t.topic, (topics.get(t.topic) ?? 0) + 1);
  legend.replaceChildren(
    ...[...topics].map(([label, n]) => {
      const li = h(
        "li",
        { class: "legend-item" },
        h("span", { class: "swatch", "aria-hidden": "true" }),
        label || "(no topic)",
        h("span", { class: "legend-n" }, ` ${n}`),
      );
      li.style.setProperty("--hue", hueOf(label));
      return li;
    }),
  );
  const maxTok = Math.max(1, ...r.turns.map((t) => t.tokensBefore));
  list.replaceChildren(
    ...r.turns.map((t, k) => {
      const open = state.expanded.has(t.id);
      const detailId = `turn-detail-${k}`;
      const bar = h("span", { class: "bar", "aria-hidden": "true" }, h("span", { class: "bar-before" }, h("span", { class: "bar-after" })));
      bar.firstChild.style.setProperty("--w", `${((100 * t.tokensBefore) / maxTok).toFixed(1)}%`);
      bar.firstChild.firstChild.style.setProperty("--w", `${t.tokensBefore ? ((100 * t.tokensAfter) / t.tokensBefore).toFixed(1) : 0}%`);
      const btn = h(
        "button",
        {
          type: "button",
          class: "turn-btn",
          title: t.topic ? `topic: ${t.topic}` : undefined,
          "aria-expanded": String(open),
          "aria-controls": detailId,
          onclick: () => toggleTurn(t.id),
        },
        h(
          "span",
          { class: "turn-line" },
          h("span", { class: "turn-id" }, t.id),
          h("span", { class: `chip decision-${t.decision}`, title: DECISION_HELP[t.decision] }, t.decision),
          t.protected ? h("span", { class: "lock", title: "protected recent turn" }, "protected") : null,
          h("span", { class: "turn-tok" }, `${fmt(t.tokensBefore)} → ${fmt(t.tokensAfter)}`),
        ),
        h("span", { class: "turn-ask" }, askOf(s, t)),
        h("span", { class: "turn-reason" }, t.reason),
        bar,
      );
      const li = h("li", { class: `turn decision-${t.decision}${open ? " open" : ""}`, dataset: { turn: t.id } }, btn);
      li.style.setProperty("--hue", hueOf(t.topic));
      const detail = h("div", { class: "turn-detail", id: detailId, role: "region", "aria-label": `Original messages of turn ${t.id}`, hidden: !open });
      if (open) fillDetail(detail, t);
      li.append(detail);
      return li;
    }),
  );
  if (focusedId) list.querySelector(`.turn[data-turn="${CSS.escape(focusedId)}"] .turn-btn`)?.focus({ preventScroll: true });
}

function askOf(s, t) {
  const m = s.messages[t.range[0]];
  const text = partsOf(m)
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 90 ? `${text.slice(0, 89)}…` : text || describeMessage(m);
}

function fillDetail(detail, t) {
  const s = state.session;
  const rec = recover(s, t);
  const showInContext = h("button", { type: "button", class: "small", onclick: () => showTurnInContext(t.id) }, "show in context");
  const parts = [
    h(
      "div",
      { class: "detail-head" },
      h(
        "span",
        {},
        `Original: ${rec.messages.length} message${rec.messages.length === 1 ? "" : "s"} (input #${rec.first}–#${rec.last}), ~${fmt(t.tokensBefore)} tokens`,
      ),
      showInContext,
    ),
    h(
      "div",
      { class: "original" },
      rec.messages.map((m, j) => renderMessage(m, { index: rec.first + j, cls: "msg-original" })),
    ),
    rec.lines
      ? h(
          "details",
          { class: "raw" },
          h("summary", {}, `Transcript lines (${rec.lines.length}), as `, h("code", {}, `contextfold recover ${s.name} ${t.id}`), " prints them"),
          h("pre", { class: "raw-lines", tabindex: "0" }, rec.lines.filter((l) => l !== null).join("\n")),
        )
      : null,
  ];
  detail.replaceChildren(...parts.filter(Boolean));
}

function toggleTurn(id) {
  if (state.expanded.has(id)) state.expanded.delete(id);
  else state.expanded.add(id);
  renderTimeline();
}

function openTurn(id, focus) {
  state.expanded.add(id);
  renderTimeline();
  const li = $("turns").querySelector(`.turn[data-turn="${CSS.escape(id)}"]`);
  if (li) {
    li.scrollIntoView({ block: "nearest", behavior: "smooth" });
    if (focus) li.querySelector(".turn-btn").focus({ preventScroll: true });
  }
}

function showTurnInContext(id) {
  const arts = [...$("context").querySelectorAll(`.msg[data-turn="${CSS.escape(id)}"]`)];
  if (!arts.length) return;
  arts[0].scrollIntoView({ block: "center", behavior: "smooth" });
  for (const a of arts) {
    a.classList.remove("flash");
    void a.offsetWidth;
    a.classList.add("flash");
  }
}

function shellQuote(s) {
  return /^[\w./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function renderRepro() {
  const el = $("repro-cmd");
  const name = state.input?.name ?? "session.jsonl";
  const diff = configDiff();
  const parts = ["contextfold assemble", shellQuote(name), "--json"];
  if (state.format !== "auto") parts.push("--format", state.format);
  if (state.budget) parts.push("--budget", String(state.budget));
  if (state.prompt) parts.push("--prompt", shellQuote(state.prompt));
  const hasCfg = Object.keys(diff).length > 0;
  if (hasCfg) parts.push("--config config.json");
  el.textContent = parts.join(" ") + (hasCfg ? `\n\n# config.json\n${JSON.stringify(diff, null, 2)}` : "");
}

// ---------------------------------------------------------------- wiring

function wire() {
  $("file").addEventListener("change", (e) => {
    loadFile(e.target.files?.[0]);
    e.target.value = "";
  });
  for (const b of document.querySelectorAll(".sample")) b.addEventListener("click", () => loadSample(b.dataset.sample));
  $("format").addEventListener("change", (e) => {
    state.format = e.target.value;
    readInput();
    rerun();
  });
  $("paste-use").addEventListener("click", () => {
    const text = $("paste-text").value;
    if (text.trim()) loadBytes(encodeUtf8(text), "pasted.json");
  });
  $("prompt").addEventListener("input", (e) => {
    state.prompt = e.target.value;
    schedule();
  });
  $("budget").addEventListener("input", (e) => {
    const v = e.target.value.trim();
    if (v === "") {
      state.budget = null;
      e.target.removeAttribute("aria-invalid");
      state.invalid.delete("budget");
    } else if (/^\d+$/.test(v)) {
      state.budget = Number(v);
      e.target.removeAttribute("aria-invalid");
      state.invalid.delete("budget");
    } else {
      e.target.setAttribute("aria-invalid", "true");
      state.invalid.set("budget", "The token budget must be a whole number of tokens");
      renderStatus();
      return;
    }
    schedule();
  });
  $("budget-range").addEventListener("input", (e) => {
    state.budget = sliderToBudget(Number(e.target.value));
    $("budget").value = String(state.budget);
    e.target.setAttribute("aria-valuetext", `${fmt(state.budget)} tokens`);
    state.invalid.delete("budget");
    $("budget").removeAttribute("aria-invalid");
    schedule();
  });
  $("budget-clear").addEventListener("click", () => {
    state.budget = null;
    $("budget").value = "";
    rerun();
  });
  $("reset").addEventListener("click", () => {
    state.config = { ...state.defaults };
    state.budget = null;
    state.prompt = "";
    syncControls();
    rerun();
  });
  $("show-removed").addEventListener("change", () => renderContext());

  // Dropping a file anywhere on the page.
  const overlay = $("drop-overlay");
  let depth = 0;
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  window.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  window.addEventListener("dragover", (e) => {
    if (hasFiles(e)) e.preventDefault();
  });
  window.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  window.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    loadFile(e.dataTransfer.files?.[0]);
  });
}

async function fetchBytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function boot() {
  wire();
  // Everything the page needs is fetched now, so it keeps working offline.
  const [manifest, runner, ...samples] = await Promise.all([
    fetchBytes(new URL("openclaw.plugin.json", ROOT)).then((b) => JSON.parse(new TextDecoder().decode(b))),
    createRunner(new URL("wasm/", ROOT)),
    ...SAMPLES.map((n) => fetchBytes(new URL(`samples/${n}`, ROOT)).catch(() => null)),
  ]);
  SAMPLES.forEach((n, i) => samples[i] && state.samples.set(n, samples[i]));
  for (const b of document.querySelectorAll(".sample")) b.disabled = !state.samples.has(b.dataset.sample);
  state.runner = runner;
  state.schema = manifest.configSchema?.properties ?? {};
  state.hints = manifest.uiHints ?? {};
  for (const k of coreKeys()) if (state.schema[k].default !== undefined) state.defaults[k] = state.schema[k].default;
  state.config = { ...state.defaults };
  buildControls();
  $("budget").placeholder = `maxTokens (${fmt(state.defaults.maxTokens ?? 128000)})`;
  syncControls();
  document.documentElement.dataset.engine = runner.version;
  document.documentElement.dataset.runner = runner.kind;
  loadSample(SAMPLES[0]);
  await whenIdle();
  document.documentElement.dataset.ready = "true";
}

const ready = boot().catch((err) => {
  const el = $("status");
  el.hidden = false;
  el.replaceChildren(
    h("p", { class: "status-error" }, `The engine could not start: ${err?.message ?? err}. Serve this folder over http (bash scripts/playground.sh).`),
  );
  $("source").textContent = "Engine not loaded";
  document.documentElement.dataset.ready = "error";
});

function publicResult() {
  const r = state.result;
  if (!r) return null;
  return JSON.parse(
    JSON.stringify({
      ...r,
      name: state.session?.name,
      session: state.session?.session,
      format: state.session?.format,
      warnings: state.session?.warnings ?? [],
    }),
  );
}

// The page's test hook: drive it without the UI and read what it computed. The setters
// resolve to the result once the engine has run with the new setting.
window.__contextfold = {
  ready,
  get lastResult() {
    return publicResult();
  },
  get error() {
    return state.readError ?? state.runError ?? null;
  },
  idle: () => whenIdle().then(publicResult),
  setInput(text, name = "input.jsonl", format) {
    if (format) {
      state.format = format;
      $("format").value = format;
    }
    loadBytes(encodeUtf8(String(text)), name);
    return whenIdle().then(publicResult);
  },
  setConfig(obj = {}) {
    state.config = { ...state.defaults, ...obj };
    syncControls();
    rerun();
    return whenIdle().then(publicResult);
  },
  setBudget(n) {
    state.budget = n == null || n === "" ? null : Number(n);
    $("budget").value = state.budget == null ? "" : String(state.budget);
    rerun();
    return whenIdle().then(publicResult);
  },
  setPrompt(t) {
    state.prompt = String(t ?? "");
    $("prompt").value = state.prompt;
    rerun();
    return whenIdle().then(publicResult);
  },
};

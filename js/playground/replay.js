// The replay view: the loaded session sent again turn by turn with the page's settings, the
// way OpenClaw drives the engine, measured as `contextfold replay` measures it (the engine
// worker runs js/core/replay.js). Shows the three methods' figures and two plots in plain SVG:
// tokens per request (with the budget) and the share of each request a provider's prompt
// cache serves, under the chosen price preset's rule. Owns only its own part of the page.
import { h } from "./view.js";
import { REPLAY_METHODS } from "../core/replay.js";
import { PRICE_NAMES } from "../core/pricing.js";

/** @import { Child } from "./view.js" */
/** @import { ReplayReport } from "./engine.js" */
/** @import { ReplayMethod, RequestMeasure } from "../core/replay.js" */

/**
 * One plot: `y` maps a request row to its value (at most `max`), `ticks` are the values the
 * grid marks (labelled by `label`), `marks` draws more on top given the two scales.
 * @typedef {object} PlotSpec
 * @property {string} id
 * @property {string} title
 * @property {ReplayReport} summary
 * @property {(q: RequestMeasure) => number} y
 * @property {number} max
 * @property {number[]} ticks
 * @property {(t: number) => string} label
 * @property {(scale: {px: (j: number) => number, py: (v: number) => number}) => Child[]} [marks]
 */

/**
 * The mounted view: `refresh` redraws it after the page's input or settings changed, `replay`
 * runs a replay (or joins the one under way) and resolves to its summary (null without an
 * input), `summary` is the one shown.
 * @typedef {ReturnType<typeof mountReplay>} ReplayView
 */

const SVG = "http://www.w3.org/2000/svg";
const METHODS = Object.entries(REPLAY_METHODS);
const W = 640;
const H = 180;
const PAD = { left: 56, right: 12, top: 10, bottom: 26 };

/**
 * Creates an SVG element with attributes and children.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const fmt = (/** @type {number} */ n) => Math.round(n).toLocaleString("en");
const usd = (/** @type {number} */ x) => (x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(3)}`);
const times = (/** @type {number | null} */ x) => (x == null ? "–" : `${x.toFixed(2)}×`);

/**
 * A line plot of one value per request for each method; `y` maps a request row to its value.
 * @param {PlotSpec} spec
 */
function plot({ id, title, summary, y, max, ticks, label, marks }) {
  const n = summary.requests;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const px = (/** @type {number} */ j) => PAD.left + (n > 1 ? (j / (n - 1)) * iw : iw / 2);
  const py = (/** @type {number} */ v) => PAD.top + ih - (Math.min(v, max) / max) * ih;
  const grid = ticks.map((t) =>
    s(
      "g",
      { class: "replay-tick" },
      s("line", { x1: PAD.left, x2: W - PAD.right, y1: py(t), y2: py(t) }),
      s("text", { x: PAD.left - 6, y: py(t) + 4, "text-anchor": "end" }, label(t)),
    ),
  );
  const lines = METHODS.map(([key, name]) => {
    const rows = summary.methods[/** @type {ReplayMethod} */ (key)].perRequest;
    const points = rows.map((q, j) => `${px(j).toFixed(1)},${py(y(q)).toFixed(1)}`).join(" ");
    return s("polyline", { class: `replay-line line-${key}`, points, "data-method": key }, s("title", {}, name));
  });
  const extra = marks?.({ px, py }) ?? [];
  return s(
    "svg",
    { id, class: "replay-plot", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title },
    s("title", {}, title),
    grid,
    s("text", { class: "replay-axis", x: PAD.left + iw / 2, y: H - 6, "text-anchor": "middle" }, `request (user turn), 1–${n}`),
    lines,
    extra,
  );
}

/**
 * Round grid values from 0 to `max` (at most about five steps).
 * @param {number} max
 */
function niceTicks(max) {
  const step = 10 ** Math.floor(Math.log10(Math.max(1, max / 2)));
  const k = [1, 2, 5, 10].find((f) => max / (f * step) <= 5) ?? 10;
  /** @type {number[]} */
  const out = [];
  for (let t = 0; t <= max; t += k * step) out.push(t);
  return out;
}

function legend() {
  return h(
    "ul",
    { class: "replay-legend" },
    METHODS.map(([key, name]) => h("li", {}, h("span", { class: `swatch line-${key}` }), name)),
    h("li", {}, h("span", { class: "swatch budget" }), "budget"),
    h("li", {}, h("span", { class: "swatch break" }), "prefix break (contextfold)"),
  );
}

/**
 * @param {ReplayReport} summary
 * @param {string} price the preset the costs are shown with
 */
function table(summary, price) {
  const head = [
    ["", ""],
    ["tokens", "mean tokens per request"],
    ["max", "largest request"],
    ["over", "requests over the budget"],
    ["reuse", "mean share of the previous request repeated from the start (prefix reuse)"],
    ["breaks", "requests that do not start with the whole previous one"],
    ["cost", `USD of all requests, ${price} prices`],
    ["× pass", "cost relative to pass-through"],
    ["× recency", "cost relative to the recency window"],
  ];
  return h(
    "div",
    { class: "replay-scroll" },
    h(
      "table",
      { class: "replay-table" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          head.map(([c, title]) => h("th", { scope: "col", title: title || undefined }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        METHODS.map(([key, name]) => {
          const m = summary.methods[/** @type {ReplayMethod} */ (key)];
          const c = m.cost[price];
          return h(
            "tr",
            { "data-method": key },
            h("th", { scope: "row" }, name),
            h("td", {}, fmt(m.tokens.mean)),
            h("td", {}, fmt(m.tokens.max)),
            h("td", {}, String(m.overBudget)),
            h("td", {}, m.meanReuse == null ? "–" : m.meanReuse.toFixed(2)),
            h("td", {}, String(m.breaks)),
            h("td", {}, usd(c.usd)),
            h("td", {}, times(c.vsPassThrough)),
            h("td", {}, times(c.vsRecency)),
          );
        }),
      ),
    ),
  );
}

/** @param {ReplayReport} summary */
function causes(summary) {
  const m = summary.methods.contextfold;
  if (m.breaks === 0) return h("p", { class: "help" }, "contextfold's requests never break the prefix: each one starts with the whole previous one.");
  return h(
    "div",
    {},
    h("p", { class: "help" }, `contextfold's ${m.breaks} prefix breaks, by cause:`),
    h(
      "ul",
      { class: "replay-causes" },
      Object.entries(m.breakReasons)
        .sort((a, b) => b[1] - a[1])
        .map(([why, n]) => h("li", { title: summary.breakReasons[why] ?? "" }, `${n} × ${why}`)),
    ),
  );
}

/**
 * @param {ReplayReport} summary
 * @param {string} price the preset the costs and the cache plot are shown with
 */
function render(summary, price) {
  const preset = summary.prices[price];
  const tokenMax = Math.max(summary.budget, ...METHODS.map(([k]) => summary.methods[/** @type {ReplayMethod} */ (k)].tokens.max)) * 1.05;
  // The contextfold requests that break the prefix: [request, its position, the break].
  const breaks = summary.methods.contextfold.perRequest.flatMap((q, j) => (q.break ? [/** @type {const} */ ([q, j, q.break])] : []));
  const tokens = plot({
    id: "replay-tokens",
    title: "Tokens per request",
    summary,
    y: (q) => q.tokens,
    max: tokenMax,
    ticks: niceTicks(tokenMax),
    label: (t) => (t >= 1000 ? `${t / 1000}k` : String(t)),
    marks: ({ px, py }) => [
      s(
        "line",
        { class: "replay-budget", x1: PAD.left, x2: W - PAD.right, y1: py(summary.budget), y2: py(summary.budget) },
        s("title", {}, `budget ${fmt(summary.budget)}`),
      ),
      ...breaks.map(([q, j, b]) =>
        s(
          "circle",
          { class: "replay-break", cx: px(j), cy: py(q.tokens), r: 2.5 },
          s("title", {}, `user message ${q.turn}: ${b.reason} at message ${b.index}`),
        ),
      ),
    ],
  });
  const cached = plot({
    id: "replay-cached",
    title: `Share of each request read from the cache (${preset.provider})`,
    summary,
    y: (q) => (q.tokens > 0 ? q.billed[price].read / q.tokens : 0),
    max: 1,
    ticks: [0, 0.25, 0.5, 0.75, 1],
    label: (t) => `${Math.round(t * 100)} %`,
  });
  return [
    h(
      "p",
      { class: "replay-meta" },
      `${summary.requests} requests (user messages ${summary.turns.first}–${summary.turns.last} of ${summary.messages}), budget ${fmt(summary.budget)} tokens, ${summary.seconds.toFixed(1)} s`,
    ),
    table(summary, price),
    legend(),
    h("h3", {}, "Tokens per request"),
    tokens,
    h("h3", {}, `Read from the prompt cache, share of each request (${preset.provider})`),
    cached,
    causes(summary),
    h(
      "p",
      { class: "help" },
      `${preset.provider} ${preset.model}: input $${preset.input.toFixed(2)}, ${preset.cacheWrite == null ? "" : `cache write $${preset.cacheWrite.toFixed(2)}, `}cache read $${preset.cacheRead.toFixed(3)} per million tokens; ${preset.ruleText}. Tokens are the engine's estimates of the messages it decides (the system prompt, tools and answers are the same for every method).`,
    ),
  ];
}

/**
 * Mounts the view into `root`.
 * @param {HTMLElement} root
 * @param {{run: () => Promise<ReplayReport>, key: () => string|null}} o `run` replays with the page's
 *   current input and settings; `key` names them (null without an input), to tell when a shown
 *   replay no longer matches the page
 */
export function mountReplay(root, { run, key }) {
  /** @type {{summary: ReplayReport | null, key: string | null, price: string, running: Promise<void> | null, error: string | null}} */
  const state = { summary: null, key: null, price: "anthropic", running: null, error: null };
  const button = h("button", { type: "button", id: "replay-run" }, "Replay the session");
  const select = h(
    "select",
    { id: "replay-price" },
    PRICE_NAMES.map((p) => h("option", { value: p }, p)),
  );
  const status = h("span", { class: "replay-status", id: "replay-status", "aria-live": "polite" });
  const result = h("div", { id: "replay-result" });
  root.replaceChildren(
    h(
      "details",
      { class: "replay-box", id: "replay-box" },
      h("summary", {}, h("h2", {}, "Replay: tokens and prompt cache per request")),
      h(
        "p",
        { class: "help" },
        "Sends this session again turn by turn, as OpenClaw would with these settings (each user message as the prompt, the history before it as the messages), and prices every request with the provider's prompt cache, next to sending the whole history and a recency window. The same figures as ",
        h("code", {}, "contextfold replay"),
        ".",
      ),
      h("div", { class: "replay-controls" }, button, h("label", {}, "Prices ", select), status),
      result,
    ),
  );

  function show() {
    const stale = state.summary && state.key !== key();
    status.textContent = state.running
      ? "replaying…"
      : state.error
        ? `The replay failed: ${state.error}`
        : stale
          ? "The input or settings changed since: replay again."
          : "";
    result.replaceChildren(...(state.summary ? render(state.summary, state.price) : []));
    result.classList.toggle("is-stale", Boolean(stale));
  }

  async function replay() {
    if (state.running) return state.running;
    const k = key();
    if (k == null) return null;
    state.error = null;
    state.running = run().then(
      (summary) => {
        state.summary = summary;
        state.key = k;
      },
      (err) => {
        state.error = String(err?.message ?? err);
      },
    );
    show();
    await state.running;
    state.running = null;
    show();
    return state.summary;
  }

  button.addEventListener("click", () => replay());
  select.addEventListener("change", () => {
    state.price = select.value;
    show();
  });
  show();
  return {
    /** The page's input or settings changed. */
    refresh: show,
    replay,
    get summary() {
      return state.summary;
    },
  };
}

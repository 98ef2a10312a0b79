// The assembled context: every message the model would see, in order, marked where it is a
// stub, a summary, a truncation or a cleaned copy, with its turn and input position; the
// messages not sent are listed in between (when "show removed" is on).
import { state } from "../state.js";
import { describeMessage } from "../../core/describe.js";
import { $, field, h, partsOf, renderMessage, roleOf } from "../view.js";
import { hueOf } from "./legend.js";
import { openTurn } from "./timeline.js";

/** @import { TurnExplanation } from "../../core/types.js" */
/** @import { PlaygroundSession } from "../engine.js" */

/**
 * Per input message position: the index of the turn it belongs to (or -1).
 * @param {PlaygroundSession} s
 * @param {TurnExplanation[]} turns
 * @returns {number[]}
 */
function turnIndexByMessage(s, turns) {
  const at = new Array(s.messages.length).fill(-1);
  turns.forEach((t, k) => {
    for (let i = t.range[0]; i < t.range[1] && i < at.length; i++) at[i] = k;
  });
  return at;
}

/**
 * Sorted JSON, for comparing a message with its input.
 * @param {any} v
 * @returns {string}
 */
function canon(v) {
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/**
 * What cleaning changed in a message, in a few words (null when only the shape changed).
 * @param {any} orig
 * @param {any} m
 */
function changeSummary(orig, m) {
  const norm = (/** @type {any} */ x) =>
    typeof x?.content === "string" && Array.isArray(m.content) ? { ...x, content: [{ type: "text", text: x.content }] } : x;
  if (canon(norm(orig)) === canon(m)) return null;
  const count = (/** @type {any} */ x) => {
    /** @type {Record<string, number>} */
    const c = {};
    for (const p of partsOf(x)) c[p.type] = (c[p.type] ?? 0) + 1;
    return c;
  };
  const a = count(orig);
  const b = count(m);
  /** @type {Record<string, string>} */
  const names = { thinking: "thinking", reasoning: "reasoning_content", toolCall: "call", text: "text", toolResult: "result", image: "image", data: "part" };
  const out = [];
  for (const k of Object.keys(names)) {
    const d = (b[k] ?? 0) - (a[k] ?? 0);
    if (d < 0) out.push(`−${-d} ${names[k]}`);
  }
  return out.length ? out.join(", ") : "edited";
}

/** Draws the assembled context (or what to do when there is none yet). */
export function renderContext() {
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
  /** @type {number[]} */
  const removed = [];
  for (let i = 0; i < s.messages.length; i++) if (!sources.has(i)) removed.push(i);
  const showRemoved = field("show-removed").checked;
  let rp = 0;
  /** @type {HTMLElement[]} */
  const nodes = [];
  const flushRemoved = (/** @type {number} */ upTo) => {
    const run = [];
    while (rp < removed.length && removed[rp] < upTo) run.push(removed[rp++]);
    if (!run.length || !showRemoved) return;
    // Consecutive input positions form one group.
    let g = [run[0]];
    const groups = [];
    for (const i of run.slice(1)) {
      if (i === /** @type {number} */ (g.at(-1)) + 1) g.push(i);
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
      } else if (t.decision === "truncated" && edited && /tool/.test(roleOf(m)) && changeSummary(s.messages[/** @type {number} */ (src)], m)) {
        badges.push({ text: "truncated", kind: "truncated", title: `cut to head and tail (toolResultTruncateChars ${state.config.toolResultTruncateChars})` });
        cls = "is-truncated";
      } else if (edited) {
        const what = changeSummary(s.messages[/** @type {number} */ (src)], m);
        if (what) badges.push({ text: `cleaned: ${what}`, kind: "cleaned", title: "changed by completed-turn cleaning" });
      }
      meta.push(turnLink(t));
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
        shown.map((x) => (x ? turnLink(x.t, "unfold") : h("span", {}, `… ${run.length - 7} more in the timeline …`))),
      );
      runStart = -1;
    }
    const art = renderMessage(m, { index: i, badges, meta, cls, footer });
    if (t) art.dataset.turn = t.id;
    if (t) art.style.setProperty("--hue", String(hueOf(t.topic)));
    nodes.push(art);
  });
  flushRemoved(Infinity);
  el.replaceChildren(...nodes);
}

/**
 * A button naming a turn that opens it in the timeline.
 * @param {TurnExplanation} t
 * @param {string} [verb]
 */
function turnLink(t, verb) {
  return h(
    "button",
    { type: "button", class: "turn-link", title: `show turn ${t.id} in the timeline`, onclick: () => openTurn(t.id, true) },
    verb ? `${verb} ${t.id}` : `turn ${t.id}`,
  );
}

// The turn timeline: one row per turn, coloured by topic, with its decision, tokens before and
// after, the reason and a bar; a row opens to the turn's original messages and transcript
// lines (what `contextfold recover` prints) and can scroll the context to the turn.
import { recover } from "../engine.js";
import { state } from "../state.js";
import { describeMessage } from "../../core/describe.js";
import { $, h, fmt, partsOf, renderMessage } from "../view.js";
import { DECISION_HELP, hueOf } from "./legend.js";

/** @import { TurnExplanation } from "../../core/types.js" */
/** @import { PlaygroundSession } from "../engine.js" */

/** Draws the topic legend and one row per turn (keeping the focus on the row it was on). */
export function renderTimeline() {
  const list = $("turns");
  const legend = $("legend");
  const r = state.result;
  const s = state.session;
  const focusedId = /** @type {HTMLElement | null | undefined} */ (document.activeElement?.closest?.(".turn"))?.dataset.turn;
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
      li.style.setProperty("--hue", String(hueOf(label)));
      return li;
    }),
  );
  const maxTok = Math.max(1, ...r.turns.map((t) => t.tokensBefore));
  list.replaceChildren(
    ...r.turns.map((t, k) => {
      const open = state.expanded.has(t.id);
      const detailId = `turn-detail-${k}`;
      const bar = h("span", { class: "bar", "aria-hidden": "true" }, h("span", { class: "bar-before" }, h("span", { class: "bar-after" })));
      const before = /** @type {HTMLElement} */ (bar.firstChild);
      before.style.setProperty("--w", `${((100 * t.tokensBefore) / maxTok).toFixed(1)}%`);
      /** @type {HTMLElement} */ (before.firstChild).style.setProperty("--w", `${t.tokensBefore ? ((100 * t.tokensAfter) / t.tokensBefore).toFixed(1) : 0}%`);
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
      li.style.setProperty("--hue", String(hueOf(t.topic)));
      const detail = h("div", { class: "turn-detail", id: detailId, role: "region", "aria-label": `Original messages of turn ${t.id}`, hidden: !open });
      if (open) fillDetail(detail, t);
      li.append(detail);
      return li;
    }),
  );
  if (focusedId)
    /** @type {HTMLElement | null} */ (list.querySelector(`.turn[data-turn="${CSS.escape(focusedId)}"] .turn-btn`))?.focus({ preventScroll: true });
}

/**
 * What the user asked in a turn, in one line.
 * @param {PlaygroundSession} s
 * @param {TurnExplanation} t
 */
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

/**
 * Fills an open row: the turn's original messages and transcript lines.
 * @param {HTMLElement} detail
 * @param {TurnExplanation} t
 */
function fillDetail(detail, t) {
  const s = /** @type {PlaygroundSession} */ (state.session);
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
  detail.replaceChildren(...parts.filter((x) => x !== null));
}

/** @param {string} id */
function toggleTurn(id) {
  if (state.expanded.has(id)) state.expanded.delete(id);
  else state.expanded.add(id);
  renderTimeline();
}

/**
 * Opens a turn's row and scrolls to it (and focuses it with `focus`).
 * @param {string} id
 * @param {boolean} [focus]
 */
export function openTurn(id, focus) {
  state.expanded.add(id);
  renderTimeline();
  const li = $("turns").querySelector(`.turn[data-turn="${CSS.escape(id)}"]`);
  if (li) {
    li.scrollIntoView({ block: "nearest", behavior: "smooth" });
    if (focus) /** @type {HTMLElement} */ (li.querySelector(".turn-btn")).focus({ preventScroll: true });
  }
}

/**
 * Scrolls the context to a turn's messages and flashes them.
 * @param {string} id
 */
function showTurnInContext(id) {
  const arts = [.../** @type {NodeListOf<HTMLElement>} */ ($("context").querySelectorAll(`.msg[data-turn="${CSS.escape(id)}"]`))];
  if (!arts.length) return;
  arts[0].scrollIntoView({ block: "center", behavior: "smooth" });
  for (const a of arts) {
    a.classList.remove("flash");
    void a.offsetWidth;
    a.classList.add("flash");
  }
}

// The totals: messages and tokens before and after, what was saved, the budget with a gauge,
// the turns per decision and the engine's log line (with a copy button).
import { state } from "../state.js";
import { $, h, fmt, short } from "../view.js";
import { DECISIONS, DECISION_HELP } from "./legend.js";

/** Draws the totals cards, the decision counts and the log line. */
export function renderTotals() {
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
  /** @type {HTMLElement} */ (gauge.firstChild).style.setProperty("--fill", `${(usage * 100).toFixed(1)}%`);
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

/**
 * Copies `text` to the clipboard and says so on the button for a moment.
 * @param {string} text
 * @param {HTMLButtonElement} button
 */
async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "copied";
  } catch {
    button.textContent = "select it";
  }
  setTimeout(() => (button.textContent = "copy"), 1500);
}

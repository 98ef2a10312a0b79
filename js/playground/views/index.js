// Draws every view from the state: the source line, the status messages, the totals, the
// assembled context, the turn timeline and the command that reproduces the result.
import { state } from "../state.js";
import { syncBudgetRange } from "../budget.js";
import { resetHues } from "./legend.js";
import { renderRepro, renderSource, renderStatus } from "./status.js";
import { renderTotals } from "./totals.js";
import { renderContext } from "./context.js";
import { renderTimeline } from "./timeline.js";

/** Draws every view. */
export function render() {
  resetHues((state.result?.turns ?? []).map((t) => t.topic));
  renderSource();
  renderStatus();
  renderTotals();
  renderContext();
  renderTimeline();
  renderRepro();
  syncBudgetRange();
  state.replayView?.refresh();
}

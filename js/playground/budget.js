// The budget slider: where a position on the logarithmic slider falls in tokens and back, and
// keeping the slider in step with the budget in force.
import { state } from "./state.js";
import { $, fmt } from "./view.js";

// The budget slider is logarithmic: from 100 tokens to a bit over the input's size, in
// 1000 steps, snapped to two significant digits.
const SLIDER_STEPS = 1000;
function budgetScale() {
  const before = state.result?.stats.clean.tokensBefore ?? 10000;
  const lo = Math.log(100);
  const hi = Math.log(niceCeil(Math.max(1000, before * 1.1)));
  return { lo, hi };
}
export function sliderToBudget(v) {
  const { lo, hi } = budgetScale();
  const raw = Math.exp(lo + ((hi - lo) * v) / SLIDER_STEPS);
  const p = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 1);
  return Math.round(raw / p) * p;
}
export function budgetToSlider(b) {
  const { lo, hi } = budgetScale();
  const v = ((Math.log(Math.max(1, b)) - lo) / (hi - lo)) * SLIDER_STEPS;
  return Math.round(Math.min(SLIDER_STEPS, Math.max(0, v)));
}

export function syncBudgetRange() {
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

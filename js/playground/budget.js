// The budget slider: where a position on the logarithmic slider falls in tokens and back, and
// keeping the slider in step with the budget in force.
import { state } from "./state.js";
import { field, fmt } from "./view.js";

// The budget slider is logarithmic: from 100 tokens to a bit over the input's size, in
// 1000 steps, snapped to two significant digits.
const SLIDER_STEPS = 1000;
function budgetScale() {
  const before = state.result?.stats.clean.tokensBefore ?? 10000;
  const lo = Math.log(100);
  const hi = Math.log(niceCeil(Math.max(1000, before * 1.1)));
  return { lo, hi };
}
/**
 * The budget at slider position `v` (0 … SLIDER_STEPS).
 * @param {number} v
 */
export function sliderToBudget(v) {
  const { lo, hi } = budgetScale();
  const raw = Math.exp(lo + ((hi - lo) * v) / SLIDER_STEPS);
  const p = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 1);
  return Math.round(raw / p) * p;
}
/**
 * The slider position of budget `b`.
 * @param {number} b
 */
function budgetToSlider(b) {
  const { lo, hi } = budgetScale();
  const v = ((Math.log(Math.max(1, b)) - lo) / (hi - lo)) * SLIDER_STEPS;
  return Math.round(Math.min(SLIDER_STEPS, Math.max(0, v)));
}

/** Moves the slider to the budget in force (the field's, else the config's maxTokens). */
export function syncBudgetRange() {
  const range = field("budget-range");
  range.max = String(SLIDER_STEPS);
  range.step = "1";
  const eff = state.budget ?? state.config.maxTokens ?? state.defaults.maxTokens;
  range.value = String(budgetToSlider(eff));
  range.setAttribute("aria-valuetext", `${fmt(eff)} tokens`);
}

/**
 * The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is at least `n`.
 * @param {number} n
 */
function niceCeil(n) {
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

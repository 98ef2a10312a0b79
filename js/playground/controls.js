// The settings panel: one control per engine setting of the manifest (radio buttons, a
// checkbox, a number field with a slider for shares, or a text field), grouped in panels; the
// budget and prompt fields; reset. A number the schema refuses is marked and named in the
// status line, and the last valid value stays in force.
import { NOT_CORE, state, coreKeys } from "./state.js";
import { schedule, rerun } from "./run.js";
import { sliderToBudget, syncBudgetRange } from "./budget.js";
import { $, field, fieldOf, h, fmt } from "./view.js";
import { renderStatus } from "./views/status.js";
import { renderContext } from "./views/context.js";

// Which settings go in which panel; any other core key of the manifest goes to "more".
/** @type {Record<string, string[]>} */
const GROUPS = {
  mode: ["mode", "foldOtherTopics", "preserveRecentMessages"],
  fold: ["summarizeThreshold", "embeddingSimilarityThreshold", "promptRelevanceThreshold", "toolResultTruncateChars", "minTurnsPerTopic"],
  clean: ["cleanThinking", "clearReasoningContent", "dropToolResults", "dropToolCallMessages", "keepRecentTurns"],
};
/**
 * Per setting key: how to show a value in its control and mark it invalid.
 * @type {Record<string, {set: (v: any, source?: string) => void, markInvalid: (bad: boolean) => void}>}
 */
const controls = {};

/**
 * Why the schema refuses a number for `key`, or null.
 * @param {string} key
 * @param {number} v
 */
function validate(key, v) {
  const s = state.schema[key];
  if (s.type === "integer" && !Number.isInteger(v)) return "must be a whole number";
  if ((s.type === "number" || s.type === "integer") && !Number.isFinite(v)) return "must be a number";
  if (s.minimum !== undefined && v < s.minimum) return `must be at least ${s.minimum}`;
  if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return `must be more than ${s.exclusiveMinimum}`;
  if (s.maximum !== undefined && v > s.maximum) return `must be at most ${s.maximum}`;
  return null;
}

/**
 * Sets a setting from its control (`source` names which one, so it is not set back) and
 * runs again; a number the schema refuses is marked and not used.
 * @param {string} key
 * @param {unknown} value
 * @param {string} source
 */
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

/** Builds a control for every engine setting of the manifest, in its panel. */
export function buildControls() {
  const placed = new Set();
  const groupOf = (/** @type {string} */ k) => Object.keys(GROUPS).find((g) => GROUPS[g].includes(k)) ?? "more";
  const order = [...GROUPS.mode, ...GROUPS.fold, ...GROUPS.clean, ...coreKeys()];
  for (const key of order) {
    if (placed.has(key) || !state.schema[key] || NOT_CORE.has(key)) continue;
    placed.add(key);
    $(`group-${groupOf(key)}`).append(buildControl(key));
  }
}

/**
 * The control of one setting, after its schema: radio buttons, a checkbox, a number field
 * (with a slider for shares) or a text field.
 * @param {string} key
 */
function buildControl(key) {
  const s = state.schema[key];
  const hint = state.hints[key] ?? {};
  const label = hint.label ?? key;
  const id = `cfg-${key}`;
  const helpId = `${id}-help`;
  const help = h("p", { class: "help", id: helpId }, hint.help ?? s.description ?? "", h("code", { class: "key" }, key));
  if (s.enum) {
    const radios = s.enum.map((/** @type {string} */ v) =>
      h("label", { class: "radio" }, h("input", { type: "radio", name: id, value: v, id: `${id}-${v}`, onchange: () => setSetting(key, v, "ui") }), v),
    );
    controls[key] = {
      set: (v) => {
        for (const r of radios) {
          const input = /** @type {HTMLInputElement} */ (r.firstChild);
          input.checked = input.value === v;
        }
      },
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
    /** @type {HTMLInputElement | undefined} */
    let range;
    if (unit) {
      range = h("input", {
        type: "range",
        min: 0,
        max: 1,
        step: 0.01,
        "aria-label": `${label} slider`,
        oninput: () => setSetting(key, Number(range?.value), "range"),
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

/** Shows the state's settings, budget, prompt and format in their controls. */
export function syncControls() {
  for (const k of coreKeys()) controls[k]?.set(state.config[k]);
  for (const k of coreKeys()) controls[k]?.markInvalid(false);
  state.invalid.clear();
  field("budget").value = state.budget == null ? "" : String(state.budget);
  field("prompt").value = state.prompt;
  field("format").value = state.format;
  syncBudgetRange();
}

/** Listens to the prompt, budget, reset and "show removed" controls. */
export function wireControls() {
  $("prompt").addEventListener("input", (e) => {
    state.prompt = fieldOf(e).value;
    schedule();
  });
  $("budget").addEventListener("input", (e) => {
    const v = fieldOf(e).value.trim();
    if (v === "") {
      state.budget = null;
      fieldOf(e).removeAttribute("aria-invalid");
      state.invalid.delete("budget");
    } else if (/^\d+$/.test(v)) {
      state.budget = Number(v);
      fieldOf(e).removeAttribute("aria-invalid");
      state.invalid.delete("budget");
    } else {
      fieldOf(e).setAttribute("aria-invalid", "true");
      state.invalid.set("budget", "The token budget must be a whole number of tokens");
      renderStatus();
      return;
    }
    schedule();
  });
  $("budget-range").addEventListener("input", (e) => {
    state.budget = sliderToBudget(Number(fieldOf(e).value));
    field("budget").value = String(state.budget);
    fieldOf(e).setAttribute("aria-valuetext", `${fmt(state.budget)} tokens`);
    state.invalid.delete("budget");
    field("budget").removeAttribute("aria-invalid");
    schedule();
  });
  $("budget-clear").addEventListener("click", () => {
    state.budget = null;
    field("budget").value = "";
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
}

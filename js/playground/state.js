// The page's state: the input, the settings, the last result and what the views keep open.
// One object, read by every view and changed only by the controls, the input and the run
// loop. It never touches the page.
import { JS_KEYS } from "../core/config.js";

/** Manifest keys that are not engine settings (the page shows no control for them). */
export const NOT_CORE = new Set([...JS_KEYS, "stateDir"]);

export const state = {
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

/** The engine settings of the manifest (the keys the page has controls for). */
export function coreKeys() {
  return Object.keys(state.schema).filter((k) => !NOT_CORE.has(k));
}

/** The settings that differ from the manifest's defaults (what a --config file would hold). */
export function configDiff() {
  const out = {};
  for (const k of coreKeys()) {
    if (state.config[k] !== undefined && state.config[k] !== state.defaults[k]) out[k] = state.config[k];
  }
  return out;
}

/** What the engine runs with: the prompt, the budget and the settings that differ from the defaults. */
export function settings() {
  return { prompt: state.prompt, budget: state.budget, config: configDiff() };
}

// The page's state: the input, the settings, the last result and what the views keep open.
// One object, read by every view and changed only by the controls, the input and the run
// loop. It never touches the page.
import { JS_KEYS } from "../core/config.js";

/** @import { Message } from "../core/types.js" */
/** @import { Core } from "../core/core.js" */
/** @import { PlaygroundSession } from "./engine.js" */
/** @import { Runner, RunOutput } from "./runner.js" */
/** @import { ReplayView } from "./replay.js" */

/**
 * A setting's schema in the manifest (openclaw.plugin.json `configSchema.properties`).
 * @typedef {{type?: string, enum?: string[], minimum?: number, maximum?: number, exclusiveMinimum?: number, default?: unknown, description?: string}} SettingSchema
 */
/**
 * What the page knows.
 * @typedef {object} PageState
 * @property {Runner | null} runner      the engine, once loaded
 * @property {Core | null} core          the page's own core instance: its rules read the input for the views, its defaults fill the controls
 * @property {boolean} running           a run is under way
 * @property {boolean} dirty             something changed during the run: run once more
 * @property {number} inputGen           counts inputs, so a result for a replaced input is dropped
 * @property {Record<string, SettingSchema>} schema
 * @property {Record<string, {label?: string, help?: string}>} hints  the manifest's uiHints
 * @property {Record<string, any>} defaults
 * @property {Record<string, any>} config
 * @property {number | null} budget      null: the config's maxTokens
 * @property {string} prompt
 * @property {string} format
 * @property {{bytes: Uint8Array, name: string} | null} input
 * @property {PlaygroundSession | null} session  the input as read on the page
 * @property {string | null} readError
 * @property {(RunOutput & {messages: Message[]}) | null} result  the last run, with its messages applied
 * @property {string | null} runError
 * @property {Map<string, string>} invalid  key → message, for settings the page refused
 * @property {Set<string>} expanded      turns open in the timeline
 * @property {Map<string, Uint8Array>} samples
 * @property {string | null} sampleName
 * @property {ReplayView | null} replayView  the replay plot, once mounted
 */

/** Manifest keys that are not engine settings (the page shows no control for them). */
export const NOT_CORE = new Set([...JS_KEYS, "stateDir"]);

/** @type {PageState} */
export const state = {
  runner: null,
  core: null,
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
  replayView: null,
};

/** The engine settings of the manifest (the keys the page has controls for). */
export function coreKeys() {
  return Object.keys(state.schema).filter((k) => !NOT_CORE.has(k));
}

/** The settings that differ from the manifest's defaults (what a --config file would hold). */
export function configDiff() {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of coreKeys()) {
    if (state.config[k] !== undefined && state.config[k] !== state.defaults[k]) out[k] = state.config[k];
  }
  return out;
}

/**
 * What the engine runs with: the prompt, the budget and the settings that differ from the defaults.
 * @returns {import("./engine.js").RunSettings}
 */
export function settings() {
  return { prompt: state.prompt, budget: state.budget, config: configDiff() };
}

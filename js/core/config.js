// Which plugin config keys the JS layer honors itself; every other key goes to the core,
// which refuses unknown ones. Pure (no I/O): shared by the plugin, the CLI and the playground.

/** Keys used only by the JS layer (storage, LLM use). */
export const JS_KEYS = Object.freeze([
  "stateDir",
  "summaryModel",
  "autoSummarize",
  "enableLlmConfirmation",
  "llmTimeoutMs",
  "llmMaxCallsPerSession",
  "llmMaxTokensPerSession",
]);

/** Defaults of the JS-only keys (the manifest schema mirrors them). */
export const JS_DEFAULTS = Object.freeze({
  autoSummarize: true,
  enableLlmConfirmation: true,
  llmTimeoutMs: 20000,
  llmMaxCallsPerSession: 200,
  llmMaxTokensPerSession: 400000,
});

/**
 * The JS layer's options: the JS-only keys with their defaults.
 * @typedef {{stateDir?: string, summaryModel?: string, autoSummarize: boolean, enableLlmConfirmation: boolean, llmTimeoutMs: number, llmMaxCallsPerSession: number, llmMaxTokensPerSession: number}} JsConfig
 */

/**
 * Splits a plugin config into the core's options and the JS layer's.
 * @param {Record<string, any> | null} [pluginConfig]
 * @returns {{core: Record<string, unknown>, js: JsConfig}}
 */
export function splitConfig(pluginConfig = {}) {
  /** @type {Record<string, unknown>} */
  const core = {};
  /** @type {Record<string, any>} */
  const js = { ...JS_DEFAULTS };
  for (const [k, v] of Object.entries(pluginConfig ?? {})) {
    if (JS_KEYS.includes(k)) js[k] = v;
    else core[k] = v;
  }
  return { core, js: /** @type {JsConfig} */ (js) };
}

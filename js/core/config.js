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

/** Splits a plugin config into the core's options and the JS layer's. */
export function splitConfig(pluginConfig = {}) {
  const core = {};
  const js = { ...JS_DEFAULTS };
  for (const [k, v] of Object.entries(pluginConfig ?? {})) {
    if (JS_KEYS.includes(k)) js[k] = v;
    else core[k] = v;
  }
  return { core, js };
}

// The OpenClaw plugin entry. register() runs several times per process (in different
// registration modes), so it only registers; the wasm core is loaded lazily on first use.
import { readFileSync } from "node:fs";
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { buildMemorySystemPromptAddition } from "openclaw/plugin-sdk/core";
import { createEngine, ENGINE_ID } from "./engine.js";
import { resolveStateDir } from "./store.js";
import { registerTools } from "./tools/index.js";

const manifest = JSON.parse(readFileSync(new URL("../../openclaw.plugin.json", import.meta.url), "utf8"));

/** @type {Promise<any> | undefined} */
let transcriptSdk;
/** The host's transcript reader (SQLite transcripts), loaded once on first use. */
function loadTranscriptSdk() {
  transcriptSdk ??= import("openclaw/plugin-sdk/session-transcript-runtime").catch(() => undefined);
  return transcriptSdk;
}

/**
 * The host's config as committed now. A change of our own config keys does not replace the
 * plugin instance (see `reload`), so the engine, the tools and the command read it per use.
 * (api.runtime is not available in every registration mode; api.config is the snapshot taken
 * at registration.)
 * @param {any} api  the plugin api
 */
function hostConfig(api) {
  try {
    return api.runtime?.config?.current?.() ?? api.config;
  } catch {
    return api.config;
  }
}

/** Our config keys, except where records live (a new stateDir needs the instance replaced). */
const liveConfigPaths = Object.keys(manifest.configSchema.properties)
  .filter((k) => k !== "stateDir")
  .map((k) => `plugins.entries.${ENGINE_ID}.config.${k}`);

export default definePluginEntry({
  id: ENGINE_ID,
  name: manifest.name,
  description: manifest.description,
  kind: "context-engine",
  // A config change is read on the next turn instead of replacing the instance: the host
  // refuses a replacement while any turn holds the plugin ("still has active retained work")
  // and does not retry it, so under load a change would never apply.
  reload: { noopPrefixes: liveConfigPaths },
  register(api) {
    // Resolved per use: the config changes without a new registration, and api.runtime is not
    // available in every registration mode.
    const deps = () => {
      const config = /** @type {Record<string, any>} */ (hostConfig(api)?.plugins?.entries?.[ENGINE_ID]?.config ?? api.pluginConfig ?? {});
      return {
        logger: api.logger,
        config,
        hostConfig: () => hostConfig(api),
        stateDir: resolveStateDir({ configured: config.stateDir, api }),
        hostStateDir: resolveStateDir({ api, bare: true }),
        transcriptSdk: loadTranscriptSdk,
        // The legacy engine puts the memory plugin's guidance into the system prompt; a
        // context engine has to hand it over itself.
        memoryPrompt: (/** @type {any} */ p) =>
          buildMemorySystemPromptAddition({ availableTools: p.availableTools, citationsMode: p.citationsMode, agentSessionKey: p.sessionKey }),
        api,
        version: manifest.version,
      };
    };
    api.registerContextEngine(ENGINE_ID, () => createEngine(deps()));
    registerTools(api, deps);
  },
});

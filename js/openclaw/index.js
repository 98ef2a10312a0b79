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

export default definePluginEntry({
  id: ENGINE_ID,
  name: manifest.name,
  description: manifest.description,
  kind: "context-engine",
  register(api) {
    // Resolved per use: the config hot-reloads and api.runtime is not available in every
    // registration mode.
    const deps = () => {
      const config = /** @type {Record<string, any>} */ (api.pluginConfig ?? {});
      return {
        logger: api.logger,
        config,
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

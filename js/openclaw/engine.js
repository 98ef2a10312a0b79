// The OpenClaw context engine: an adapter from the host's lifecycle to the wasm core.
// The host creates one engine per logical turn and disposes it afterwards, so nothing
// durable lives on the instance: the wasm module is shared per process (js/core/node.js)
// and records live on disk (store.js).
import { loadCore, applySteps, formatLogLine, changed, roughTokens } from "../core/node.js";
import { SessionStore } from "./store.js";

export const ENGINE_ID = "contextfold";

/** Options that the JS layer handles itself; every other key goes to the core. */
const JS_KEYS = new Set(["stateDir"]);

/** Splits the plugin config into the core's options and the JS layer's. */
export function splitConfig(pluginConfig = {}) {
  const core = {};
  const js = {};
  for (const [k, v] of Object.entries(pluginConfig ?? {})) (JS_KEYS.has(k) ? js : core)[k] = v;
  return { core, js };
}

/**
 * @param {object} deps
 * @param {object} deps.logger   { info, warn }
 * @param {object} deps.config   the plugin config (validated by the host against the manifest)
 * @param {string} deps.stateDir where records live
 * @param {(p: object) => Promise<object>} deps.delegateCompaction the host's own compaction
 * @param {string} [deps.version]
 */
export function createEngine({ logger, config, stateDir, delegateCompaction, version = "0.1.0" }) {
  const { core: coreConfig } = splitConfig(config);
  const sessionKeyOf = (p) => p?.sessionKey ?? p?.sessionTarget?.sessionKey ?? p?.sessionId ?? "unknown";

  return {
    info: {
      id: ENGINE_ID,
      name: "contextfold",
      version,
      ownsCompaction: false,
      // Without both declarations and commitTurn the host silently runs its legacy engine.
      transcriptSemantics: {
        currentTurnFence: "before-current-turn-entry-v1",
        turnAdvancementIdempotency: "atomic-idempotent-v1",
      },
    },

    async bootstrap() {
      return { bootstrapped: true, importedMessages: 0 };
    },

    async maintain() {
      return { changed: false, bytesFreed: 0, rewrittenEntries: 0, reason: "contextfold: nothing to maintain" };
    },

    // Only non-durable hosts call ingest; the cleaner needs nothing from it.
    async ingest() {
      return { ingested: false };
    },

    async assemble(params) {
      const messages = params?.messages;
      const key = sessionKeyOf(params);
      if (!Array.isArray(messages)) {
        logger.warn(`[contextfold] session=${key} assemble got no message array; passing through`);
        return { messages: messages ?? [], estimatedTokens: 0 };
      }
      try {
        const core = await loadCore();
        const result = core.clean(messages, coreConfig);
        if (result.fallback) {
          logger.warn(`[contextfold] session=${key} returned the host's messages unchanged: ${result.fallback}`);
          return { messages, estimatedTokens: result.stats.tokensBefore };
        }
        if (changed(result.stats)) logger.info(formatLogLine(key, result.stats));
        return { messages: applySteps(messages, result.steps), estimatedTokens: result.stats.tokensAfter };
      } catch (err) {
        logger.warn(`[contextfold] session=${key} returned the host's messages unchanged: ${oneLine(err)}`);
        return { messages, estimatedTokens: roughTokens(messages) };
      }
    },

    async commitTurn(params) {
      const key = sessionKeyOf(params);
      const store = new SessionStore(stateDir, key);
      const status = await store.commitTurn(params.advancementKey, {
        sessionKey: key,
        sessionId: params.sessionId ?? params.sessionTarget?.sessionId ?? null,
        messages: Array.isArray(params.messages) ? params.messages.length : 0,
        committedAt: new Date().toISOString(),
      });
      return { status };
    },

    // /compact and overflow recovery: the host's own compaction, so they keep working.
    async compact(params) {
      return delegateCompaction(params);
    },

    async dispose() {},
  };
}

function oneLine(err) {
  return String(err?.message ?? err).split("\n")[0];
}

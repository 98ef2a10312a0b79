// context_pin, context_config and context_set_strategy: what the session keeps in full, its
// runtime config overrides and its default prune strategy. Every change is validated (the
// plugin's config schema, then the engine core), persisted with the session and applied from
// the next request on; stateDir never changes at runtime.
import { splitConfig } from "../../core/config.js";
import { ToolError, oneLine } from "./errors.js";
import { STRATEGIES, TURN_ID, checkSchema, obj } from "./schema.js";
import { CONFIG_SCHEMA, findTurn, hashId, indexOf, pinnedTurnIds, pinsOf, syncNote } from "./session.js";

/** @import { ToolDef } from "./session.js" */
/** @import { LiveState } from "../live.js" */

/** Config keys that cannot change at runtime (where records live is fixed per process). */
const READ_ONLY_KEYS = new Set(["stateDir"]);

/**
 * The plugin config merged over defaults, then the session's runtime overrides, with each
 * key's source. The host hands the plugin its config with the schema's defaults filled in,
 * so a plugin-config value equal to the default is shown as the default. The engine's
 * defaults are the core's (`defaultConfig`); the JS layer's own keys have the manifest's.
 * @param {Record<string, unknown>} coreDefaults the core's `defaultConfig()`
 * @param {Record<string, unknown> | undefined} pluginConfig
 * @param {Record<string, unknown>} overrides
 */
function effectiveConfig(coreDefaults, pluginConfig, overrides) {
  /** @type {Record<string, unknown>} */
  const defaults = {};
  for (const [k, sch] of Object.entries(CONFIG_SCHEMA.properties)) if (sch.default !== undefined) defaults[k] = sch.default;
  Object.assign(defaults, coreDefaults);
  /** @type {Record<string, unknown>} */
  const out = { ...defaults };
  /** @type {Record<string, string>} */
  const source = Object.fromEntries(Object.keys(defaults).map((k) => [k, "default"]));
  for (const [k, v] of Object.entries(pluginConfig ?? {})) {
    out[k] = v;
    source[k] = JSON.stringify(v) === JSON.stringify(defaults[k]) ? "default" : "plugin config";
  }
  for (const [k, v] of Object.entries(overrides ?? {})) {
    out[k] = v;
    source[k] = "session override";
  }
  return { config: out, source };
}

/**
 * context_pin, context_config and context_set_strategy.
 * @returns {ToolDef[]}
 */
export function settingsTools() {
  return [
    {
      name: "context_pin",
      description:
        "Pin what must stay in full: a turn (turnId), every turn that calls a tool (tool), or every turn whose text contains a phrase (pattern, case-insensitive). Pinned turns are never stubbed, summarized, pruned or folded for the budget. unpin: true removes the given pin. Without arguments: list the pins. Pins persist with the session.",
      parameters: obj({
        turnId: TURN_ID,
        tool: { type: "string", minLength: 1, maxLength: 100, description: 'A tool name, e.g. "read".' },
        pattern: { type: "string", minLength: 2, maxLength: 200, description: "A phrase; turns containing it are pinned." },
        unpin: { type: "boolean", description: "Remove the given pin instead of adding it (default false)." },
      }),
      async run({ s, core }, p) {
        await syncNote(s);
        const index = await indexOf(s);
        const pins = pinsOf(s);
        /** @type {string[]} */
        const changes = [];
        /** @type {(list: string[], value: string, what: string) => void} */
        const edit = (list, value, what) => {
          const has = list.includes(value);
          if (p.unpin) {
            if (!has) throw new ToolError(`${what} ${JSON.stringify(value)} is not pinned`);
            list.splice(list.indexOf(value), 1);
            changes.push(`unpinned ${what} ${JSON.stringify(value)}`);
          } else if (has) {
            changes.push(`${what} ${JSON.stringify(value)} was already pinned`);
          } else {
            if (list.length >= 200) throw new ToolError(`too many ${what} pins (200); unpin some first`);
            list.push(value);
            changes.push(`pinned ${what} ${JSON.stringify(value)}`);
          }
        };
        const w = await s.session();
        if (p.turnId !== undefined) {
          const t = findTurn(index, p.turnId);
          edit(pins.turnIds, t.id, "turn");
          if (!p.unpin) w.setFolded(w.folded().filter((id) => id !== t.id && id !== hashId(t)));
        }
        if (p.tool !== undefined) edit(pins.tools, p.tool, "tool");
        if (p.pattern !== undefined) edit(pins.patterns, p.pattern, "pattern");
        if (p.unpin && !changes.length) throw new ToolError("unpin needs turnId, tool or pattern");
        if (changes.length) {
          s.state.pins = pins;
          w.setPins(pins);
          await s.saveState();
        }
        const held = await pinnedTurnIds(core, s, pins, index.turns);
        const matching = index.turns.filter((t) => held.has(t.id)).map((t) => t.id);
        const lines = [
          ...(changes.length ? changes : ["no change (list only)"]),
          `pins: turns [${pins.turnIds.join(", ")}], tools [${pins.tools.join(", ")}], patterns [${pins.patterns.map((x) => JSON.stringify(x)).join(", ")}]`,
          `${matching.length} turn(s) pinned now${matching.length ? `: ${matching.slice(0, 20).join(", ")}${matching.length > 20 ? " …" : ""}` : ""}; they stay in full from the next request on`,
        ];
        return { text: lines.join("\n"), details: { pins, pinnedTurns: matching, changes } };
      },
    },
    {
      name: "context_config",
      description:
        "View or change contextfold's settings for this session at runtime. Without arguments: the effective config (defaults, then the plugin config, then this session's overrides) with each value's source. set: {key: value} changes keys (validated against the plugin's config schema and by the engine core; applies from the next request on and persists with the session); unset: [keys] drops overrides; resetAll: true drops all. stateDir cannot change at runtime.",
      parameters: obj({
        set: { type: "object", description: 'Keys to change, e.g. {"preserveRecentMessages": 8, "foldOtherTopics": false}.' },
        unset: {
          type: "array",
          items: { type: "string", minLength: 1, maxLength: 100 },
          maxItems: 50,
          description: "Override keys to drop (back to the plugin config).",
        },
        resetAll: { type: "boolean", description: "Drop every override of this session." },
      }),
      async run({ s, core, deps }, p) {
        await s.session();
        const overrides = { ...(s.state.config ?? {}) };
        const changes = [];
        if (p.resetAll) {
          for (const k of Object.keys(overrides)) delete overrides[k];
          changes.push("dropped every session override");
        }
        for (const k of p.unset ?? []) {
          if (!(k in CONFIG_SCHEMA.properties)) throw new ToolError(`unknown config key "${k}"`);
          if (k in overrides) {
            delete overrides[k];
            changes.push(`unset ${k}`);
          }
        }
        for (const [k, v] of Object.entries(p.set ?? {})) {
          const sch = CONFIG_SCHEMA.properties[k];
          if (!sch) throw new ToolError(`unknown config key "${k}"; known keys: ${Object.keys(CONFIG_SCHEMA.properties).join(", ")}`);
          if (READ_ONLY_KEYS.has(k)) throw new ToolError(`${k} cannot be changed at runtime (set it in the plugin config)`);
          const e = checkSchema(sch, v, k);
          if (e) throw new ToolError(e);
          overrides[k] = v;
          changes.push(`${k} = ${JSON.stringify(v)}`);
        }
        const { config: eff, source } = effectiveConfig(core.defaultConfig(), deps.config, overrides);
        const coreConfig = splitConfig(eff).core;
        try {
          core.newSession(coreConfig).free();
        } catch (err) {
          throw new ToolError(`rejected by the engine core: ${oneLine(err)}`);
        }
        if (changes.length) {
          s.state.config = overrides;
          await s.saveState();
          s.setConfig(splitConfig({ ...(deps.config ?? {}), ...overrides }).core);
        }
        const shown = Object.fromEntries(Object.entries(eff).filter(([k]) => k !== "stateDir"));
        const lines = [
          changes.length ? `changed: ${changes.join("; ")} (from the next request on)` : "no change",
          "effective config:",
          ...Object.entries(shown).map(([k, v]) => `  ${k} = ${JSON.stringify(v)}  (${source[k]})`),
        ];
        return { text: lines.join("\n"), details: { effective: shown, source, overrides, changes } };
      },
    },
    {
      name: "context_set_strategy",
      description:
        "Switch the prune strategy context_prune uses by default for this session (persisted): fifo (oldest first), sliding-window (keep the keepMessages most recent messages) or importance (least important first). Optionally set the default keepMessages, targetTokens or maxTurns with it.",
      parameters: obj(
        {
          strategy: { type: "string", enum: STRATEGIES, description: "fifo, sliding-window or importance." },
          keepMessages: { type: "integer", minimum: 1, maximum: 1000000, description: "Default for sliding-window." },
          targetTokens: { type: "integer", minimum: 0, maximum: 100000000, description: "Default token target for fifo / importance." },
          maxTurns: { type: "integer", minimum: 1, maximum: 100000, description: "Default cap on turns pruned at once." },
        },
        ["strategy"],
      ),
      async run({ s }, p) {
        await s.session();
        const previous = s.state.prune?.strategy ?? "fifo";
        s.state.prune = /** @type {LiveState["prune"]} */ (
          Object.fromEntries(
            Object.entries({ strategy: p.strategy, keepMessages: p.keepMessages, targetTokens: p.targetTokens, maxTurns: p.maxTurns }).filter(
              ([, v]) => v !== undefined,
            ),
          )
        );
        await s.saveState();
        const hint =
          p.strategy === "sliding-window" && p.keepMessages === undefined
            ? " (context_prune will need keepMessages)"
            : p.strategy !== "sliding-window" && p.targetTokens === undefined && p.maxTurns === undefined
              ? " (context_prune will need targetTokens or maxTurns)"
              : "";
        return { text: `prune strategy: ${previous} → ${p.strategy}${hint}; saved for this session`, details: { previous, prune: s.state.prune } };
      },
    },
  ];
}

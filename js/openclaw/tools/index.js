// The agent tools: inspect and steer the live state of the calling session.
//
// One factory is registered (`api.registerTool(factory, {names})`); the host calls it with
// the tool context of the run, and every tool acts on that context's session only: the same
// LiveSession the engine uses (openLive with the engine's deps), so a pin, a prune or a config
// change shows in the very next request. No tool takes a path or a session argument; turn ids
// are looked up in the session's own index and never used to build a path. Arguments are
// validated against each tool's JSON Schema (types, ranges, unknown keys); a bad argument
// throws with a message that says what to send instead. Large output is paged (page /
// pageSize ≤ 200) and every result text is capped at 64 KB.
//
// This file registers them: the names, the factory that checks each call's arguments, opens
// the calling session and caps the result, and the /contextfold command. The tools themselves
// live in one file per group; what they share is in errors.js, schema.js, paging.js, render.js
// and session.js.
import { openLive, sessionKeyOf } from "../engine.js";
import { loadCore } from "../../core/node.js";
import { registerStatusCommand } from "../command.js";
import { ToolError, oneLine } from "./errors.js";
import { checkSchema } from "./schema.js";
import { boundDetails, capText } from "./paging.js";
import { identityOf } from "./session.js";
import { statsTools, statusReport } from "./stats.js";
import { foldTools } from "./fold.js";
import { settingsTools } from "./settings.js";
import { inspectTools } from "./inspect.js";
import { sessionIndexTools } from "./session-index.js";

/** @import { EngineDeps, OpenSession, PluginApi } from "../engine.js" */
/** @import { ToolContext, ToolDef } from "./session.js" */

export { ToolError } from "./errors.js";
export { checkSchema } from "./schema.js";
export { MAX_PAGE_SIZE, MAX_TEXT_BYTES, capText } from "./paging.js";
export { renderMessage } from "./render.js";
export { statusReport } from "./stats.js";

/** Every tool name (the manifest's `contracts.tools` lists exactly these). */
export const TOOL_NAMES = Object.freeze([
  "context_stats",
  "context_prune",
  "context_summarize",
  "context_pin",
  "context_config",
  "context_set_strategy",
  "context_engine_status",
  "context_engine_compact",
  "context_engine_recover",
  "context_engine_assemble",
  "context_engine_topics",
  "context_engine_detect_subtopics",
  "context_engine_explain",
  "session_index_build",
  "session_index_query",
  "session_index_read_raw",
]);

/**
 * Every tool's definition, in the order of TOOL_NAMES.
 * @returns {ToolDef[]}
 */
function defineTools() {
  const byName = new Map([...statsTools(), ...foldTools(), ...settingsTools(), ...inspectTools(), ...sessionIndexTools()].map((d) => [d.name, d]));
  return TOOL_NAMES.map((name) => {
    const def = byName.get(name);
    if (!def) throw new Error(`no definition for the tool ${name}`);
    return def;
  });
}

// ------------------------------------------------------------------------------------------
// registration

/**
 * Builds the tools for one tool context. `getDeps` returns the engine's deps (resolved per
 * use: the plugin config hot-reloads).
 * @param {any} toolCtx the host's tool context of the run (its session identity)
 * @param {() => EngineDeps} getDeps
 */
export function createTools(toolCtx, getDeps) {
  return defineTools().map((def) => ({
    name: def.name,
    label: def.name,
    description: def.description,
    parameters: def.parameters,
    /**
     * @param {string} _toolCallId
     * @param {Record<string, any> | undefined} params
     * @param {AbortSignal} [signal]
     */
    async execute(_toolCallId, params, signal) {
      const args = params ?? {};
      const bad = checkSchema(def.parameters, args, "arguments");
      if (bad) throw new ToolError(`${def.name}: ${bad}`);
      try {
        const ident = identityOf(toolCtx);
        const deps = getDeps();
        const s = await openLive(ident, deps);
        const core = await loadCore();
        const out = await def.run({ s, core, deps, ident, signal, key: sessionKeyOf(ident) }, args);
        const { text } = capText(out.text);
        return { content: [{ type: /** @type {const} */ ("text"), text }], details: boundDetails(out.details) };
      } catch (err) {
        if (err instanceof ToolError) throw new ToolError(`${def.name}: ${err.message}`);
        throw new Error(`${def.name} failed: ${oneLine(err)}`);
      }
    },
  }));
}

/**
 * Registers the agent tools (one factory for all names) and the /contextfold command.
 * @param {PluginApi} api
 * @param {() => EngineDeps} getDeps
 */
export function registerTools(api, getDeps) {
  api.registerTool((toolCtx) => createTools(toolCtx, getDeps), { names: [...TOOL_NAMES] });
  registerStatusCommand(api, getDeps, { openLive, statusReport, explain: explainText, topics: topicsText });
}

/**
 * The text of one tool that reads only the session (explain, topics), for the command.
 * @param {string} name
 * @param {OpenSession} s
 * @param {Record<string, any>} args
 */
async function sessionToolText(name, s, args) {
  const tool = /** @type {ToolDef} */ (defineTools().find((t) => t.name === name));
  return (await tool.run(/** @type {ToolContext} */ ({ s }), args)).text;
}

/** @param {OpenSession} s */
const explainText = (s) => sessionToolText("context_engine_explain", s, { pageSize: 30 });
/** @param {OpenSession} s */
const topicsText = (s) => sessionToolText("context_engine_topics", s, { pageSize: 20 });

// The operator command `/contextfold [status|explain|topics|help]`: the engine's state for
// the conversation it is typed in, without involving the model (plugin commands bypass the
// LLM). Registered through `api.registerCommand` when the host offers it; the handler gets
// the conversation's session identity from the host and reads that session only.

/** @import { EngineDeps, OpenSession, PluginApi, SessionIdentity } from "./engine.js" */
/**
 * What the command shows, supplied by the tools (see registerStatusCommand).
 * @typedef {object} CommandImpl
 * @property {(ident: SessionIdentity, deps: EngineDeps) => Promise<OpenSession>} openLive
 * @property {(s: OpenSession, deps: EngineDeps) => Promise<{text: string}>} statusReport
 * @property {(s: OpenSession) => Promise<string>} explain
 * @property {(s: OpenSession) => Promise<string>} topics
 */

export const COMMAND_NAME = "contextfold";

const SUBCOMMANDS = ["status", "explain", "topics", "help"];

const HELP = [
  "/contextfold [subcommand] — contextfold's state for this conversation",
  "  status   (default) active or not, last request, caches, background queue, LLM budget, last fallback",
  "  explain  why each turn of the last request was kept, cleaned, truncated, summarized or stubbed",
  "  topics   topics and sub-topics with their turn ranges",
  "  help     this text",
].join("\n");

/**
 * Registers the command. `impl` supplies what it shows: `{openLive, statusReport, explain,
 * topics}` (from tools/index.js, passed in so this module has no dependency cycle).
 * @param {PluginApi} api
 * @param {() => EngineDeps} getDeps
 * @param {CommandImpl} impl
 */
export function registerStatusCommand(api, getDeps, impl) {
  if (typeof api?.registerCommand !== "function") return false;
  api.registerCommand({
    name: COMMAND_NAME,
    description: "contextfold status for this conversation (subcommands: status, explain, topics, help)",
    acceptsArgs: true,
    requireAuth: true,
    handler: (ctx) => runCommand(ctx, getDeps, impl),
  });
  return true;
}

/**
 * The handler (exported for tests). Never throws: errors become the reply text.
 * @param {any} ctx the host's command context (`args`, the conversation's session identity)
 * @param {() => EngineDeps} getDeps
 * @param {CommandImpl} impl
 * @returns {Promise<{text: string}>}
 */
export async function runCommand(ctx, getDeps, impl) {
  const sub =
    String(ctx?.args ?? "")
      .trim()
      .split(/\s+/)[0]
      .toLowerCase() || "status";
  if (sub === "help") return { text: HELP };
  if (!SUBCOMMANDS.includes(sub)) return { text: `unknown subcommand "${sub}"\n${HELP}` };
  const sessionKey = ctx?.sessionKey ?? ctx?.sessionTarget?.sessionKey;
  const sessionId = ctx?.sessionId ?? ctx?.sessionTarget?.sessionId;
  if (!sessionKey && !sessionId) return { text: "contextfold: this command needs a conversation with a session (none in this context)" };
  const agentId = ctx?.agentId ?? ctx?.sessionTarget?.agentId;
  const ident = {
    ...(sessionKey ? { sessionKey } : {}),
    ...(sessionId ? { sessionId } : {}),
    sessionTarget: { ...(agentId ? { agentId } : {}), ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}) },
  };
  try {
    const deps = getDeps();
    const s = await impl.openLive(ident, deps);
    try {
      await s.sync();
    } catch {
      // status still shows what is known
    }
    if (sub === "explain") return { text: await impl.explain(s) };
    if (sub === "topics") return { text: await impl.topics(s) };
    return { text: (await impl.statusReport(s, deps)).text };
  } catch (err) {
    return { text: `contextfold ${sub} failed: ${String(err?.message ?? err).split("\n")[0]}` };
  }
}

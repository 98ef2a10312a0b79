// The playground's engine: loads the wasm core the plugin ships and runs the one-shot
// assemble exactly as `contextfold assemble` does (same reader, same entries, same request),
// so the browser shows what the CLI prints for the same input and settings.
import { wrapGlue, applySteps, formatRequestLine } from "../core/core.js";
import { readMessages, assembleRequest } from "../core/readers.js";
import { splitConfig } from "../core/config.js";
import { replayTimeline, replayTurns, replaySession, replaySummary, tokenCounter } from "../core/replay.js";
import { parseJsonlBytes, decodeUtf8, lineAt } from "./entries.js";

/** @import { Core } from "../core/core.js" */
/** @import { TurnExplanation } from "../core/types.js" */

/**
 * What the page asks the engine for: the upcoming prompt, the budget (null: the config's
 * maxTokens) and the settings that differ from the defaults.
 * @typedef {{prompt: string, budget: number | null, config: Record<string, unknown>}} RunSettings
 */
/** A session read on the page. @typedef {ReturnType<typeof readSession>} PlaygroundSession */
/** What `run` returns. @typedef {ReturnType<typeof run>} RunResult */
/** What `replay` returns. @typedef {ReturnType<typeof replay>} ReplayReport */

let instances = 0;

/**
 * Loads and initialises the wasm core from `wasmDir` (a URL ending in a slash). Each call
 * after the first imports the glue under a new URL, hence a fresh instance and memory (to
 * replace one that trapped).
 * @param {URL} wasmDir
 * @returns {Promise<Core>}
 */
export async function loadCore(wasmDir) {
  const url = new URL("contextfold.js", wasmDir);
  if (instances++ > 0) url.search = `instance=${instances}`;
  const glue = await import(url.href);
  await glue.default({ module_or_path: new URL("contextfold_bg.wasm", wasmDir) });
  return wrapGlue(glue);
}

/**
 * Reads an input file's bytes the way the CLI's `loadSession` does.
 * @param {Uint8Array} bytes
 * @param {{name: string, format?: string, core: Core}} opts  `core`: the instance whose rule picks a transcript's active branch
 */
export function readSession(bytes, { name, format = "auto", core }) {
  const text = decodeUtf8(bytes);
  const r = readMessages(text, { format, name, core });
  const base = /** @type {string} */ (name.split(/[\\/]/).pop());
  const parsed = r.format === "openclaw" ? parseJsonlBytes(bytes, 0, base) : undefined;
  const entries = parsed?.entries;
  const session = r.sessionId ?? base.replace(/\.[^.]+$/, "");
  // Message position → its transcript entry (for recovering the original lines).
  /** @type {([number, number] | undefined)[] | undefined} */
  let lines;
  if (parsed && r.entries) {
    const rangeById = new Map(parsed.entries.map((e) => [e.id, e.range]));
    lines = r.entries.map((e) => rangeById.get(e.id));
  }
  return { ...r, entries, session, bytes, name, lines };
}

/**
 * The core's part of a plugin config (JS-only keys such as stateDir are not the core's).
 * @param {Record<string, unknown>} config
 */
export function coreConfig(config) {
  return splitConfig(config).core;
}

/**
 * Runs the one-shot assemble.
 * @param {Core} core
 * @param {PlaygroundSession} s
 * @param {RunSettings} settings
 * @returns the core's result plus the applied messages, the log line and what was asked
 */
export function run(core, s, { prompt, budget, config }) {
  const request = assembleRequest(s, { prompt, budget, config: coreConfig(config) });
  const r = core.assembleOnce(request);
  const messages = applySteps(s.messages, r.steps);
  const st = r.stats;
  const logLine = formatRequestLine(s.session, st);
  return {
    messages,
    steps: r.steps,
    estimatedTokens: r.estimatedTokens,
    turns: r.turns,
    stats: st,
    fallback: r.fallback ?? null,
    logLine,
    request: { prompt: request.prompt, budget: request.budget, config: request.config },
  };
}

/**
 * The original messages of a turn and, for a JSONL input, its transcript lines.
 * @param {PlaygroundSession} s
 * @param {TurnExplanation} turn
 */
export function recover(s, turn) {
  const [a, b] = turn.range;
  const messages = s.messages.slice(a, b);
  const lines = s.lines ? s.lines.slice(a, b).map((range) => (range ? lineAt(s.bytes, range) : null)) : null;
  return { messages, lines, first: a, last: b - 1 };
}

/**
 * Replays the session turn by turn with these settings and measures it as `contextfold replay`
 * does (js/core/replay.js). The plugin's adapter needs a filesystem, so the page replays
 * through the core's live session the way the adapter drives it; a test checks that both send
 * the same requests. Returns the summary (the requests' messages stay in the engine).
 * @param {Core} core
 * @param {PlaygroundSession} s
 * @param {Pick<RunSettings, "budget" | "config">} settings
 */
export function replay(core, s, { budget, config }) {
  const cfg = coreConfig(config);
  // maxTokens is a number: the core refuses a config where it is not.
  const b = /** @type {number} */ (budget ?? cfg.maxTokens ?? core.defaultConfig().maxTokens);
  const started = performance.now();
  const timeline = replayTimeline(core, s, s.bytes, s.name);
  const turns = replayTurns(timeline.messages);
  if (turns.length === 0) throw new Error("no user turn with history before it to replay");
  const requests = replaySession(core, timeline, { turns, config: cfg, budget: b });
  const tokensOf = tokenCounter(core);
  const summary = replaySummary({ messages: timeline.messages, turns, requests: requests.map((r) => r.messages), tokensOf, budget: b });
  return { session: s.session, messages: timeline.messages.length, seconds: (performance.now() - started) / 1000, tokens: "estimated", ...summary };
}

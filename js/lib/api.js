// The library API, the same in every environment: clean, assemble, recover, estimateTokens
// and live sessions over arrays of OpenAI chat messages, Anthropic messages or OpenClaw
// AgentMessages (or a transcript as text or bytes), with the plugin's config keys as options.
// Each environment's entry (node.js, browser.js) hands in how to get a healthy core instance;
// everything else is here, on js/core: the readers read the inputs, the core plans, the
// results module shapes the answers. Never does I/O itself, never calls an LLM, keeps no
// files: options that only steer the plugin's storage and LLM use are accepted (a plugin
// config can be passed as it is) and have no effect.
import { readMessages, assembleRequest, InputError } from "../core/readers.js";
import { splitConfig } from "../core/config.js";
import { shapeOf } from "./formats.js";
import { messageEntries } from "./entries.js";
import { assembled, cleaned } from "./results.js";
import { callerErrors } from "./errors.js";
import { Session } from "./session.js";

/** @import { Message } from "../core/types.js" */
/** @import { Core } from "../core/core.js" */
/** @import { TranscriptEntry } from "../core/readers.js" */

/** Options of a call that are not engine options. */
const CALL_KEYS = ["format", "prompt", "budget", "historyComplete"];

/**
 * Splits a call's options into the call's own and the core's engine options.
 * @param {Record<string, unknown>} options
 * @param {readonly string[]} allowed the call options this call takes
 */
function optionsOf(options, allowed) {
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new InputError("options must be an object");
  /** @type {Record<string, any>} */
  const call = {};
  /** @type {Record<string, unknown>} */
  const engine = {};
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined) continue;
    if (allowed.includes(k)) call[k] = v;
    else if (CALL_KEYS.includes(k)) throw new InputError(`option "${k}" does not apply here`);
    else engine[k] = v;
  }
  return { call, config: splitConfig(engine).core };
}

/**
 * Reads an input: an array of messages as it is, a transcript or request body (text or
 * bytes) with the readers the CLI uses.
 * @param {unknown} input
 * @param {Core} core the core, whose rule picks a transcript's active branch
 * @param {string} [format]
 * @returns {{messages: Message[], format: string, warnings?: string[], entries?: TranscriptEntry[], text?: string | Uint8Array}}
 */
function readInput(input, core, format = "auto") {
  if (Array.isArray(input)) return { messages: input, format: shapeOf(input, format) };
  if (typeof input === "string" || input instanceof Uint8Array) {
    const r = readMessages(input, { format, name: "input", core });
    return { ...r, entries: r.format === "openclaw" ? r.transcriptEntries : undefined, text: input };
  }
  throw new InputError("expected an array of messages, or a transcript or request body as a string or Uint8Array");
}

/**
 * The library over one environment's core.
 * @param {() => Promise<Core>} getCore resolves to a healthy core instance (js/core/core.js `wrapGlue`)
 */
export function createApi(getCore) {
  /**
   * Runs a core call on a healthy instance (errors: js/lib/errors.js).
   * @template T
   * @param {(core: Core) => T} fn
   * @returns {Promise<T>}
   */
  const engine = async (fn) => {
    const core = await getCore();
    return callerErrors(() => fn(core));
  };

  return {
    /**
     * Cleans completed turns: what the cleaner alone sends (`contextfold clean`).
     * @param {unknown} input
     * @param {Record<string, unknown>} [options]
     */
    async clean(input, options = {}) {
      const { call, config } = optionsOf(options, ["format", "historyComplete"]);
      const read = readInput(input, await getCore(), call.format);
      const r = await engine((core) => core.clean(read.messages, config, { historyComplete: call.historyComplete === true }));
      return cleaned(read.messages, r, read);
    },

    /**
     * Cleans and folds to the budget: what the model would see, and why
     * (`contextfold assemble --json`).
     * @param {unknown} input
     * @param {Record<string, unknown>} [options]
     */
    async assemble(input, options = {}) {
      const { call, config } = optionsOf(options, ["format", "prompt", "budget"]);
      const read = readInput(input, await getCore(), call.format);
      const r = await engine((core) => core.assembleOnce(assembleRequest(read, { prompt: call.prompt, budget: call.budget, config })));
      return assembled(read.messages, r, read);
    },

    /**
     * A turn's original messages, by the id `assemble` gives it; for a transcript also its
     * lines exactly as they are in the input (`contextfold recover`).
     * @param {unknown} input
     * @param {string} turnId
     * @param {{format?: string}} [options]
     */
    async recover(input, turnId, options = {}) {
      const { call } = optionsOf(options, ["format"]);
      if (typeof turnId !== "string") throw new InputError("recover needs a turn id (a string)");
      const read = readInput(input, await getCore(), call.format);
      return engine((core) => {
        const entries = read.entries ?? messageEntries(core, read.messages);
        const live = core.newSession({});
        try {
          live.rebuild(entries);
          const turn = live.index().turns.find((t) => t.id === turnId);
          if (!turn) throw new InputError(`no turn ${JSON.stringify(turnId)} in the input`);
          /** @type {Map<string, TranscriptEntry>} */
          const byId = new Map(entries.map((e) => [e.id, e]));
          // Every entry of an indexed turn is one of the entries indexed.
          const refs = turn.entries.map((e) => /** @type {TranscriptEntry} */ (byId.get(e.id)));
          const out = { turnId, messages: refs.map((e) => e.message) };
          return read.entries
            ? {
                ...out,
                lines: linesOf(
                  read.text,
                  // the entries of a transcript read from text or bytes carry their lines' ranges
                  refs.map((e) => /** @type {[number, number]} */ (e.range)),
                ),
              }
            : out;
        } finally {
          live.free();
        }
      });
    },

    /**
     * The engine's token estimate of the messages (what budgets are enforced on).
     * @param {unknown} input
     * @param {{format?: string}} [options]
     */
    async estimateTokens(input, options = {}) {
      const { call } = optionsOf(options, ["format"]);
      const read = readInput(input, await getCore(), call.format);
      return engine((core) => core.estimateTokens(read.messages));
    },

    /**
     * A live session for a caller that assembles every turn of one conversation.
     * @param {Record<string, unknown>} [options]
     */
    async openSession(options = {}) {
      const { call, config } = optionsOf(options, ["format"]);
      const format = call.format ?? "auto";
      shapeOf([], format); // refuses a format no array can have
      return engine((core) => new Session(core, config, format));
    },
  };
}

/**
 * The exact lines of the transcript `text` at the byte `ranges` (newline included): strings
 * for a string input, bytes for a byte input.
 * @param {string | Uint8Array | undefined} text
 * @param {[number, number][]} ranges
 */
function linesOf(text, ranges) {
  if (text instanceof Uint8Array) return ranges.map(([a, b]) => new Uint8Array(text.subarray(a, b)));
  const bytes = new TextEncoder().encode(text ?? "");
  const decoder = new TextDecoder();
  return ranges.map(([a, b]) => decoder.decode(bytes.subarray(a, b)));
}

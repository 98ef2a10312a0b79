// The OpenClaw context engine: an adapter from the host's lifecycle to the wasm core.
// The host creates one engine per logical turn and disposes it afterwards, so nothing
// durable lives on the instance: the wasm module is shared per process (js/core/node.js),
// live sessions are kept in a process-wide registry (live.js) and records live on disk.
//
// Per turn the host calls: [bootstrap → maintain] → assemble → (model/tool loop) →
// commitTurn → maintain → dispose. assemble never waits for an LLM and never throws: any
// failure returns the host's messages unchanged with one warning line.
import { existsSync } from "node:fs";
import path from "node:path";
import { loadCore, applySteps, formatRequestLine, worthLogging, roughTokens } from "../core/node.js";
import { splitConfig } from "../core/config.js";
import { SessionStore } from "./store.js";
import { LiveSession, LiveSessions } from "./live.js";
import { JsonlTranscript, SqliteTranscript } from "./transcript.js";
import { LlmBudget, LLM_DEFAULTS, pickComplete } from "./llm.js";
import { summarizeQueued, labelSubtopic, confirmBoundary, turnMessages } from "./background.js";
import { HOST_COUNT_REPLANS, historyBudget, modelLimits, scaledBudget, smallerScale, systemPromptTokens } from "../core/room.js";
import { holdLine, requestLine, flushLine } from "./requestlog.js";

/**
 * The plugin api the host hands to `register` (types from the pinned openclaw package).
 * @typedef {import("openclaw/plugin-sdk/plugin-entry").OpenClawPluginApi} PluginApi
 */
/**
 * The context engine interface the host's `registerContextEngine` takes.
 * @typedef {Awaited<ReturnType<Parameters<PluginApi["registerContextEngine"]>[1]>>} HostContextEngine
 */
/**
 * The engine `createEngine` makes: the host's interface, with the lifecycle methods it leaves
 * optional implemented.
 * @typedef {HostContextEngine & Required<Pick<HostContextEngine, "bootstrap" | "maintain" | "commitTurn" | "dispose">>} Engine
 */
/**
 * What the host passes along with each call (its LLM as `llm`).
 * @typedef {NonNullable<Parameters<Engine["maintain"]>[0]["runtimeContext"]>} HostRuntimeContext
 */
/** @typedef {Awaited<ReturnType<HostContextEngine["assemble"]>>} HostAssembleResult */
/** @typedef {HostAssembleResult["messages"]} HostMessages */
/** @typedef {{info: (msg: string) => void, warn: (msg: string) => void, error?: (msg: string) => void}} Logger */
/** @import { Message } from "../core/types.js" */
/** @import { JsConfig } from "../core/config.js" */
/**
 * A live session as openLive returns it: its JS options and LLM accounting set.
 * @typedef {LiveSession & {js: JsConfig, llm: LlmBudget}} OpenSession
 */
/**
 * A session's identity as the host passes it to the engine and the tools.
 * @typedef {{sessionKey?: string, sessionId?: string, agentId?: string, sessionTarget?: {agentId?: string, sessionKey?: string, sessionId?: string}}} SessionIdentity
 */
/**
 * What the engine needs from the plugin entry (resolved per use: the config hot-reloads).
 * @typedef {object} EngineDeps
 * @property {Logger} logger
 * @property {Record<string, any>} config  the plugin config (validated by the host against the manifest)
 * @property {string} stateDir             where our records live
 * @property {string} [hostStateDir]       the host's state dir (for legacy JSONL transcripts)
 * @property {() => Promise<any>} [transcriptSdk] loads the host's transcript reader
 * @property {(p: any) => string | undefined} [memoryPrompt] the memory plugin's system prompt guidance
 * @property {any} [api]                   the plugin api (plugin-level LLM access)
 * @property {string} [version]
 * @property {number} [assembleTimeoutMs]  the wall-clock guard of one assemble (default ASSEMBLE_TIMEOUT_MS)
 * @property {() => any} [hostConfig]     the host's whole config (model limits), when the entry can read it
 */

export const ENGINE_ID = "contextfold";

/** Wall-clock guard of one assemble (the host's turn must never wait on us for long). */
export const ASSEMBLE_TIMEOUT_MS = 5_000;
/** At most this many of the newest turns are caught up per bootstrap. */
const CATCH_UP_TURNS = 20;
/** Deadline of one background pass (maintain). */
const BACKGROUND_MS = 60_000;

// One registry per process, not per module instance: the host loads the plugin module more
// than once (one instance per plugin registry: engine, tools, commands), and the agent tools
// must steer the very LiveSession the engine plans with.
const REGISTRY = Symbol.for("contextfold.liveSessions");
/** @type {any} */ (globalThis)[REGISTRY] ??= new LiveSessions();
/** @type {LiveSessions} */
const registry = /** @type {any} */ (globalThis)[REGISTRY];

/**
 * The key a session's live state and records are kept under.
 * @param {SessionIdentity | undefined} p
 * @returns {string}
 */
export function sessionKeyOf(p) {
  return p?.sessionKey ?? p?.sessionTarget?.sessionKey ?? p?.sessionId ?? "unknown";
}

/**
 * The agent id of a session key `agent:<agentId>:<rest>`.
 * @param {SessionIdentity | undefined} params
 * @returns {string}
 */
export function agentIdOf(params) {
  const target = params?.sessionTarget ?? {};
  if (target.agentId) return target.agentId;
  const m = /^agent:([^:]+):/.exec(params?.sessionKey ?? target.sessionKey ?? "");
  return m ? m[1] : "main";
}

/**
 * Opens (or returns) the live session of a session identity `{sessionKey, sessionId?,
 * sessionTarget?}`: the same object for the engine instances of every turn and for the
 * agent tools, so both see and steer the same state.
 * @param {SessionIdentity} params
 * @param {EngineDeps} deps
 * @returns {Promise<OpenSession>}
 */
export async function openLive(params, { config, stateDir, hostStateDir, transcriptSdk, logger }) {
  const base = splitConfig(config);
  const key = sessionKeyOf(params);
  const s = registry.get(key, () => new LiveSession({ stateDir, sessionKey: key, config: base.core, logger }));
  s.transcript ??= await transcriptFor(params, { hostStateDir, transcriptSdk });
  // The session's runtime overrides (context_config, state.json `config`) go over the plugin
  // config; loading the session reads them.
  await s.session();
  let { core: coreConfig, js } = splitConfig({ ...(config ?? {}), ...(s.state.config ?? {}) });
  try {
    s.setConfig(coreConfig);
  } catch (err) {
    s.warn(`session config overrides ignored: ${oneLine(err)}`);
    ({ core: coreConfig, js } = base);
    s.setConfig(coreConfig);
  }
  s.js = js;
  s.llm ??= new LlmBudget(js);
  const limits = /** @type {Record<string, number>} */ (s.llm.limits);
  for (const k of Object.keys(LLM_DEFAULTS)) {
    const v = /** @type {Record<string, any>} */ (js)[k];
    if (v !== undefined) limits[k] = v;
  }
  return /** @type {OpenSession} */ (s);
}

/**
 * The session's transcript: the legacy JSONL file when there is one, else the host's store.
 * @param {SessionIdentity} params
 * @param {{hostStateDir?: string, transcriptSdk?: () => Promise<any>}} o
 */
async function transcriptFor(params, { hostStateDir, transcriptSdk }) {
  const sessionId = params?.sessionId ?? params?.sessionTarget?.sessionId;
  const agentId = agentIdOf(params);
  if (hostStateDir && sessionId) {
    const legacy = path.join(hostStateDir, "agents", agentId, "sessions", `${sessionId}.jsonl`);
    if (existsSync(legacy)) return new JsonlTranscript(legacy);
  }
  if (!sessionId) return undefined;
  const sdk = await transcriptSdk?.().catch(() => undefined);
  if (sdk?.readSessionTranscriptVisibleMessageDelta) {
    return new SqliteTranscript(sdk, { agentId, sessionId, sessionKey: sessionKeyOf(params) });
  }
  return undefined;
}

/** @param {any} err */
function oneLine(err) {
  return String(err?.message ?? err).split("\n")[0];
}

/** The agent tool that brings a folded turn back (stubs name it). */
export const RECOVERY_TOOL = "context_engine_recover";

/**
 * Whether the model of this request can call the recovery tool: `availableTools` of the
 * turn's first assemble lists every tool the request can reach (directly or through the
 * host's tool_search / tool_call); inside the tool loop it lists only the tools array, where
 * plugin tools hide behind tool_call, so the turn's first answer stands there. Undefined when
 * the host does not say.
 * @param {Set<string>|string[]|undefined} availableTools
 * @param {boolean|undefined} turnAnswer what the turn's first assemble found
 */
export function recoveryToolOffered(availableTools, turnAnswer) {
  if (!availableTools) return turnAnswer;
  const has = (/** @type {string} */ n) => (availableTools instanceof Set ? availableTools.has(n) : [...availableTools].includes(n));
  if (has(RECOVERY_TOOL)) return true;
  if (turnAnswer !== undefined && has("tool_call")) return turnAnswer;
  return false;
}

/**
 * Plans a request within its budget by the engine's estimate and by the host's count (what
 * the host uses to set the answer's max tokens, room.js): the budget is scaled by the
 * session's ratio of the two counts, and when the host would still count the planned history
 * over the budget, the ratio goes down and the request is planned again, so the model keeps
 * its answer room and the next requests plan with the same budget (and append to this plan).
 * @param {OpenSession} s
 * @param {{messages: Message[], prompt?: string, budget?: number, recoveryTool?: boolean}} req
 */
async function planWithin(s, req) {
  const target = req.budget;
  if (target === undefined) return s.assemble(req);
  let r = await s.assemble({ ...req, budget: scaledBudget(target, s.hostScale) });
  for (let i = 0; i < HOST_COUNT_REPLANS; i++) {
    const scale = smallerScale(applySteps(req.messages, r.steps), r, target, s.hostScale);
    if (scale === undefined) break;
    s.hostScale = scale;
    r = await s.assemble({ ...req, budget: scaledBudget(target, scale) });
  }
  return r;
}

/**
 * The context engine for the host (one per logical turn; see the top of this file).
 * @param {EngineDeps} deps
 * @returns {Engine}
 */
export function createEngine(deps) {
  const { logger, config, stateDir, api, version = "0.1.0" } = deps;
  const { js: baseJs } = splitConfig(config);

  /** @param {SessionIdentity} params */
  const live = (params) => openLive(params, deps);
  // Live sessions this instance planned for: their held log line is written when it ends.
  const touched = new Set();

  /** @param {any} params */
  function memoryPromptFor(params) {
    try {
      const text = deps.memoryPrompt?.(params);
      return typeof text === "string" && text.trim() ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /** @param {OpenSession} s */
  async function syncQuietly(s) {
    try {
      return await s.sync();
    } catch (err) {
      s.warn(`transcript not indexed this time: ${oneLine(err)}`);
      return undefined;
    }
  }

  /**
   * Records the newest turns the host advanced without committing them (OpenClaw 2026.9 does
   * not commit turns while Anthropic's `cache-ttl` context pruning is on): bootstrap runs at
   * the start of every turn after the first, when every turn in the transcript is finished.
   * The index already has them (it reads the transcript); this keeps the engine's record of
   * advanced turns complete and says once per turn that it happened.
   * @param {OpenSession} s
   */
  async function catchUpCommits(s) {
    try {
      const ids = (await s.session()).recentTurnIds(CATCH_UP_TURNS);
      const made = await new SessionStore(stateDir, s.sessionKey).catchUp(ids);
      if (made.length > 0) {
        logger.info(
          `[contextfold] session=${s.sessionKey} caught up ${made.length} turn(s) from the transcript that the host advanced without committing them (${made.join(", ")})`,
        );
      }
    } catch (err) {
      s.warn(`turn records not caught up: ${oneLine(err)}`);
    }
  }

  /**
   * @param {OpenSession} s
   * @param {{runtimeContext?: any}} params
   * @param {AbortSignal | undefined} signal
   */
  async function background(s, params, signal) {
    const js = s.js ?? baseJs;
    const complete = js.autoSummarize || js.enableLlmConfirmation ? pickComplete(params?.runtimeContext, api) : undefined;
    const core = (await s.session()).core;
    const deadline = Date.now() + BACKGROUND_MS;
    const made = await summarizeQueued(s, {
      core,
      llm: s.llm,
      complete: js.autoSummarize ? complete : undefined,
      autoSummarize: js.autoSummarize,
      summaryModel: js.summaryModel,
      signal,
      deadline,
    });
    const llmTopics = js.enableLlmConfirmation ? complete : undefined;
    const heuristic = async (/** @type {string} */ turnId) => (await s.session()).heuristicSubtopic(turnId);
    const labelled = await labelSubtopic(s, { llm: s.llm, complete: llmTopics, signal, heuristic });
    const judged = await confirmBoundary(s, { llm: s.llm, complete: llmTopics, signal });
    return { made, labelled: labelled || judged };
  }

  return {
    info: {
      id: ENGINE_ID,
      name: "contextfold",
      version,
      // The engine fits every request to the budget itself and compacts into side caches
      // (the transcript is never rewritten), so the host's own compaction is not needed.
      ownsCompaction: true,
      turnMaintenanceMode: "background",
      // Without both declarations and commitTurn the host silently runs its legacy engine.
      transcriptSemantics: {
        currentTurnFence: "before-current-turn-entry-v1",
        turnAdvancementIdempotency: "atomic-idempotent-v1",
      },
    },

    async bootstrap(params) {
      try {
        const s = await live(params);
        const u = await syncQuietly(s);
        await catchUpCommits(s);
        return { bootstrapped: true, importedMessages: u?.newTurns ?? 0 };
      } catch (err) {
        return { bootstrapped: false, reason: `contextfold: ${oneLine(err)}` };
      }
    },

    async maintain(params) {
      try {
        const s = await live(params);
        await syncQuietly(s);
        const { made, labelled } = await background(s, params, params?.abortSignal);
        return {
          changed: false,
          bytesFreed: 0,
          rewrittenEntries: 0,
          reason: `contextfold: ${made} summaries, ${labelled ? 1 : 0} sub-topic labels (side caches; transcript untouched)`,
        };
      } catch (err) {
        return { changed: false, bytesFreed: 0, rewrittenEntries: 0, reason: `contextfold: background work skipped: ${oneLine(err)}` };
      }
    },

    // Only non-durable hosts call ingest; the index reads the transcript instead.
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
      let timer;
      try {
        const guard = new Promise((_, reject) => {
          const ms = deps.assembleTimeoutMs ?? ASSEMBLE_TIMEOUT_MS;
          timer = setTimeout(() => reject(new Error(`assemble took longer than ${ms} ms`)), ms);
        });
        const work = (async () => {
          const s = await live(params);
          // The host assembles again with our own output at the start: inside a tool loop
          // (our output plus the loop's new messages, no prompt), which is already decided
          // and live, so it passes through; or once more before each model call of the turn
          // (with the prompt, and a budget that shrinks as the loop grows), which plans the
          // original history again, so the plan, its summary queue and the turn ids stay
          // those of the host's history.
          const inLoop = s.isOwnOutput(messages);
          if (inLoop && params.prompt === undefined) return { s, r: null, input: messages, inLoop };
          await syncQuietly(s);
          const input = inLoop
            ? /** @type {Message[]} */ (s.lastMessages).concat(messages.slice(/** @type {Message[]} */ (s.lastOutput).length))
            : s.conversation(messages);
          const room = historyBudget(
            { tokenBudget: params.tokenBudget, limits: params.runtimeSettings?.limits, inLoop },
            modelLimits(deps.hostConfig?.(), params.runtimeSettings?.model?.provider ?? undefined, params.model),
            inLoop ? s.turnRoom : undefined,
          );
          s.turnRoom = room.turn;
          const turnRecovery = inLoop ? s.lastAssemble?.recoveryTool : undefined;
          // Stubs name the recovery tool only when this request offers it.
          const recoveryTool = recoveryToolOffered(params.availableTools, turnRecovery);
          const r = await planWithin(s, { messages: input, prompt: params.prompt, budget: room.budget, recoveryTool });
          return { s, r, input, inLoop, hostBudget: room.budget };
        })();
        const { s, r, input, inLoop, hostBudget } = await Promise.race([work, guard]);
        if (!r) {
          flushLine(s, logger);
          const core = await loadCore();
          return { messages, estimatedTokens: core.estimateTokens(messages) };
        }
        if (r.fallback) logger.warn(`[contextfold] session=${key} ${r.fallback}`);
        const line = worthLogging(r.stats) ? formatRequestLine(key, { ...r.stats, hostBudget }) : null;
        if (inLoop) requestLine(s, logger, line);
        else holdLine(s, logger, line);
        touched.add(s);
        s.lastAssembleAt = Date.now();
        // Kept messages are the host's own objects; replacements are messages in its shape.
        /** @type {HostAssembleResult} */
        const out = { messages: /** @type {HostMessages} */ (applySteps(input, r.steps)), estimatedTokens: r.estimatedTokens };
        s.lastOutput = out.messages;
        const memory = memoryPromptFor(params);
        if (memory) out.systemPromptAddition = memory;
        return out;
      } catch (err) {
        const s = registry.map.get(key);
        if (s) s.lastFallback = { at: new Date().toISOString(), reason: oneLine(err) };
        logger.warn(`[contextfold] session=${key} returned the host's messages unchanged: ${oneLine(err)}`);
        return { messages, estimatedTokens: roughTokens(messages) };
      } finally {
        clearTimeout(timer);
      }
    },

    async commitTurn(params) {
      const key = sessionKeyOf(params);
      flushLine(registry.map.get(key), logger);
      const store = new SessionStore(stateDir, key);
      const status = await store.commitTurn(params.advancementKey, {
        ...(typeof params.admission?.entryId === "string" ? { turnId: params.admission.entryId } : {}),
        sessionKey: key,
        sessionId: params.sessionId ?? params.sessionTarget?.sessionId ?? null,
        messages: Array.isArray(params.messages) ? params.messages.length : 0,
        committedAt: new Date().toISOString(),
      });
      return { status };
    },

    /**
     * A real compaction, into the side caches: summarizes old unprotected turns (LLM when
     * available, else extractive) and marks them folded, so later requests carry summaries
     * instead of the turns. The transcript is not rewritten; every turn stays recoverable.
     */
    async compact(params) {
      const key = sessionKeyOf(params);
      flushLine(registry.map.get(key), logger);
      try {
        const s = await live(params);
        await syncQuietly(s);
        // The whole history from the transcript (not the last request's view, which may be
        // folded already); the last request's messages only when there is no transcript.
        const fromTranscript = await s.transcriptMessages().catch(() => []);
        const msgs = fromTranscript.length > 0 ? fromTranscript : s.lastMessages;
        if (!msgs || msgs.length === 0) return { ok: true, compacted: false, reason: "contextfold: nothing to compact" };
        const js = s.js ?? baseJs;
        // Planned as the next request will be: with the session's last history budget (the
        // host passes the model's whole window here), else the window less the reserve.
        const window = params.tokenBudget ?? params.runtimeContext?.tokenBudget;
        const budget =
          s.turnRoom?.budget ??
          historyBudget(
            { tokenBudget: window ?? s.config.maxTokens ?? /** @type {number} */ ((await loadCore()).defaultConfig().maxTokens), inLoop: false },
            modelLimits(deps.hostConfig?.(), /** @type {any} */ (params).provider, /** @type {any} */ (params).model),
          ).budget;
        const w = await s.session();
        const foldedBefore = new Set(w.folded());
        const compactedBefore = new Set(w.compacted());
        // Planned as the session's last request was offered the recovery tool (for the stubs).
        const recoveryTool = s.lastAssemble?.recoveryTool;
        const before = await s.assemble({ messages: msgs, budget, recoveryTool });
        // Turns sent whole (or cut or masked): a stub or summary is already as small as they get.
        const candidates = before.turns.filter((t) => !t.protected && t.decision !== "summarized" && t.decision !== "stubbed").map((t) => t.id);
        const complete = js.autoSummarize ? pickComplete(params?.runtimeContext, api) : undefined;
        const made = await summarizeQueued(s, {
          core: w.core,
          llm: s.llm,
          complete,
          autoSummarize: js.autoSummarize,
          summaryModel: js.summaryModel,
          turnIds: candidates,
          messagesById: turnMessages(s, candidates),
          signal: params.abortSignal,
          deadline: Date.now() + BACKGROUND_MS,
        });
        const summarized = candidates.filter((id) => s.summaries[id]);
        w.setFolded([...new Set([...w.folded(), ...summarized])]);
        // Their explanations say a manual compaction folded them (not the budget).
        w.setCompacted([...new Set([...w.compacted(), ...summarized])]);
        let after = await s.assemble({ messages: msgs, budget, recoveryTool });
        // A summary that is not smaller than the turn is not used for it (the core sends the
        // turn cleaned or stubbed): a turn this compaction folded goes back to what it was.
        let grew = after.turns.filter((t) => summarized.includes(t.id) && !foldedBefore.has(t.id) && t.decision !== "summarized").map((t) => t.id);
        if (grew.length > 0) {
          w.setFolded(w.folded().filter((id) => !grew.includes(id)));
          w.setCompacted(w.compacted().filter((id) => !grew.includes(id)));
          after = await s.assemble({ messages: msgs, budget, recoveryTool });
        }
        // A compaction never grows what the model gets: when the summaries together are not
        // smaller than what they replace, every turn goes back to what it was.
        if (after.estimatedTokens > before.estimatedTokens) {
          grew = summarized;
          w.setFolded(w.folded().filter((id) => !summarized.includes(id) || foldedBefore.has(id)));
          w.setCompacted(w.compacted().filter((id) => !summarized.includes(id) || compactedBefore.has(id)));
          after = await s.assemble({ messages: msgs, budget, recoveryTool });
        }
        await s.saveState();
        // What the model gets, as the host's "Context" figure counts it: the history as
        // planned plus the host's system prompt (when this session's turns said how large).
        const system = systemPromptTokens(s.turnRoom, window) ?? 0;
        const foldedNow = summarized.length - grew.length;
        return {
          ok: true,
          compacted: after.estimatedTokens < before.estimatedTokens,
          reason: `contextfold: ${foldedNow} turns folded to summaries, history ~${before.estimatedTokens} → ~${after.estimatedTokens} tokens (side cache; transcript untouched)`,
          result: {
            tokensBefore: before.estimatedTokens + system,
            tokensAfter: after.estimatedTokens + system,
            details: {
              summarized: made,
              folded: w.folded().length,
              historyBefore: before.estimatedTokens,
              historyAfter: after.estimatedTokens,
              systemPromptTokens: system || null,
              budget,
              notSmaller: grew,
            },
          },
        };
      } catch (err) {
        logger.warn(`[contextfold] session=${key} compaction failed: ${oneLine(err)}`);
        return { ok: false, compacted: false, reason: `contextfold: ${oneLine(err)}` };
      }
    },

    async dispose() {
      for (const s of touched) flushLine(s, logger);
      touched.clear();
    },
  };
}

/** The process-wide registry (tools read the live state of the calling session from it). */
export function liveSessions() {
  return registry;
}

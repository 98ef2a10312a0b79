// Bounded LLM calls for background work (summaries, sub-topic labels).
//
// Every call has a timeout; each session has a call budget and a token budget; a failed call
// is retried at most `retries` times; an answer that is empty, only reasoning, or not what
// was asked for counts as a failure and the caller falls back to the core's heuristics.
// Nothing here ever runs inside `assemble`.

/**
 * One request to the host's LLM runtime.
 * @typedef {{messages: {role: string, content: string}[], maxTokens?: number, purpose?: string, model?: string, signal?: AbortSignal}} CompletionParams
 */
/**
 * What the host's LLM runtime answers.
 * @typedef {{text?: string, usage?: {inputTokens?: number, outputTokens?: number}, stopReason?: string}} CompletionResult
 */
/** @typedef {(params: CompletionParams) => Promise<CompletionResult>} Complete */

export const LLM_DEFAULTS = {
  llmTimeoutMs: 20_000,
  llmMaxCallsPerSession: 200,
  llmMaxTokensPerSession: 400_000,
  llmRetries: 1,
};

/**
 * Picks the host's completion function: session-bound first, then the plugin-level one.
 * @param {any} runtimeContext the host's runtime context of the turn (may carry `llm`)
 * @param {any} api the plugin api
 * @returns {Complete | undefined}
 */
export function pickComplete(runtimeContext, api) {
  const bound = runtimeContext?.llm?.complete;
  if (typeof bound === "function") return (/** @type {CompletionParams} */ p) => bound.call(runtimeContext.llm, p);
  try {
    const plugin = api?.runtime?.llm?.complete;
    if (typeof plugin === "function") return (/** @type {CompletionParams} */ p) => plugin.call(api.runtime.llm, p);
  } catch {
    // api.runtime throws in registration modes without a runtime
  }
  return undefined;
}

/**
 * Strips reasoning the model wrote inline (`<think>…</think>`) and surrounding whitespace.
 * @param {unknown} text
 */
export function visibleText(text) {
  if (typeof text !== "string") return "";
  return text.replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, "").trim();
}

/** Per-session accounting and the call wrapper. */
export class LlmBudget {
  /** @param {Partial<typeof LLM_DEFAULTS>} [limits] */
  constructor(limits = {}) {
    this.limits = { ...LLM_DEFAULTS, ...limits };
    this.calls = 0;
    this.tokens = 0;
    this.failures = 0;
    /** @type {string | null} */
    this.lastError = null;
  }

  get exhausted() {
    return this.calls >= this.limits.llmMaxCallsPerSession || this.tokens >= this.limits.llmMaxTokensPerSession;
  }

  remaining() {
    return {
      calls: Math.max(0, this.limits.llmMaxCallsPerSession - this.calls),
      tokens: Math.max(0, this.limits.llmMaxTokensPerSession - this.tokens),
    };
  }

  /**
   * Runs one completion with timeout and retries. Returns the visible text, or null when the
   * call failed, timed out, was over budget, or `accept(text)` refused the answer.
   * @param {Complete | undefined} complete
   * @param {CompletionParams} params
   * @param {{signal?: AbortSignal, accept?: (text: string) => boolean}} [o]
   * @returns {Promise<string | null>}
   */
  async complete(complete, params, { signal, accept = (t) => t.length > 0 } = {}) {
    if (!complete) return this.fail("no LLM available");
    for (let attempt = 0; attempt <= this.limits.llmRetries; attempt++) {
      if (this.exhausted) return this.fail("per-session LLM budget used up");
      if (signal?.aborted) return this.fail("aborted");
      this.calls++;
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort();
      signal?.addEventListener?.("abort", onAbort, { once: true });
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      try {
        /** @type {Promise<never>} */
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(() => {
            ctrl.abort();
            reject(new Error(`LLM call timed out after ${this.limits.llmTimeoutMs} ms`));
          }, this.limits.llmTimeoutMs);
        });
        const res = await Promise.race([complete({ ...params, signal: ctrl.signal }), timeout]);
        const usage = res?.usage ?? {};
        this.tokens += (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) || estimateCost(params, res);
        // The host reports a provider failure (HTTP error, broken stream) as a result with
        // stopReason "error" or "aborted", whose text is empty or only a fragment.
        if (res?.stopReason === "error" || res?.stopReason === "aborted") {
          this.fail(`LLM call failed (stopReason ${res.stopReason})`);
          continue;
        }
        const text = visibleText(res?.text);
        if (!text) {
          this.fail("LLM returned no visible text (empty or only reasoning)");
          continue;
        }
        if (!accept(text)) {
          this.fail("LLM answer not usable");
          continue;
        }
        return text;
      } catch (err) {
        this.fail(String(err?.message ?? err).split("\n")[0]);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener?.("abort", onAbort);
      }
    }
    return null;
  }

  /**
   * Counts a failure and remembers why; returns null (what `complete` returns for it).
   * @param {string} reason
   * @returns {null}
   */
  fail(reason) {
    this.failures++;
    this.lastError = reason;
    return null;
  }
}

/**
 * @param {CompletionParams} params
 * @param {CompletionResult | undefined} res
 */
function estimateCost(params, res) {
  const chars = JSON.stringify(params?.messages ?? []).length + String(res?.text ?? "").length;
  return Math.ceil(chars / 4);
}

/**
 * Parses the sub-topic classifier's answer: `{"subtopic": "...", "isNewSubtopic": bool}`.
 * @param {string | null | undefined} text
 * @returns {{subtopic: string, isNewSubtopic: boolean} | null}
 */
export function parseSubtopic(text) {
  const m = /\{[\s\S]*\}/.exec(text ?? "");
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]);
    if (typeof v.subtopic !== "string" || !v.subtopic.trim() || typeof v.isNewSubtopic !== "boolean") return null;
    return { subtopic: v.subtopic.trim().slice(0, 60), isNewSubtopic: v.isNewSubtopic };
  } catch {
    return null;
  }
}

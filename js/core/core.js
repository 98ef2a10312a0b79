// The environment-independent wrapper around one instance of the wasm core.
// Each environment (Node, browser) has a tiny loader that instantiates the wasm-bindgen
// glue its own way and hands it to `wrapGlue`. Calls are coarse: one JSON document in,
// one JSON document out.

/**
 * @typedef {object} CleanStats
 * @property {number} messagesBefore
 * @property {number} messagesAfter
 * @property {number} tokensBefore
 * @property {number} tokensAfter
 * @property {number} cleanedRC
 * @property {number} cleanedThink
 * @property {number} dropTool
 * @property {number} dropAsstTC
 * @property {number} droppedCalls
 * @property {number} droppedEmpty
 * @property {number} mergedText
 * @property {number} frontier
 */

/**
 * @typedef {{source?: number, message?: object}} Step
 * A plan step: keep input message `source`, or use `message` in its place.
 */

/** Wraps a wasm-bindgen glue module that has been initialised. */
export function wrapGlue(glue) {
  const core = {
    poisoned: false,
    version: glue.version(),
    /**
     * Cleans `messages` with the engine options `config`. `historyComplete`: the upcoming
     * prompt is not part of `messages`, so every message belongs to a finished turn.
     * @returns {{steps: Step[], stats: CleanStats, fallback?: string}}
     */
    clean(messages, config = {}, { historyComplete = false } = {}) {
      return call(() => JSON.parse(glue.clean(JSON.stringify({ messages, config, historyComplete }))));
    },
    /** Estimated tokens of a message array. */
    estimateTokens(messages) {
      return call(() => glue.estimateTokens(JSON.stringify(messages)));
    },
    /** The engine's default options. */
    defaultConfig() {
      return call(() => JSON.parse(glue.defaultConfig()));
    },
    /**
     * One-shot assemble over a whole transcript (CLI, playground):
     * `{messages, entries?, prompt?, budget?, config?, summaries?, folded?, pins?}`.
     */
    assembleOnce(request) {
      return call(() => JSON.parse(glue.assembleOnce(JSON.stringify(request))));
    },
    /** A deterministic extractive summary of one turn's messages. */
    summarize(turnId, messages, maxTokens = 120) {
      return call(() => glue.summarize(JSON.stringify({ turnId, messages, maxTokens })));
    },
    /** Diagnostics: `selfCheck("panic")` crashes this instance on purpose (fault tests). */
    selfCheck(kind) {
      return call(() => glue.selfCheck(kind));
    },
    /** A live session kept inside this wasm instance. */
    newSession(config = {}) {
      const s = call(() => new glue.Session(JSON.stringify(config)));
      const j = (fn) => call(() => JSON.parse(fn()));
      // The core keeps the history of the last request; the next request sends only what
      // differs from it. `sent` is a private copy of what the core holds (the host may change
      // its own objects in place).
      let sent = [];
      // The replacement of history message i the core sent last (it sends each once, then
      // refers to it as `-i - 1`). These are in `KEPT`: `applySteps` gives the host a copy of
      // them.
      let replaced = [];
      // The turn explanations of the last response: the core sends `0` for one that is the
      // same as the one at its position here.
      let explained = [];
      let transfer = { kept: 0, sent: 0, reused: 0, repeated: 0 };
      const assemble = (req) => {
        const messages = req.messages ?? [];
        const n = Math.min(sent.length, messages.length);
        let keep = 0;
        while (keep < n && sameJson(messages[keep], sent[keep])) keep++;
        const append = messages.slice(keep);
        let text = `{"keep":${keep},"reuse":true,"append":${JSON.stringify(append)}`;
        if (req.prompt != null) text += `,"prompt":${JSON.stringify(req.prompt)}`;
        if (req.budget != null) text += `,"budget":${JSON.stringify(req.budget)}`;
        const kept = sent.slice(0, keep);
        // Until this request succeeds the core's history is unknown: the next one starts over
        // (keeps nothing), and with it the replacements and explanations kept here.
        sent = [];
        replaced.length = Math.min(replaced.length, keep);
        if (keep === 0) explained = [];
        const r = j(() => s.assembleDelta(text + "}"));
        const turns = r.turns ?? [];
        let repeated = 0;
        for (let i = 0; i < turns.length; i++) {
          if (turns[i] !== 0) continue;
          repeated++;
          if (explained[i] === undefined) {
            throw new Error(`contextfold core referred to an explanation of turn ${i} it never sent`);
          }
          turns[i] = explained[i];
        }
        explained = turns.slice();
        let reused = 0;
        // Steps come compactly: a kept message as its source `i`, a replacement sent before as
        // `-i - 1` (the one kept here), the others as step objects.
        const steps = r.steps;
        for (let k = 0; k < steps.length; k++) {
          const st = steps[k];
          if (typeof st === "number") {
            if (st >= 0) {
              steps[k] = { source: st };
              continue;
            }
            const source = -st - 1;
            const m = replaced[source];
            if (m === undefined) {
              throw new Error(`contextfold core referred to a replacement of message ${source} it never sent`);
            }
            steps[k] = { source, message: m };
            reused++;
          } else if (st.reuse !== undefined) {
            replaced[st.source] = st.message;
            KEPT.add(st.message);
            delete st.reuse;
          }
        }
        sent = kept.concat(append.map((m) => structuredClone(m)));
        transfer = { kept: keep, sent: append.length, reused, repeated };
        return r;
      };
      return {
        core,
        configure: (c) => call(() => s.configure(JSON.stringify(c))),
        loadIndex: (index) => call(() => s.loadIndex(JSON.stringify(index))),
        index: () => j(() => s.indexJson()),
        tip: () => call(() => s.tip()),
        rebuild: (entries) => j(() => s.rebuild(JSON.stringify(entries))),
        append: (entries) => j(() => s.append(JSON.stringify(entries))),
        assemble,
        /** How the last `assemble` crossed: history messages kept from the previous request and
         * sent, replacements the core referred to instead of sending them again, and turn
         * explanations it repeated from the previous response. */
        lastTransfer: () => transfer,
        topics: () => j(() => s.topics()),
        setSummaries: (m) => call(() => s.setSummaries(JSON.stringify(m))),
        setSubtopics: (m) => call(() => s.setSubtopics(JSON.stringify(m))),
        setFolded: (ids) => call(() => s.setFolded(JSON.stringify(ids))),
        folded: () => j(() => s.foldedJson()),
        setPins: (p) => call(() => s.setPins(JSON.stringify(p))),
        setMerged: (ids) => call(() => s.setMerged(JSON.stringify(ids))),
        heuristicSubtopics: () => j(() => s.heuristicSubtopics()),
        free: () => s.free(),
      };
    },
    /**
     * Chooses old turns to prune: `{messages, strategy: "fifo"|"sliding-window"|"importance",
     * keepMessages?, targetTokens?, maxTurns?, protectRecentTurns?, preserveSystemMessages?,
     * pins?, idsByKey?, turnTokens?, exclude?}` → `{pruned, turnIds, messages, steps,
     * tokensBefore, tokensAfter, targetMet, skipped, ...}`.
     */
    prune(request) {
      return call(() => JSON.parse(glue.prune(JSON.stringify(request))));
    },
  };
  function call(fn) {
    if (core.poisoned) throw new Error("contextfold core instance is unusable after an earlier crash");
    try {
      return fn();
    } catch (err) {
      // A trap (panic) leaves the instance in an unknown state: the loader replaces it.
      if (err instanceof WebAssembly.RuntimeError) core.poisoned = true;
      throw err;
    }
  }
  return core;
}

/** Replacement messages a live session keeps between requests (a plan's steps refer to them). */
const KEPT = new WeakSet();

/**
 * Builds the output array from a plan, reusing the caller's objects for kept messages (so
 * they stay byte-identical for the provider's prompt cache). Replacements a live session
 * keeps between requests (`KEPT`) are copied: the host may change what it is given.
 * @param {object[]} messages
 * @param {Step[]} steps
 */
export function applySteps(messages, steps) {
  return steps.map((s) => (s.message === undefined ? messages[s.source] : KEPT.has(s.message) ? copyJson(s.message) : s.message));
}

/** A deep copy of a JSON value (objects, arrays, strings, numbers, booleans, null). */
export function copyJson(v) {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out = {};
  for (const k of Object.keys(v)) out[k] = copyJson(v[k]);
  return out;
}

/**
 * The one log line per cleaned request, with the seed's fields in the seed's order:
 * `[contextfold] session=<key> 108→74 msgs 70200→4964 tok (-65236) cleanedRC=0 cleanedThink=44 dropTool=34 dropAsstTC=0`
 * @param {string} sessionKey
 * @param {CleanStats} s
 */
export function formatLogLine(sessionKey, s) {
  const saved = s.tokensAfter - s.tokensBefore;
  return (
    `[contextfold] session=${sessionKey} ${s.messagesBefore}→${s.messagesAfter} msgs ` +
    `${s.tokensBefore}→${s.tokensAfter} tok (${saved}) ` +
    `cleanedRC=${s.cleanedRC} cleanedThink=${s.cleanedThink} dropTool=${s.dropTool} dropAsstTC=${s.dropAsstTC}`
  );
}

/** The over-budget note: the one spelling of the log, the CLI and the playground. */
export const OVER_BUDGET_NOTE = "over-budget: the protected recent turns alone exceed the budget";

/**
 * The one line per model request, the same words in the gateway log, the CLI's `assemble` and
 * the playground: the cleaner's fields (`formatLogLine`), then ` folded=N truncated=M budget=B`
 * when folding changed something, then the over-budget note (after the budget) when the
 * protected recent turns alone exceed it.
 * @param {string} sessionKey
 * @param {{clean: CleanStats, stubbed: number, summarized: number, truncated: number, budget: number, overBudget: boolean}} stats
 *   the stats of a budgeted assemble
 */
export function formatRequestLine(sessionKey, stats) {
  const folded = stats.stubbed + stats.summarized;
  const budget = ` budget=${stats.budget}`;
  const fold = folded + stats.truncated > 0 ? ` folded=${folded} truncated=${stats.truncated}${budget}` : stats.overBudget ? budget : "";
  return formatLogLine(sessionKey, stats.clean) + fold + (stats.overBudget ? ` ${OVER_BUDGET_NOTE}` : "");
}

/** True when a request is worth its line: something was cleaned or folded, or it is over budget. */
export function worthLogging(stats) {
  return changed(stats.clean) || stats.stubbed + stats.summarized + stats.truncated > 0 || Boolean(stats.overBudget);
}

/** True when the cleaner changed anything (the log line is written only then). */
export function changed(s) {
  return s.cleanedRC + s.cleanedThink + s.dropTool + s.dropAsstTC + s.droppedCalls + s.droppedEmpty + s.mergedText > 0;
}

/** A rough estimate that needs no wasm (used only when the core itself failed). */
export function roughTokens(messages) {
  try {
    return Math.ceil(JSON.stringify(messages).length / 4);
  } catch {
    return 0;
  }
}

/**
 * True when two JSON-like values are equal, key order included (what JSON.stringify would
 * tell, without building the strings).
 */
export function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const array = Array.isArray(a);
  if (array !== Array.isArray(b)) return false;
  if (array) {
    const n = a.length;
    if (n !== b.length) return false;
    for (let i = 0; i < n; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  // `b`'s keys in order against `a`'s (one key array instead of two: this runs on every
  // message of every request).
  const ka = Object.keys(a);
  let n = 0;
  for (const k in b) {
    if (ka[n] !== k || !sameJson(a[k], b[k])) return false;
    n++;
  }
  return n === ka.length;
}

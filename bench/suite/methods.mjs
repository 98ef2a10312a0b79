// The methods the benchmarks compare, and how each one turns a message list into an output
// plan. Engine methods run through the core's live-session API: the index and topics are
// built once per session and config, then each request is planned with the sticky fold
// decisions cleared first, which is exactly what `assembleOnce` does per call (the `--fast`
// checks assert that both give identical bytes).
import { engine, identitySteps, recencySteps, estimates } from "./common.mjs";

/**
 * key → { label, kind, config?, prompt }. `prompt`: whether the method reads the upcoming
 * prompt (then it is run focused and agnostic).
 */
export const METHODS = {
  passthrough: { label: "pass-through", kind: "passthrough", prompt: false },
  recency: { label: "recency", kind: "recency", prompt: false },
  clean: { label: "clean", kind: "engine", config: { mode: "clean" }, prompt: false },
  fold: { label: "fold", kind: "engine", config: {}, prompt: true },
  // The other value of foldOtherTopics than the engine's default (see topicAlternative).
  foldOtherOn: { label: "fold, foldOtherTopics on", kind: "engine", config: { foldOtherTopics: true }, prompt: true },
  foldOtherOff: { label: "fold, foldOtherTopics off", kind: "engine", config: { foldOtherTopics: false }, prompt: true },
  foldKeepTools: { label: "fold, tool results kept", kind: "engine", config: { dropToolResults: false }, prompt: true },
  // As fold, but every turn already has its extractive summary in the cache, as in a
  // long-lived session whose background step has caught up (the one-shot methods above have
  // no summaries, so for them only stubs and short asks can carry an answer for soft recall).
  foldSummaries: { label: "fold, all turns summarized", kind: "engine", config: {}, prompt: true, summaries: true },
};

/** The foldOtherTopics method that differs from the engine's default. */
export const topicAlternative = (defaults) => (defaults?.foldOtherTopics ? "foldOtherOff" : "foldOtherOn");

/** Every fold method, in report order. */
export const FOLD_METHODS = ["fold", "foldOtherOn", "foldOtherOff", "foldKeepTools", "foldSummaries"];
export const METHOD_ORDER = ["passthrough", "recency", "clean", ...FOLD_METHODS];

const SUMMARY_TOKENS = 120;

/** Short labels for tables and the plot. */
export const methodLabel = (key, mode) => `${METHODS[key].label}${METHODS[key].prompt ? (mode === "focused" ? " (focused)" : " (agnostic)") : ""}`;

/** The core's extractive summary of every turn (ids and ranges from an unbudgeted plan). */
function summarizeAll(core, s, messages) {
  const r = s.assemble({ messages, budget: 1_000_000_000 });
  s.setFolded([]);
  const out = {};
  for (const t of r.turns) out[t.id] = core.summarize(t.id, messages.slice(t.range[0], t.range[1]), SUMMARY_TOKENS);
  return out;
}

/**
 * A planner for one session: `plan(method, {prompt, budget})` → `{steps, result?}` where
 * `result` is the engine's whole answer (turns, stats, fallback) for engine methods.
 */
export async function planner(session) {
  const { core } = await engine();
  const est = estimates(core, session.messages);
  const sessions = new Map();
  const live = (key) => {
    let s = sessions.get(key);
    if (!s) {
      s = core.newSession(METHODS[key].config);
      s.rebuild(session.entries);
      if (METHODS[key].summaries) s.setSummaries(summarizeAll(core, s, session.messages));
      sessions.set(key, s);
    }
    return s;
  };
  return {
    est,
    core,
    plan(key, { prompt = null, budget }) {
      const m = METHODS[key];
      if (m.kind === "passthrough") return { steps: identitySteps(session.messages.length) };
      if (m.kind === "recency") return { steps: recencySteps(session.messages, est, budget) };
      const s = live(key);
      s.setFolded([]);
      const { newlyFolded, fallback, ...plan } = s.assemble({ messages: session.messages, prompt: m.prompt ? prompt : null, budget });
      // No turn was folded before this request (`setFolded([])`), so the turns it folded anew
      // are all it folded: the one-shot result's `folded`, in its place among the keys.
      const result = { ...plan, folded: newlyFolded, ...(fallback === undefined ? {} : { fallback }) };
      return { steps: result.steps, result };
    },
    /** The same request through the one-shot entry point (a fresh index every call). */
    once(key, { prompt = null, budget }) {
      const m = METHODS[key];
      return core.assembleOnce({ messages: session.messages, entries: session.entries, prompt: m.prompt ? prompt : null, budget, config: m.config });
    },
    free() {
      for (const s of sessions.values()) s.free();
      sessions.clear();
    },
  };
}

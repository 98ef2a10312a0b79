// Deterministic OpenClaw session transcripts (JSONL, format v4) of any length, for the soak
// run and the transcript tests. Same arguments, same bytes.
//
// A turn is a user prompt and the agent's answer. Every third turn reads or runs something
// (assistant with thinking and a tool call, the tool result, the final answer); every
// seventh runs two tools in parallel; the rest answer directly, with thinking. The subject
// changes every 25 turns, so the topic segmenter has something to find.

/** mulberry32: a small seeded PRNG. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SUBJECTS = [
  ["ledger", "rounding", "cents", "invoice", "balance"],
  ["parser", "tokenizer", "grammar", "syntax", "lexer"],
  ["deploy", "kubernetes", "container", "rollout", "cluster"],
  ["database", "migration", "index", "postgres", "query"],
  ["frontend", "react", "component", "layout", "styles"],
  ["auth", "login", "token", "session", "password"],
  ["cache", "eviction", "latency", "redis", "ttl"],
  ["tests", "fixture", "flaky", "coverage", "assertion"],
];
const VERBS = ["explain", "fix", "check", "refactor", "speed up", "document", "review", "trace"];
const TOOLS = ["read", "exec", "grep", "write"];

const T0 = Date.parse("2026-11-02T09:00:00Z");

/**
 * The lines of a generated session, one at a time (no trailing newlines).
 * @param {object} o
 * @param {number} o.turns
 * @param {number} [o.seed]
 * @param {string} [o.sessionId]
 * @param {number} [o.resultChars] characters of a tool result (before per-line variation)
 * @returns {Generator<string>}
 */
export function* sessionLines({ turns, seed = 1, sessionId = `soak-${turns}`, resultChars = 600 }) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  let n = 0;
  let parent = null;
  let callN = 0;
  const iso = (k) => new Date(T0 + k * 1000).toISOString();
  const entry = (obj) => {
    const id = `e${(++n).toString(36).padStart(6, "0")}`;
    const line = JSON.stringify({ type: obj.type, id, parentId: parent, timestamp: iso(n), ...obj });
    parent = id;
    return line;
  };
  const message = (m) => entry({ type: "message", message: { ...m, timestamp: T0 + (n + 1) * 1000 } });
  const assistant = (content, stopReason) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "deepseek",
    model: "deepseek-v4-pro",
    usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1100 },
    stopReason,
  });
  const think = (s) => ({ type: "thinking", thinking: s, thinkingSignature: "" });

  yield JSON.stringify({ type: "session", version: 4, id: sessionId, timestamp: iso(0), cwd: "/home/dev/project" });
  yield entry({ type: "model_change", provider: "deepseek", modelId: "deepseek-v4-pro" });
  for (let t = 0; t < turns; t++) {
    const words = SUBJECTS[Math.floor(t / 25) % SUBJECTS.length];
    const w = () => pick(words);
    yield message({
      role: "user",
      content: [{ type: "text", text: `Turn ${t}: please ${pick(VERBS)} the ${w()} ${w()} code; it touches ${w()} and ${w()}.` }],
    });
    const kind = t % 7 === 6 ? "parallel" : t % 3 === 2 ? "tool" : "plain";
    if (kind !== "plain") {
      const calls = (kind === "parallel" ? [0, 1] : [0]).map(() => {
        const name = pick(TOOLS);
        return { type: "toolCall", id: `call_${(++callN).toString(36)}`, name, arguments: { path: `src/${w()}.rs`, turn: t } };
      });
      yield message(assistant([think(`I should look at the ${w()} before answering about ${w()}.`), ...calls], "toolUse"));
      for (const c of calls) {
        const body = Array.from(
          { length: Math.max(1, Math.round(resultChars / 60)) },
          (_, i) => `${c.name} ${w()} line ${i}: ${w()}=${Math.floor(r() * 1e6)}`,
        ).join("\n");
        yield message({ role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: body }], isError: r() < 0.05 });
      }
    }
    yield message(
      assistant(
        [
          think(`The ${w()} question is about ${w()}; answer briefly.`),
          { type: "text", text: `Done with turn ${t}: the ${w()} ${w()} now handles ${w()} (${Math.floor(r() * 1000)} cases).` },
        ],
        "stop",
      ),
    );
  }
}

/** The whole session as one string (lines joined, trailing newline). */
export function sessionText(o) {
  let s = "";
  for (const line of sessionLines(o)) s += line + "\n";
  return s;
}

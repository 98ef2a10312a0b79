// Writes samples/session.jsonl: a built-in OpenClaw session (transcript format v4) of a
// coding agent over several turns, with thinking blocks, sequential and parallel tool calls,
// an error result and large tool output. Deterministic: same bytes on every run.
// usage: node samples/generate-session.mjs > samples/session.jsonl
let seq = 0;
let parent = null;
const t0 = Date.parse("2026-11-02T09:00:00Z");
const out = [];
const iso = (ms) => new Date(ms).toISOString();
function entry(obj) {
  const id = `e${String(++seq).padStart(4, "0")}`;
  out.push({ type: obj.type, id, parentId: parent, timestamp: iso(t0 + seq * 7000), ...obj });
  parent = id;
  return id;
}
const usage = (input, output) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const asst = (content, stopReason, u = [1200, 180]) => ({
  role: "assistant",
  content,
  api: "openai-completions",
  provider: "deepseek",
  model: "deepseek-v4-pro",
  usage: usage(...u),
  stopReason,
  timestamp: t0 + (seq + 1) * 7000,
});
let callN = 0;
const call = (name, args) => ({ type: "toolCall", id: `call_${String(++callN).padStart(2, "0")}`, name, arguments: args });
const result = (c, text, isError = false) => ({
  role: "toolResult",
  toolCallId: c.id,
  toolName: c.name,
  content: [{ type: "text", text }],
  isError,
  timestamp: t0 + (seq + 1) * 7000,
});
const think = (s) => ({ type: "thinking", thinking: s, thinkingSignature: "" });
const user = (text) => entry({ type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: t0 + (seq + 1) * 7000 } });
const msg = (m) => entry({ type: "message", message: m });

const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n");
const rustFile = lines(120, (i) =>
  i % 10 === 1
    ? `/// Parses record ${i} of the ledger.`
    : i % 10 === 2
      ? `pub fn parse_${i}(input: &str) -> Result<Record, ParseError> {`
      : i % 10 === 9
        ? "}"
        : `    let field_${i} = input.split(',').nth(${i % 7}).ok_or(ParseError::Missing(${i}))?;`,
);
const testOut =
  lines(80, (i) => `test ledger::tests::case_${i} ... ${i === 57 ? "FAILED" : "ok"}`) +
  "\n\nfailures:\n---- ledger::tests::case_57 stdout ----\nthread 'ledger::tests::case_57' panicked at src/ledger.rs:212:9:\nassertion `left == right` failed\n  left: 1999\n right: 2000\n\ntest result: FAILED. 79 passed; 1 failed; 0 ignored";
const grepOut = lines(40, (i) => `src/ledger.rs:${200 + i}:    let amount_${i} = cents / 100; // rounding`);
const logOut = lines(150, (i) => `2026-11-02T08:${String(i % 60).padStart(2, "0")}:00Z INFO ledger import batch=${i} rows=${1000 + i * 3} ok`);

entry({ type: "session", version: 4, cwd: "/home/dev/ledger" });
out[0] = { type: "session", version: 4, id: "sample-ledger-session", timestamp: iso(t0), cwd: "/home/dev/ledger" };
parent = null;
entry({ type: "model_change", provider: "deepseek", modelId: "deepseek-v4-pro" });
entry({ type: "thinking_level_change", thinkingLevel: "medium" });

// Turn 1: read a file, explain.
user("What does src/ledger.rs do? Keep it short.");
const c1 = call("read", { path: "src/ledger.rs" });
msg(
  asst(
    [
      think("The user wants an overview of the ledger module. I should read the file first before answering; it is probably the parser for CSV ledger rows."),
      c1,
    ],
    "toolUse",
  ),
);
msg(result(c1, rustFile));
msg(
  asst(
    [
      think("The file defines parse_N functions that split CSV input and map missing fields to ParseError::Missing. I will summarise in two sentences."),
      {
        type: "text",
        text: "src/ledger.rs parses comma-separated ledger records: each `parse_N` function splits a line and returns a `Record`, reporting a missing column as `ParseError::Missing(column)`.",
      },
    ],
    "stop",
  ),
);

// Turn 2: run tests (one failure), parallel grep + read.
user("Run the tests and tell me what fails.");
const c2 = call("exec", { command: "cargo test --quiet" });
msg(asst([think("Run the test suite with cargo test and look at failures."), c2], "toolUse"));
msg(result(c2, testOut));
const c3 = call("grep", { pattern: "cents / 100", path: "src/" });
const c4 = call("read", { path: "src/ledger.rs", offset: 200, limit: 40 });
msg(
  asst(
    [
      think("case_57 expects 2000 but got 1999: integer division while converting cents. Look for the division and read around line 212 in parallel."),
      { type: "text", text: "One test fails (case_57: 1999 vs 2000). Looking at the rounding code." },
      c3,
      c4,
    ],
    "toolUse",
  ),
);
msg(result(c3, grepOut));
msg(
  result(
    c4,
    lines(40, (i) => `${200 + i}: let amount_${i} = cents / 100;`),
  ),
);
msg(
  asst(
    [
      think(
        "The amounts are computed with integer division cents / 100 which truncates; 199999 cents / 100 = 1999 instead of rounding. Should use (cents + 50) / 100 or keep cents as integers.",
      ),
      {
        type: "text",
        text: "`ledger::tests::case_57` fails: amounts are converted with integer division (`cents / 100`, src/ledger.rs:212), which truncates 199999 cents to 1999. Rounding or keeping integer cents fixes it.",
      },
    ],
    "stop",
  ),
);

// Turn 3: fix it; an edit fails once, then succeeds, then re-run tests.
user("Fix it by keeping amounts in integer cents, then rerun the tests.");
const c5 = call("edit", { path: "src/ledger.rs", old: "let amount = cents / 100;", new: "let amount_cents = cents;" });
msg(asst([think("Edit line 212 to keep cents."), c5], "toolUse"));
msg(result(c5, "edit failed: old text not found in src/ledger.rs (did you mean `let amount_12 = cents / 100;`?)", true));
const c6 = call("edit", { path: "src/ledger.rs", old: "let amount_12 = cents / 100;", new: "let amount_12_cents = cents;" });
msg(asst([think("Use the exact text from the error hint."), c6], "toolUse"));
msg(result(c6, "edited src/ledger.rs: 1 replacement"));
const c7 = call("exec", { command: "cargo test --quiet" });
msg(asst([think("Now rerun the tests."), c7], "toolUse"));
msg(result(c7, lines(80, (i) => `test ledger::tests::case_${i} ... ok`) + "\n\ntest result: ok. 80 passed; 0 failed; 0 ignored"));
msg(
  asst(
    [
      think("All 80 pass now. Report back."),
      { type: "text", text: "Fixed: src/ledger.rs:212 now keeps the amount in integer cents (`amount_12_cents`). All 80 tests pass." },
    ],
    "stop",
  ),
);
entry({ type: "custom", customType: "openclaw.cache-ttl", data: { ttlSeconds: 300 } });

// Turn 4: a question answered from memory, no tools.
user("Why integer cents rather than f64?");
msg(
  asst(
    [
      think("Explain floating point representation issues for currency."),
      {
        type: "text",
        text: "Binary floating point cannot represent most decimal fractions exactly (0.1 + 0.2 != 0.3), so sums of f64 amounts drift by fractions of a cent; integer cents are exact and compare reliably.",
      },
    ],
    "stop",
  ),
);

// Turn 5: look at import logs.
user("Check yesterday's import log for errors.");
const c8 = call("read", { path: "logs/import-2026-11-01.log" });
msg(asst([think("Read the log file and scan for ERROR lines."), c8], "toolUse"));
msg(result(c8, logOut));
msg(
  asst(
    [think("All 150 batches report ok; no ERROR lines."), { type: "text", text: "The import log for 2026-11-01 has 150 batches, all `ok`; no errors." }],
    "stop",
  ),
);

process.stdout.write(out.map((o) => JSON.stringify(o)).join("\n") + "\n");

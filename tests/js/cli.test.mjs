// The packaged CLI on the built-in sample and on bad input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cli, SAMPLE, conversation } from "./helpers.mjs";

test("clean --json on the sample session: what the model sees and the seed's log line", () => {
  const r = cli(["clean", SAMPLE, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const { messages, stats } = JSON.parse(r.stdout);
  assert.match(
    r.stderr,
    /^\[contextfold\] session=sample-ledger-session 25→10 msgs \d+→\d+ tok \(-\d+\) cleanedRC=0 cleanedThink=11 dropTool=8 dropAsstTC=6$/m,
  );
  assert.equal(messages.length, stats.messagesAfter);
  const before = messages.slice(0, -1);
  assert.ok(
    before.every((m) => m.role !== "toolResult"),
    "no completed tool results",
  );
  assert.ok(
    before.every((m) => !JSON.stringify(m.content).includes('"thinking"')),
    "no thinking before the frontier",
  );
  const last = messages.at(-1);
  assert.equal(last.content[0].type, "thinking", "the frontier message is untouched");
  assert.ok(stats.tokensAfter < stats.tokensBefore * 0.1);
});

test("the human view lists before and after", () => {
  const r = cli(["clean", SAMPLE]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^before: 25 messages/m);
  assert.match(r.stdout, /^after \(what the model sees\): 10 messages/m);
});

test("stdin, JSON arrays, OpenAI and Anthropic request bodies", () => {
  const arr = cli(["clean", "-", "--json"], JSON.stringify(conversation()));
  assert.equal(arr.code, 0, arr.stderr);
  assert.equal(JSON.parse(arr.stdout).messages.length, 4);

  const openai = {
    model: "x",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "need the tool",
        tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "rain" },
      { role: "assistant", content: "It rains.", reasoning_content: "tool said rain" },
      { role: "user", content: "thanks" },
    ],
  };
  const o = cli(["clean", "-", "--json", "--format", "openai"], JSON.stringify(openai));
  assert.equal(o.code, 0, o.stderr);
  const om = JSON.parse(o.stdout).messages;
  assert.deepEqual(
    om.map((m) => m.role),
    ["system", "user", "assistant", "user"],
  );
  assert.equal(om[2].reasoning_content, undefined);
  assert.match(o.stderr, /cleanedRC=2 cleanedThink=0 dropTool=1 dropAsstTC=1/);

  const anthropic = {
    system: "be brief",
    messages: [
      { role: "user", content: "list files" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "use ls", signature: "s1" },
          { type: "tool_use", id: "t1", name: "ls", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a b c" }] },
      { role: "assistant", content: [{ type: "text", text: "a, b and c" }] },
      { role: "user", content: "ok" },
    ],
  };
  const a = cli(["clean", "-", "--json"], JSON.stringify(anthropic));
  assert.equal(a.code, 0, a.stderr);
  assert.deepEqual(
    JSON.parse(a.stdout).messages.map((m) => m.role),
    ["user", "assistant", "user"],
  );
});

test("malformed input: clear errors naming the line; a truncated last line is skipped", () => {
  const text = readFileSync(SAMPLE, "utf8").split("\n");
  const bad = [...text.slice(0, 5), "{not json", ...text.slice(5)].join("\n");
  const r = cli(["clean", "-"], bad);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /stdin:6: invalid JSON line/);

  const truncated = text.slice(0, 12).join("\n") + "\n" + text[12].slice(0, 40);
  const t = cli(["clean", "-", "--json"], truncated);
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stderr, /warning: stdin:13: truncated final line skipped/);

  const u = cli(["clean", "-"], "hello world");
  assert.equal(u.code, 1);
  assert.match(u.stderr, /cannot tell the input format/);
  const f = cli(["clean", "-", "--format", "yaml"], "[]");
  assert.equal(f.code, 1);
  assert.match(f.stderr, /unknown format "yaml"/);
  const usage = cli(["frobnicate"]);
  assert.equal(usage.code, 2);
});

test("the built-in samples are what their generators write", async () => {
  const { execFileSync } = await import("node:child_process");
  const { ROOT } = await import("./helpers.mjs");
  for (const [gen, file] of [
    ["generate-session.mjs", "session.jsonl"],
    ["generate-multitopic.mjs", "multitopic.jsonl"],
  ]) {
    const out = execFileSync(process.execPath, [`${ROOT}/samples/${gen}`], { encoding: "utf8" });
    assert.equal(out, readFileSync(`${ROOT}/samples/${file}`, "utf8"), file);
  }
});

test("assemble folds other topics into stubs and fits the budget; recover returns the transcript bytes", () => {
  const file = SAMPLE.replace("session.jsonl", "multitopic.jsonl");
  const r = cli(["assemble", file, "--json", "--budget", "600", "--prompt", "And how long does the whole Alta Via 1 take?"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.ok(out.estimatedTokens <= 600, `${out.estimatedTokens}`);
  const stubbed = out.turns.filter((t) => t.decision === "stubbed");
  assert.ok(stubbed.length >= 3);
  const text = JSON.stringify(out.messages);
  assert.match(text, /\[folded: [^\]]*dough \/ leva/);
  assert.ok(!text.includes("levain at its peak"), "the folded turns' text is gone");
  // the folded turn comes back byte for byte
  const id = stubbed[0].id;
  const rec = cli(["recover", file, id]);
  assert.equal(rec.code, 0, rec.stderr);
  const lines = readFileSync(file, "utf8").split("\n");
  const start = lines.findIndex((l) => l.includes(`"id":"${id}"`));
  assert.equal(rec.stdout, lines.slice(start, start + rec.stdout.trimEnd().split("\n").length).join("\n") + "\n");
});

test("the multi-topic sample: four topics of at least two turns, the return to the trip its own topic", () => {
  const file = SAMPLE.replace("session.jsonl", "multitopic.jsonl");
  const r = cli(["topics", file, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const { topics } = JSON.parse(r.stdout);
  // hike ×3, bread ×3, script ×3, then "Back to the Dolomites trip…" and the huts to book
  const of = topics.flatMap((t) => Array.from({ length: t.lastTurn - t.firstTurn + 1 }, () => t.id));
  assert.deepEqual(of, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3], JSON.stringify(topics));
  assert.ok(
    topics.every((t) => t.turns >= 2),
    "no topic under minTurnsPerTopic (2)",
  );
});

test("the demo's fold brings the hike back: the prompt about the trip keeps its turns, other topics fold", () => {
  // The command scripts/demo.sh runs.
  const demo = readFileSync(new URL("../../scripts/demo.sh", import.meta.url), "utf8");
  const [, budget, prompt] = demo.match(/assemble samples\/multitopic\.jsonl --budget (\d+) --prompt "([^"]+)"/);
  const file = SAMPLE.replace("session.jsonl", "multitopic.jsonl");
  const r = cli(["assemble", file, "--json", "--budget", budget, "--prompt", prompt]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.ok(out.estimatedTokens <= Number(budget), `${out.estimatedTokens}`);
  const hike = out.turns.slice(0, 3);
  assert.ok(
    hike.every((t) => t.decision !== "stubbed"),
    hike.map((t) => `${t.id} ${t.decision}`).join(", "),
  );
  assert.ok(
    out.turns.slice(3, 6).some((t) => t.decision === "stubbed"),
    "the bread turns fold",
  );
});

test("recover pages count from 1; a page past the end or page 0 is refused", () => {
  const file = SAMPLE.replace("session.jsonl", "multitopic.jsonl");
  const index = JSON.parse(cli(["index", file, "--json"]).stdout);
  const id = index.turns[0].id;
  const whole = cli(["recover", file, id]);
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(whole.stderr, /page 1 of 1/);
  const first = cli(["recover", file, id, "--page", "1"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, whole.stdout, "--page 1 is the first page");
  assert.match(first.stderr, /page 1 of 1/);
  assert.equal(JSON.parse(cli(["recover", file, id, "--page", "1", "--json"]).stdout).page, 1);
  const past = cli(["recover", file, id, "--page", "2"]);
  assert.equal(past.code, 1);
  assert.equal(past.stdout, "");
  assert.match(past.stderr, /has 1 page\(s\) of 50 entries; --page 2 is past the last/);
  const zero = cli(["recover", file, id, "--page", "0"]);
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /--page counts from 1/);
});

test("assemble's stderr line: the request line of the log, with folding fields only when something folded", () => {
  const plain = cli(["assemble", SAMPLE, "--json"]);
  assert.equal(plain.code, 0, plain.stderr);
  const line = plain.stderr.split("\n").find((l) => l.startsWith("[contextfold]"));
  // Within the budget, mode fold keeps tool results (the budget has room for them): only the
  // thinking of finished turns goes (not on tool-call messages, which keep it for the provider).
  assert.match(line, /^\[contextfold\] session=sample-ledger-session 25→25 msgs \d+→\d+ tok \(-\d+\) cleanedRC=0 cleanedThink=4 dropTool=0 dropAsstTC=0$/);
  const file = SAMPLE.replace("session.jsonl", "multitopic.jsonl");
  const folded = cli(["assemble", file, "--json", "--budget", "600"]);
  assert.match(folded.stderr, /dropAsstTC=\d+ folded=[1-9]\d* masked=\d+ truncated=\d+ budget=600 replanned$/m);
  // over budget: everything but the newest turn (a live tool loop here) folds; the one note
  const over = cli(["assemble", SAMPLE, "--json", "--budget", "256"]);
  assert.match(over.stderr, /dropAsstTC=0 folded=4 masked=0 truncated=0 budget=256 replanned over-budget: the newest turn alone exceeds the budget$/m);
  assert.doesNotMatch(over.stderr, /OVER-BUDGET|folded=0/);
});

// `contextfold replay`: what a user sees when they ask what the engine would save on their own
// sessions (the packaged CLI, driving the plugin's adapter), and the playground's replay path
// against it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, PKG, SAMPLE } from "./helpers.mjs";

const MULTITOPIC = SAMPLE.replace("session.jsonl", "multitopic.jsonl");
const core = await (await import(path.join(PKG, "js", "core", "node.js"))).loadCore();
const tokens = (msgs) => msgs.reduce((n, m) => n + core.estimateTokens([m]), 0);
const activeMessages = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "message")
    .map((e) => e.message);

function replay(args) {
  const r = cli(["replay", ...args, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("replay --json: one request per user turn with the engine's messages, and the summary of all three methods", () => {
  const { requests, summary } = replay([SAMPLE, "--budget", "1000"]);
  const messages = activeMessages(SAMPLE);
  const userTurns = messages.flatMap((m, i) => (m.role === "user" && i > 0 ? [i] : []));
  assert.deepEqual(
    requests.map((r) => r.turn),
    userTurns,
    "each request names the index of its user message in the active branch",
  );
  for (const r of requests) {
    assert.ok(Array.isArray(r.messages) && r.messages.length > 0);
    assert.ok(!r.messages.some((m) => JSON.stringify(m) === JSON.stringify(messages[r.turn])), "the prompt is not among the messages");
  }
  assert.equal(summary.requests, requests.length);
  assert.equal(summary.budget, 1000);
  assert.deepEqual(Object.keys(summary.methods), ["contextfold", "passThrough", "recency"]);
  assert.deepEqual(Object.keys(summary.prices), ["anthropic", "openai", "deepseek"]);
  for (const m of Object.values(summary.methods)) {
    assert.equal(m.perRequest.length, requests.length);
    assert.deepEqual(Object.keys(m.cost), ["anthropic", "openai", "deepseek"]);
    for (const k of ["mean", "max", "total"]) assert.equal(typeof m.tokens[k], "number");
  }
  // The engine's figures are those of the messages it returned.
  assert.deepEqual(
    summary.methods.contextfold.perRequest.map((q) => q.tokens),
    requests.map((r) => tokens(r.messages)),
  );
  // The cleaner alone already sends far less than the whole history on this sample.
  assert.ok(summary.methods.contextfold.tokens.total < summary.methods.passThrough.tokens.total / 5);
});

test("pass-through reuses the whole previous request on an append-only session; the engine stays within the budget", () => {
  const budget = 1000;
  const { requests, summary } = replay([MULTITOPIC, "--budget", String(budget)]);
  const pass = summary.methods.passThrough;
  assert.equal(pass.meanReuse, 1);
  assert.equal(pass.breaks, 0);
  assert.ok(pass.perRequest.slice(1).every((q) => q.appendOnly && q.reuse === 1));
  assert.ok(pass.overBudget > 0, "the whole history does not fit this budget");
  for (const r of requests) assert.ok(tokens(r.messages) <= budget, `request at turn ${r.turn}: ${tokens(r.messages)} tokens for a budget of ${budget}`);
  assert.equal(summary.methods.contextfold.overBudget, 0);
  for (const q of summary.methods.recency.perRequest) assert.ok(q.tokens <= budget);
});

test("every prefix break is counted where the request stops repeating the previous one, with a documented cause", () => {
  for (const budget of [300, 700]) {
    const { requests, summary } = replay([MULTITOPIC, "--budget", String(budget)]);
    const rows = summary.methods.contextfold.perRequest;
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    for (let j = 1; j < requests.length; j++) {
      const prev = requests[j - 1].messages;
      const cur = requests[j].messages;
      let k = 0;
      while (k < prev.length && k < cur.length && same(prev[k], cur[k])) k++;
      assert.equal(rows[j].appendOnly, k === prev.length, `request ${j}`);
      assert.equal(rows[j].break?.index, k === prev.length ? undefined : k, `request ${j}`);
      if (rows[j].break) assert.ok(summary.breakReasons[rows[j].break.reason], `undocumented cause ${rows[j].break.reason}`);
      // What each provider reads from its cache: OpenAI and DeepSeek the shared prefix,
      // Anthropic the previous request only when it is repeated whole.
      const common = tokens(cur.slice(0, k));
      assert.equal(rows[j].billed.openai.read, common);
      assert.equal(rows[j].billed.deepseek.read, common);
      assert.equal(rows[j].billed.anthropic.read, k === prev.length ? tokens(prev) : 0);
      assert.equal(rows[j].billed.anthropic.written, tokens(cur) - rows[j].billed.anthropic.read);
    }
    assert.ok(
      rows.some((q) => q.break && q.commonTokens > 0),
      "a break that still shares a prefix (the case where the rules differ)",
    );
    assert.equal(summary.methods.contextfold.breaks, rows.filter((q) => q.break).length);
  }
});

test("costs follow each preset's cache rule on a hand-made session", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cf-replay-"));
  const file = path.join(dir, "tiny.jsonl");
  const said = [
    "Which river runs through Lyon?",
    "The Rhône, joined there by the Saône.",
    "And through Prague?",
    "The Vltava.",
    "And Budapest?",
    "The Danube.",
    "Thanks!",
  ];
  /** @type {Record<string, any>[]} */
  const lines = [{ type: "session", version: 4, id: "tiny", timestamp: "2026-01-01T00:00:00.000Z" }];
  said.forEach((text, i) => {
    const message = { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }], timestamp: 1_767_225_600_000 + i * 1000 };
    lines.push({ type: "message", id: `e${i + 1}`, parentId: i ? `e${i}` : null, timestamp: new Date(message.timestamp).toISOString(), message });
  });
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const messages = lines.slice(1).map((l) => l.message);
  const t = messages.map((m) => tokens([m]));
  const upto = (n) => t.slice(0, n).reduce((a, b) => a + b, 0);

  // A budget that holds everything: the engine sends the history as it is, like pass-through.
  const roomy = replay([file, "--budget", "100000"]);
  assert.deepEqual(
    roomy.requests.map((r) => r.turn),
    [2, 4, 6],
  );
  const sizes = [upto(2), upto(4), upto(6)];
  const p = roomy.summary.prices;
  // OpenAI and DeepSeek: the prefix shared with the previous request at the cached rate, the rest as input.
  const prefix = (rate) =>
    (sizes[0] * rate.input + sizes[0] * rate.cacheRead + (sizes[1] - sizes[0]) * rate.input + sizes[1] * rate.cacheRead + (sizes[2] - sizes[1]) * rate.input) /
    1e6;
  // Anthropic: the previous request read whole from the cache, the rest written.
  const breakpoint = (rate) =>
    (sizes[0] * rate.cacheWrite +
      sizes[0] * rate.cacheRead +
      (sizes[1] - sizes[0]) * rate.cacheWrite +
      sizes[1] * rate.cacheRead +
      (sizes[2] - sizes[1]) * rate.cacheWrite) /
    1e6;
  const close = (a, b) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${a} ≠ ${b}`);
  for (const m of ["contextfold", "passThrough", "recency"]) {
    const c = roomy.summary.methods[m].cost;
    close(c.openai.usd, prefix(p.openai));
    close(c.deepseek.usd, prefix(p.deepseek));
    close(c.anthropic.usd, breakpoint(p.anthropic));
    assert.equal(c.anthropic.read, sizes[0] + sizes[1]);
    assert.equal(c.anthropic.written, sizes[2]);
    assert.equal(c.openai.input, sizes[2]);
    assert.equal(c.openai.written, 0);
  }
  assert.equal(roomy.summary.methods.contextfold.cost.openai.vsPassThrough, 1);
  // The same conversation as a plain JSON array of messages on stdin: the same requests and costs.
  const piped = cli(["replay", "-", "--budget", "100000", "--json"], JSON.stringify(messages));
  assert.equal(piped.code, 0, piped.stderr);
  const fromArray = JSON.parse(piped.stdout);
  assert.deepEqual(fromArray.requests, roomy.requests);
  assert.deepEqual(fromArray.summary.methods.contextfold.cost, roomy.summary.methods.contextfold.cost);

  // A budget that holds one exchange but not two: the recency window keeps only the last
  // exchange, so no request repeats the previous one and nothing is read from a cache.
  const pairs = [t[0] + t[1], t[2] + t[3], t[4] + t[5]];
  const budget = Math.max(...pairs);
  assert.ok(pairs[1] + pairs[2] > budget && pairs[0] + pairs[1] > budget);
  const tight = replay([file, "--budget", String(budget), "--price", "openai"]);
  assert.deepEqual(Object.keys(tight.summary.prices), ["openai"]);
  const rec = tight.summary.methods.recency;
  assert.deepEqual(
    rec.perRequest.map((q) => q.tokens),
    pairs,
  );
  assert.equal(rec.breaks, 2);
  assert.deepEqual(rec.breakReasons, { "messages dropped": 2 });
  close(rec.cost.openai.usd, ((pairs[0] + pairs[1] + pairs[2]) * p.openai.input) / 1e6);
});

test("--turns replays only the last K user turns; the human summary shows the three methods", () => {
  const { requests } = replay([MULTITOPIC, "--turns", "3", "--budget", "700"]);
  const all = activeMessages(MULTITOPIC).flatMap((m, i) => (m.role === "user" && i > 0 ? [i] : []));
  assert.deepEqual(
    requests.map((r) => r.turn),
    all.slice(-3),
  );

  const r = cli(["replay", MULTITOPIC, "--budget", "700"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^replay of sample-multitopic-day: 10 requests/m);
  assert.match(r.stdout, /^ {2}pass-through +[\d,]+ +[\d,]+ +\d+ +1\.00 +0$/m);
  assert.match(r.stdout, /^ {2}contextfold +\$[\d.]+ \([\d.]+×, [\d.]+×\)/m);
  assert.match(r.stdout, /^contextfold's prefix breaks, by cause:$/m);
  assert.match(r.stdout, /^ {2}anthropic +Claude Sonnet 5: input 2\.00, cache write 2\.50, cache read 0\.200; explicit breakpoint/m);
});

test("replay: bad arguments exit 2 with a message, a bad config exits 1", () => {
  for (const [args, msg] of /** @type {[string[], RegExp][]} */ ([
    [["replay"], /replay needs a session file/],
    [["replay", SAMPLE, "--turns", "0"], /--turns must be a positive integer/],
    [["replay", SAMPLE, "--turns", "x"], /--turns must be a positive integer/],
    [["replay", SAMPLE, "--price", "acme"], /--price must be one of anthropic, openai, deepseek/],
    [["replay", SAMPLE, "--budget", "lots"], /--budget must be a non-negative integer/],
    [["replay", SAMPLE, "--budget"], /--budget needs a value/],
  ])) {
    const r = cli(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, msg);
    assert.match(r.stderr, /usage: contextfold/);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "cf-replay-"));
  const cfg = path.join(dir, "config.json");
  writeFileSync(cfg, JSON.stringify({ preserveRecentTurns: 3 }));
  const bad = cli(["replay", SAMPLE, "--config", cfg]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /preserveRecentTurns/);
});

test("the playground's replay (a live core session) sends what the plugin's adapter sends", async () => {
  const { readMessages } = await import(path.join(PKG, "js", "core", "readers.js"));
  const { replayTimeline, replayTurns, replaySession } = await import(path.join(PKG, "js", "core", "replay.js"));
  for (const [file, budgets] of /** @type {[string, number[]][]} */ ([
    [SAMPLE, [300, 1000]],
    [MULTITOPIC, [300, 700, 3000]],
  ])) {
    const bytes = readFileSync(file);
    const timeline = replayTimeline(core, readMessages(bytes, { name: file, core }), bytes, file);
    const turns = replayTurns(timeline.messages);
    for (const budget of budgets) {
      const fromCli = replay([file, "--budget", String(budget)]).requests;
      const fromCore = replaySession(core, timeline, { turns, budget });
      assert.deepEqual(
        fromCore.map((r) => ({ turn: r.turn, messages: JSON.parse(JSON.stringify(r.messages)) })),
        fromCli,
        `${path.basename(file)} at ${budget}`,
      );
    }
  }
});

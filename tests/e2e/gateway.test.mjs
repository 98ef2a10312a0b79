// End-to-end test of contextfold in a running gateway as a user runs it: the real `openclaw`
// host (tests/node_modules/openclaw, CLI under Node 24) with a fake OpenAI-compatible model on
// 127.0.0.1 (fake-model.mjs) listed with a 32,000-token window and `maxTokens` 1,024, the
// engine configured for a tool-heavy agent (`dropToolResults: false`, as the README advises),
// one gateway for the whole session, every turn an `openclaw agent` call through it.
//
// Session: T1-T6 each read a ~14 KB file with the host's `read` tool (a tool loop of two
// model requests); `/contextfold` is typed into the chat (`gateway call chat.send`); T7 a plain
// turn; `openclaw sessions compact`; T8 a plain turn; `/compact` typed into the chat; T9; then
// T10 keeps the gateway busy (the fake model answers after 20 s) while
// `openclaw config set …preserveRecentMessages 2` runs; T11 calls `context_config`.
//
// What it proves:
//  (1) answer room: no agent request has its answer cut: every one carries
//      `max_completion_tokens` 1,024, the model's `maxTokens`, as the host sends it when the
//      request leaves room for it (the host lowers it otherwise), although the history had to
//      be folded to fit (the engine's lines say folded > 0);
//  (2) one line per model request: each turn logs exactly one `[contextfold]` line per agent
//      request it made, every line in the README's one format, no `folded=0`;
//  (3) commands are not conversation: the requests after `/contextfold` and `/compact` carry
//      neither text, and the engine's index has no turn for them;
//  (4) compaction reports what the model gets: `sessions compact --json` gives the planned
//      history (the next request's, which T8's line shows) plus the host's system prompt, not
//      the raw transcript (T8's line's "before");
//  (5) a config change under load applies: the host's reload is not refused for retained
//      work, and T11's `context_config` shows the new value from the plugin config, the keys
//      left alone as defaults.
//
// Run: node --test tests/e2e/gateway.test.mjs   (about 5 minutes on 2 busy cores).
// Env: CONTEXTFOLD_PLUGIN_DIR, CONTEXTFOLD_E2E_KEEP=1 (as e2e.test.mjs).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  PLUGIN_DIR,
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
const WINDOW = 32_000;
const MAX_TOKENS = 1024;
const TURN_TIMEOUT_MS = 300_000;
const skipReason = hostUnavailableReason();

const textOf = (m) =>
  typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("\n") : "";
const isAgentRequest = (r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0;
const REQUEST_LINE =
  /^\[contextfold\] session=(\S+) (\d+)→(\d+) msgs (\d+)→(\d+) tok \(-?\d+\) cleanedRC=\d+ cleanedThink=\d+ dropTool=\d+ dropAsstTC=\d+(?: folded=(\d+) masked=\d+ truncated=\d+(?: recalled=\d+)? budget=(\d+)(?: replanned)?)?(?: budget=(\d+))?( over-budget: the newest turn alone exceeds the budget)?$/;
const isRequestLine = (message) => message.startsWith("[contextfold] session=") && /→\d+ msgs /.test(message);

describe("contextfold in a running gateway: answer room, one line per request, commands, compaction, config under load", {
  skip: skipReason ?? false,
  timeout: 30 * 60_000,
}, () => {
  let root;
  let host;
  let fake;
  let gateway;
  let stateDir;
  const turns = [];
  const sent = [];
  let compaction;
  let configSet;
  let reloadLog = [];

  async function turn(tag, text) {
    const reqBefore = fake.completions().length;
    const logBefore = readHostLog(host).length;
    const run = await runCli(host, ["agent", "--agent", "main", "--session-key", SESSION_KEY, "-m", text, "--json"], { timeoutMs: TURN_TIMEOUT_MS });
    let json = null;
    try {
      json = parseJsonOutput(run.stdout);
    } catch {
      /* asserted below */
    }
    const requests = fake.completions().slice(reqBefore);
    const t = { tag, text, run, json, requests: requests.filter(isAgentRequest), log: readHostLog(host).slice(logBefore) };
    turns.push(t);
    assert.equal(run.code, 0, `${tag} exit=${run.code}${run.timedOut ? " (timed out)" : ""}\n${run.stderr.slice(-3000)}`);
    return t;
  }

  /** Types a message into the gateway's chat (what the Control UI and channels do). */
  async function chatSend(message) {
    const params = { sessionKey: SESSION_KEY, message, idempotencyKey: `cf-e2e-${sent.length}-${Date.now()}` };
    const run = await runCli(
      host,
      [
        "gateway",
        "call",
        "chat.send",
        "--token",
        gateway.token,
        "--port",
        String(gateway.port),
        "--json",
        "--timeout",
        "60000",
        "--params",
        JSON.stringify(params),
      ],
      { timeoutMs: 120_000 },
    );
    sent.push({ message, run });
    assert.equal(run.code, 0, `chat.send ${message}: ${run.stderr.slice(-2000)}`);
    // the command runs in the gateway after the call returns; its reply lands in the transcript
    await new Promise((r) => setTimeout(r, 5000));
  }

  before(async () => {
    const problem = pluginProblem();
    if (problem) throw new Error(problem);
    root = fs.mkdtempSync(path.join(os.tmpdir(), "contextfold-gateway-"));
    const pluginDir = snapshotPlugin(PLUGIN_DIR, path.join(root, "plugin"));
    fake = await startFakeModel({ logFile: path.join(root, "model-requests.jsonl") });
    stateDir = path.join(root, "cf-state");
    host = createHost({
      root: path.join(root, "host"),
      modelPort: fake.port,
      pluginDir,
      pluginId: PLUGIN_ID,
      slot: PLUGIN_ID,
      pluginConfig: { stateDir, dropToolResults: false, preserveRecentMessages: 1, autoSummarize: false, enableLlmConfirmation: false },
    });
    host.config.models.providers.fake.models[0].contextWindow = WINDOW;
    host.config.models.providers.fake.models[0].maxTokens = MAX_TOKENS;
    fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
    const file = path.join(host.workspace, "notes.txt");
    fs.writeFileSync(file, Array.from({ length: 220 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog ${i}, again.`).join("\n") + "\n");
    gateway = await startGateway(host);
    for (let i = 1; i <= 6; i++) await turn(`T${i}:`, `T${i}: please use the tool to read ${file} and report what it says.`);
    await chatSend("/contextfold");
    await turn("T7:", "T7: thanks, that is all about the notes.");
    compaction = await runCli(host, ["sessions", "compact", SESSION_KEY, "--token", gateway.token, "--json"], { timeoutMs: TURN_TIMEOUT_MS });
    try {
      compaction.json = parseJsonOutput(compaction.stdout);
    } catch {
      compaction.json = null;
    }
    await turn("T8:", "T8: one more thing about the notes.");
    await chatSend("/compact");
    await turn("T9:", "T9: and a last question.");
    // a config change while a turn keeps the gateway busy
    const logBefore = readHostLog(host).length;
    const slow = turn("T10:", "T10: SLOW-20000 take your time.");
    await new Promise((r) => setTimeout(r, 6000));
    configSet = await runCli(host, ["config", "set", `plugins.entries.${PLUGIN_ID}.config.preserveRecentMessages`, "2"], { timeoutMs: 120_000 });
    await slow;
    await new Promise((r) => setTimeout(r, 3000));
    reloadLog = readHostLog(host)
      .slice(logBefore)
      .map((e) => e.message)
      .filter((m) => /reload|retained work/i.test(m));
    await turn("T11:", "T11: use the tool context_config with args {}");
    await gateway.stop();
    console.log(`turns ${turns.map((t) => `${t.tag}${t.run.ms}ms/${t.requests.length}req`).join(" ")}`);
  });

  after(async () => {
    await gateway?.stop();
    await fake?.stop();
    if (KEEP) console.log(`kept: ${root}`);
    else if (root) removeDir(root);
  });

  test("(1) no agent request has its answer room cut, although the history had to be folded", () => {
    const requests = turns.flatMap((t) => t.requests.map((r) => ({ tag: t.tag, r })));
    assert.ok(requests.length >= 17, `${requests.length} agent requests`);
    const cut = requests
      .filter(({ r }) => (r.body.max_completion_tokens ?? r.body.max_tokens) !== MAX_TOKENS)
      .map(({ tag, r }) => `${tag} #${r.n}: ${r.body.max_completion_tokens ?? r.body.max_tokens}`);
    assert.deepEqual(cut, [], "requests whose answer room the host had to cut");
    const folded = turns.flatMap((t) => t.log.map((e) => REQUEST_LINE.exec(e.message)).filter(Boolean)).filter((m) => Number(m[6] ?? 0) > 0);
    assert.ok(folded.length > 0, "the history never needed folding: the test proves nothing");
    for (const t of turns.slice(0, 6)) assert.equal(t.requests.length, 2, `${t.tag}: a tool loop of two requests`);
  });

  test("(2) one log line per model request, in one format", () => {
    for (const t of turns) {
      const lines = t.log.map((e) => e.message).filter(isRequestLine);
      console.log(`${t.tag} ${t.requests.length} request(s):\n  ${lines.join("\n  ")}`);
      // at most one line per model request (a request that changes nothing is not logged:
      // README, "Log format"); two requests of a tool loop may plan the same history, so
      // their lines may read alike
      assert.ok(lines.length <= t.requests.length, `${t.tag}: ${lines.length} lines for ${t.requests.length} model requests:\n${lines.join("\n")}`);
      for (const l of lines) {
        assert.match(l, REQUEST_LINE);
        assert.doesNotMatch(l, /folded=0 masked=0 truncated=0 budget|OVER-BUDGET/);
      }
    }
  });

  test("(2) a tool turn whose history the engine changes logs one line per model request", () => {
    const logged = turns.slice(1, 6).filter((t) => t.log.map((e) => e.message).filter(isRequestLine).length === t.requests.length);
    assert.ok(
      logged.length > 0,
      `no tool turn logged each of its requests: ${turns.map((t) => `${t.tag} ${t.log.map((e) => e.message).filter(isRequestLine).length}/${t.requests.length}`).join(", ")}`,
    );
  });

  test("(3) commands typed into the chat reach neither the model nor the index", () => {
    for (const t of turns.slice(6)) {
      for (const r of t.requests) {
        const user = r.body.messages
          .filter((m) => m.role === "user")
          .map(textOf)
          .join("\n");
        // a command as typed: a word of its own (not a path such as /tmp/contextfold-gateway-…)
        assert.doesNotMatch(user, /(^|\s)\/(contextfold|compact)(\s|$)/m, `${t.tag} request #${r.n} carries a command as conversation`);
      }
    }
    const dirs = fs.readdirSync(path.join(stateDir, "sessions"));
    const index = JSON.parse(fs.readFileSync(path.join(stateDir, "sessions", dirs[0], "index.json"), "utf8")).index;
    const previews = index.turns.map((x) => x.userPreview);
    assert.ok(!previews.some((p) => p.startsWith("/")), `command turns indexed: ${previews.join(" | ")}`);
    assert.ok(
      previews.some((p) => p.includes("T9:")),
      `the conversation is indexed: ${previews.join(" | ")}`,
    );
  });

  test("(4) sessions compact reports what the model gets: the planned history plus the host's system prompt", () => {
    assert.equal(compaction.code, 0, compaction.stderr.slice(-2000));
    const j = compaction.json;
    console.log(`sessions compact: ${JSON.stringify(j)}`);
    assert.equal(j?.ok, true, JSON.stringify(j));
    const r = j.result;
    const d = r.details;
    assert.ok(d.systemPromptTokens > 1000, `the host's system prompt is counted: ${JSON.stringify(d)}`);
    assert.equal(r.tokensBefore, d.historyBefore + d.systemPromptTokens);
    assert.equal(r.tokensAfter, d.historyAfter + d.systemPromptTokens);
    assert.ok(r.tokensAfter <= r.tokensBefore);
    // T8's request carries the history compaction measured (everything up to T7)
    const line = REQUEST_LINE.exec(turns[7].log.map((e) => e.message).find(isRequestLine) ?? "");
    assert.ok(line, "T8 logged no request line");
    const [rawBefore, t8After] = [Number(line[4]), Number(line[5])];
    assert.ok(
      Math.abs(t8After - d.historyAfter) <= Math.max(20, d.historyAfter * 0.05),
      `T8 got ~${t8After} tokens of history; compaction said ~${d.historyAfter}`,
    );
    assert.ok(d.historyBefore < rawBefore, `tokensBefore measured the raw transcript (${rawBefore}), not what the model gets (${d.historyBefore})`);
  });

  test("(5) a config change during a turn applies from the next turn; context_config shows each key's source", () => {
    assert.equal(configSet.code, 0, configSet.stderr.slice(-2000));
    assert.deepEqual(
      reloadLog.filter((m) => /retained work|reload failed|not applied/i.test(m)),
      [],
      `the host refused the change:\n${reloadLog.join("\n")}`,
    );
    const t = turns.at(-1);
    // The context_config result among the request's tool results (fold mode keeps the earlier
    // turns' read results too while the budget allows).
    const parsed = t.requests
      .flatMap((r) => r.body.messages.filter((m) => m.role === "tool").map(textOf))
      .map((x) => {
        try {
          return JSON.parse(x);
        } catch {
          return null;
        }
      });
    const text = textOf(parsed.find((x) => x?.tool?.name === "context_config")?.result);
    assert.match(text, /preserveRecentMessages = 2 {2}\(plugin config\)/, text.slice(0, 3000));
    assert.match(text, /dropToolResults = false {2}\(plugin config\)/);
    assert.match(text, /mode = "fold" {2}\(default\)/);
    assert.match(text, /foldOtherTopics = false {2}\(default\)/);
  });
});

// End-to-end test: the recovery tool under the host's tool profiles. The real `openclaw` host
// (tests/node_modules/openclaw, CLI under Node 24) runs a gateway with a scripted fake model
// (tool-model.mjs) that calls a tool the way a model does: directly when the request offers it,
// else through the host's `tool_call` wrapper (the host's tool search surface).
//
// One session: a first turn (the turn to recover), then for each of `tools.profile` coding,
// messaging and full (changed in openclaw.json, which the gateway applies without a restart) a
// turn whose model calls `context_engine_recover` on the first turn's id.
//
// Then, under `tools.profile` minimal (which the manifest does not give the recovery tool),
// turns on another subject, so that the earlier turns fold to stubs (`foldOtherTopics`).
//
// What it proves: under each profile the model reaches the recovery tool (offered directly or
// through tool_search / tool_call) and gets the turn back, instead of "Unknown tool id"; the
// profiles really differ (the messaging profile offers no `read`); under the minimal profile
// the model is not offered the tool and no stub it sees promises it: the stubs say the turns
// were left out of the request.
//
// Run: node --test tests/e2e/profiles.test.mjs   (about 3 minutes on 2 busy cores).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PLUGIN_DIR, createHost, hostUnavailableReason, pluginProblem, removeDir, runCli, snapshotPlugin, startGateway } from "./run-host.mjs";
import { startToolModel, textOf } from "./tool-model.mjs";

const PLUGIN_ID = "contextfold";
const SESSION_KEY = "agent:main:main";
const KEEP = process.env.CONTEXTFOLD_E2E_KEEP === "1";
const PROFILES = ["coding", "messaging", "full"];
/** Turns on another subject than the first ones, long enough that a stub is smaller. */
const BAKING = [1, 2, 3, 4, 5, 6].map(
  (i) =>
    `P-minimal-${i}: sourdough starter question ${i}. ` +
    "My sourdough starter rises slowly in a cold kitchen; the levain needs flour, water, warmth and time before the dough proofs in the oven basket. ".repeat(
      4,
    ),
);
const offeredTools = (r) => r.body.tools.map((t) => t.function?.name);
const stubsOf = (r) => r.body.messages.flatMap((m) => textOf(m).match(/\[folded[^\]]*\]/g) ?? []);
const skipReason = hostUnavailableReason();

const isAgentRequest = (r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0;

describe("the recovery tool under the host's tool profiles", { skip: skipReason ?? false, timeout: 20 * 60_000 }, () => {
  let root;
  let host;
  let model;
  let gateway;
  let firstTurnId;
  const runs = {};
  /** The agent requests of the turns under the minimal profile. */
  const minimal = [];

  async function turn(text) {
    const before = model.requests().length;
    const run = await runCli(host, ["agent", "--agent", "main", "--session-key", SESSION_KEY, "-m", text, "--json"], { timeoutMs: 300_000 });
    assert.equal(run.code, 0, `${text.slice(0, 40)}: exit ${run.code}\n${run.stderr.slice(-3000)}`);
    return { run, requests: model.requests().slice(before).filter(isAgentRequest) };
  }

  before(async () => {
    const problem = pluginProblem();
    if (problem) throw new Error(problem);
    root = fs.mkdtempSync(path.join(os.tmpdir(), "contextfold-profiles-"));
    const pluginDir = snapshotPlugin(PLUGIN_DIR, path.join(root, "plugin"));
    model = await startToolModel({ logFile: path.join(root, "model-requests.jsonl") });
    const stateDir = path.join(root, "cf-state");
    host = createHost({
      root: path.join(root, "host"),
      modelPort: model.port,
      pluginDir,
      pluginId: PLUGIN_ID,
      slot: PLUGIN_ID,
      // turns of another topic than the upcoming prompt's fold to stubs (all but the last turn)
      pluginConfig: { stateDir, autoSummarize: false, enableLlmConfirmation: false, foldOtherTopics: true, preserveRecentMessages: 1 },
    });
    gateway = await startGateway(host);
    await turn("P0: the harbour ferry timetable changes in winter; note it.");
    const dirs = fs.readdirSync(path.join(stateDir, "sessions"));
    const readIndex = () => JSON.parse(fs.readFileSync(path.join(stateDir, "sessions", dirs[0], "index.json"), "utf8")).index;
    // the first turn is indexed when the next one starts at the latest; the transcript has it now
    await turn("P1: and in summer?");
    firstTurnId = readIndex().turns[0].id;
    for (const profile of PROFILES) {
      host.config.tools = { ...(host.config.tools ?? {}), profile };
      fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
      await new Promise((r) => setTimeout(r, 5000)); // the gateway applies the change
      runs[profile] = await turn(`P-${profile}: what did I note first?\nCALL context_engine_recover {"turnId":"${firstTurnId}"}`);
    }
    host.config.tools = { ...(host.config.tools ?? {}), profile: "minimal" };
    fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
    await new Promise((r) => setTimeout(r, 5000));
    for (const [i, text] of BAKING.entries()) {
      if (i === BAKING.length - 2) {
        // The ferry turns must fold for this phase to show stubs. A change of the plugin's
        // options plans the next request anew (a layout is appended to only under the options
        // it was planned with), and by then the conversation is on baking, so the ferry turns
        // are of another topic. (A change of topic alone plans anew too, but in some runs of
        // this test no request of the phase showed a stub; the cause is not known yet.)
        const entry = host.config.plugins.entries[PLUGIN_ID];
        entry.config = { ...entry.config, promptRelevanceThreshold: 0.25 };
        fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
        await new Promise((r) => setTimeout(r, 5000));
      }
      minimal.push(...(await turn(text)).requests);
    }
    await gateway.stop();
  });

  after(async () => {
    await gateway?.stop();
    await model?.stop();
    if (KEEP) console.log(`kept: ${root}`);
    else if (root) removeDir(root);
  });

  for (const profile of PROFILES) {
    test(`tools.profile ${profile}: the model reaches context_engine_recover and gets the turn back`, () => {
      const { requests } = runs[profile];
      assert.equal(requests.length, 2, `a tool call and its follow-up, got ${requests.length} request(s)`);
      const offered = requests[0].body.tools.map((t) => t.function?.name);
      console.log(`${profile}: offered ${offered.join(", ")}`);
      assert.ok(offered.includes("context_engine_recover") || offered.includes("tool_call"), `neither the tool nor tool_call offered: ${offered.join(", ")}`);
      const result = requests[1].body.messages
        .filter((m) => m.role === "tool")
        .map(textOf)
        .join("\n");
      assert.doesNotMatch(result, /Unknown tool id/, result.slice(0, 600));
      assert.ok(
        result.includes(`turn ${firstTurnId}:`) && result.includes("harbour ferry timetable"),
        `the recovered turn is not in the tool result: ${result.slice(0, 600)}`,
      );
    });
  }

  test("tools.profile minimal: the tool is not offered and no stub the model sees promises it", () => {
    assert.ok(minimal.length >= BAKING.length, `${minimal.length} agent request(s)`);
    for (const r of minimal) assert.ok(!offeredTools(r).includes("context_engine_recover"), offeredTools(r).join(", "));
    const stubs = minimal.flatMap(stubsOf);
    console.log(`minimal: ${stubs.length} stub(s), e.g. ${stubs[0]}`);
    const last = minimal
      .at(-1)
      ?.body.messages.map((m) => `${m.role}: ${textOf(m).slice(0, 80)}`)
      .join("\n");
    assert.ok(stubs.length > 0, `the earlier turns were folded to stubs in some request; the last one:\n${last}`);
    for (const stub of stubs) {
      assert.doesNotMatch(stub, /context_engine_recover/, stub);
      assert.match(stub, /; left out of this request\]$/, stub);
    }
    // under the profiles that offer it, stubs (if any) name the tool
    for (const p of PROFILES)
      for (const stub of runs[p].requests.flatMap(stubsOf)) assert.match(stub, /recover with context_engine_recover\]$/, `${p}: ${stub}`);
  });

  test("the profiles really differ in what they offer", () => {
    const offered = (p) => runs[p].requests[0].body.tools.map((t) => t.function?.name);
    assert.ok(offered("coding").includes("read"));
    assert.ok(!offered("messaging").includes("read"), `messaging offers: ${offered("messaging").join(", ")}`);
  });
});

// The release tarball as a user gets it (in the spirit of Automerge's packaging tests):
// `scripts/pack.sh --no-build` packs the built pkg-template/ into dist/, and the tarball is
// installed where the repository is out of reach:
//   1. its contents: the runtime files only;
//   2. a fresh npm project in the system temp folder: `npx contextfold <command>` on the
//      built-in samples (copied there), and the library through `import … from "contextfold"`
//      on OpenAI, Anthropic and OpenClaw messages, types checked with tsc;
//   3. the real OpenClaw host: `openclaw plugins install <tarball>`, `plugins inspect` says
//      loaded, and two agent turns run through the engine against the fake model;
//   4. headless Chromium: the package's playground runs on the package's own wasm, and the
//      library's browser entry cleans and folds in the page.
// Needs `bash scripts/build.sh`; the host part needs the test packages (scripts/setup.sh
// --tests), the browser part Debian's chromium (scripts/setup-browser.sh). Temporary folders
// are removed afterwards.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONVERSATIONS } from "./conversations.mjs";
import { hostUnavailableReason, createHost, runCli, startFakeModel, startGateway, readHostLog, parseJsonOutput, TESTS_NODE_MODULES } from "../e2e/run-host.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The commands checked through `npx`; one not in `contextfold --help` is skipped. */
const COMMANDS = ["clean", "assemble", "recover", "replay"];

/** Files the package may hold, relative to its root (npm pack puts them under package/). */
const RUNTIME = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^openclaw\.plugin\.json$/,
  /^js\/cli\.js$/,
  /^js\/(core|openclaw|lib)\/([\w-]+\/)*[\w-]+\.(js|d\.ts)$/,
  /^wasm\/contextfold(_bg\.wasm|\.js|\.d\.ts|_bg\.wasm\.d\.ts)$/,
  /^playground\/.+/,
];

let tarball;
let project;
const temps = [];

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {{cwd?: string, input?: string, env?: Record<string, string>}} [o]
 */
function run(cmd, args, { cwd = project, input, env } = {}) {
  const r = spawnSync(cmd, args, { cwd, input, encoding: "utf8", maxBuffer: 64 << 20, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function npx(...args) {
  return run("npx", ["--no-install", "contextfold", ...args]);
}

function tempDir(name) {
  const d = mkdtempSync(path.join(tmpdir(), `contextfold-${name}-`));
  temps.push(d);
  return d;
}

before(() => {
  const packed = run("bash", [path.join(ROOT, "scripts", "pack.sh"), "--no-build"], { cwd: ROOT });
  assert.equal(packed.code, 0, packed.stderr);
  tarball = path.join(ROOT, packed.stdout.trim());
  project = tempDir("project");
  assert.ok(!path.relative(ROOT, project).match(/^[^.]/), "the project is outside the repository");
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "packaging-check", private: true, type: "module" }));
  // --offline: the package installs with nothing from the registry (it has no dependencies).
  const inst = run("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund", "--loglevel=error"]);
  assert.equal(inst.code, 0, inst.stderr);
  for (const f of ["session.jsonl", "multitopic.jsonl"]) copyFileSync(path.join(ROOT, "samples", f), path.join(project, f));
});

after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

test("the tarball holds the runtime files only", () => {
  const list = run("tar", ["tzf", tarball], { cwd: ROOT });
  assert.equal(list.code, 0, list.stderr);
  const files = list.stdout
    .split("\n")
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ""));
  const stray = files.filter((f) => !RUNTIME.some((re) => re.test(f)));
  assert.deepEqual(stray, [], "files that are not runtime files");
  for (const f of [
    "package.json",
    "LICENSE",
    "README.md",
    "openclaw.plugin.json",
    "js/cli.js",
    "js/lib/node.js",
    "js/lib/node.d.ts",
    "js/lib/browser.js",
    "js/openclaw/index.js",
    "wasm/contextfold_bg.wasm",
    "playground/index.html",
  ]) {
    assert.ok(files.includes(f), `${f} is in the tarball`);
  }
  const pkg = JSON.parse(readFileSync(path.join(project, "node_modules", "contextfold", "package.json"), "utf8"));
  assert.match(pkg.description, /clean/i);
  assert.match(pkg.description, /fold/i);
  for (const k of ["openclaw", "openclaw-plugin", "context-engine"]) assert.ok(pkg.keywords.includes(k), `keyword ${k}`);
  assert.equal(pkg.license, "MIT");
  const tested = JSON.parse(readFileSync(path.join(ROOT, "tests", "package.json"), "utf8")).devDependencies.openclaw;
  assert.equal(pkg.openclaw.compat.pluginApi, `>=${tested}`, "the plugin API floor is the tested host");
  assert.equal(pkg.peerDependencies.openclaw, `>=${tested}`);
});

/** The commands `contextfold --help` lists. */
function listedCommands() {
  const help = npx("--help");
  assert.equal(help.code, 0, help.stderr);
  const block = help.stdout.split(/\n\s*\n/).find((b) => b.startsWith("commands:")) ?? "";
  return new Set(
    block
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/)[0]),
  );
}

/** Message entries on the sample's active branch (its entries form one chain). */
function sampleMessages(file) {
  return readFileSync(path.join(project, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "message").length;
}

const CHECKS = {
  clean() {
    const r = npx("clean", "session.jsonl", "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.stats.messagesBefore, sampleMessages("session.jsonl"));
    assert.equal(out.messages.length, out.stats.messagesAfter);
    assert.ok(out.messages.length < out.stats.messagesBefore, "completed turns lose messages");
    assert.ok(out.stats.cleanedThink > 0 && out.stats.dropTool > 0);
    assert.match(r.stderr, new RegExp(`\\[contextfold\\] session=\\S+ ${out.stats.messagesBefore}→${out.stats.messagesAfter} msgs`));
  },
  assemble() {
    const r = npx("assemble", "multitopic.jsonl", "--budget", "600", "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.ok(out.estimatedTokens <= 600 || out.stats.overBudget, `fits the budget: ${out.estimatedTokens}`);
    assert.ok(out.messages.length < sampleMessages("multitopic.jsonl"));
    assert.ok(
      out.turns.some((t) => t.decision === "stubbed" || t.decision === "summarized"),
      "old turns are folded",
    );
  },
  recover() {
    const asm = JSON.parse(npx("assemble", "multitopic.jsonl", "--budget", "600", "--json").stdout);
    const folded = asm.turns.find((t) => t.decision === "stubbed" || t.decision === "summarized");
    const index = JSON.parse(npx("index", "multitopic.jsonl", "--json").stdout);
    const turn = index.turns.find((t) => t.id === folded.id);
    const r = spawnSync("npx", ["--no-install", "contextfold", "recover", "multitopic.jsonl", folded.id], { cwd: project });
    assert.equal(r.status, 0, String(r.stderr));
    const file = readFileSync(path.join(project, "multitopic.jsonl"));
    const expected = Buffer.concat(turn.entries.map((e) => file.subarray(e.range[0], e.range[1])));
    assert.ok(r.stdout.equals(expected), "recover prints the turn's transcript lines byte for byte");
    assert.equal(JSON.parse(r.stdout.toString("utf8").split("\n")[0]).id, folded.id);
  },
  replay() {
    const r = npx("replay", "multitopic.jsonl", "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.ok(out.requests.length > 0, "one request per replayed turn");
    for (const q of out.requests) assert.ok(Array.isArray(q.messages) && q.messages.length > 0);
  },
};

for (const name of COMMANDS) {
  test(`npx contextfold ${name} on the built-in samples`, (t) => {
    const listed = listedCommands();
    for (const required of ["clean", "assemble", "recover"]) assert.ok(listed.has(required), `contextfold --help lists ${required}`);
    if (!listed.has(name)) return t.skip(`contextfold --help does not list ${name}`);
    CHECKS[name]();
  });
}

let library;
function libraryResults() {
  if (library) return library;
  const conv = Object.fromEntries(Object.entries(CONVERSATIONS).map(([k, f]) => [k, f()]));
  writeFileSync(path.join(project, "conversations.json"), JSON.stringify(conv));
  copyFileSync(path.join(HERE, "library-run.mjs"), path.join(project, "library-run.mjs"));
  const r = run(process.execPath, ["library-run.mjs", "conversations.json"]);
  assert.equal(r.code, 0, r.stderr);
  library = { conv, out: JSON.parse(r.stdout) };
  return library;
}

for (const format of Object.keys(CONVERSATIONS)) {
  test(`the library on ${format} messages: import { clean, assemble, recover, estimateTokens, openSession } from "contextfold"`, () => {
    const { conv, out } = libraryResults();
    const input = conv[format];
    const r = out[format];
    // clean: the format detected; completed turns lose their reasoning and tool chatter; the
    // live user message is sent as it came.
    assert.equal(r.clean.format, format);
    assert.equal(r.cleanNamed.format, format);
    assert.equal(r.clean.stats.messagesBefore, input.length);
    assert.equal(r.clean.messages.length, r.clean.stats.messagesAfter);
    assert.ok(r.clean.stats.cleanedThink + r.clean.stats.cleanedRC > 0, "reasoning of completed turns is removed");
    assert.equal(r.clean.stats.dropTool, 1, "the finished tool result is dropped");
    assert.deepEqual(r.clean.messages.at(-1), input.at(-1));
    assert.ok(!JSON.stringify(r.clean.messages).includes("N".repeat(3000)), "the tool output is not sent");
    assert.equal(r.estimate, r.clean.stats.tokensBefore, "estimateTokens is the estimate the engine budgets with");
    // A format named wrongly is refused with the message that does not fit.
    assert.ok(r.wrongFormat?.isInputError, "InputError for the wrong format");
    assert.match(r.wrongFormat.message, /^message \d+ is not /);
    assert.ok(r.badOption?.isInputError && /maxTokens/.test(r.badOption.message), "options are the plugin's config, validated");
    // assemble: the plugin's options apply; old turns fold to fit the budget; a folded turn
    // comes back verbatim.
    assert.ok(r.assemble.estimatedTokens <= 400, `fits the budget: ${r.assemble.estimatedTokens}`);
    assert.equal(r.assemble.turns.filter((t) => t.protected).length, 1, "preserveRecentMessages: 1");
    const folded = r.assemble.turns.find((t) => t.id === r.recovered?.turnId);
    assert.ok(folded, "a folded turn was recovered");
    assert.deepEqual(r.recovered.messages, input.slice(...folded.range));
    // The live session: indexed turn by turn, it folds more as the history grows, its first
    // request equals the one-shot assemble, and it is unusable once disposed.
    assert.deepEqual(r.freshFirst.messages, r.assemble.messages);
    assert.deepEqual(r.freshFirst.turns, r.assemble.turns);
    const steps = r.sessionSteps.map((s) => s.folded.length);
    assert.ok(steps[0] === 0 && steps.at(-1) > 0, `folds as the history grows: ${steps}`);
    assert.ok(r.sessionSteps.every((s) => s.estimatedTokens <= 400));
    assert.ok(r.sessionRecovered && r.sessionRecovered.messages.length > 0);
    assert.equal(r.sessionFormat, format);
    assert.ok(r.sessionTopics.length > 0 && r.sessionTopics.every((t) => t.turnIds.length > 0));
    assert.match(r.afterDispose ?? "", /freed/);
  });
}

test("the package's types check for a TypeScript user", (t) => {
  const tsc = path.join(TESTS_NODE_MODULES, "typescript", "bin", "tsc");
  if (!existsSync(tsc)) return t.skip("typescript is not installed: bash scripts/setup.sh --tests");
  writeFileSync(
    path.join(project, "use.ts"),
    `import { clean, assemble, recover, estimateTokens, openSession, InputError, type OpenAIMessage, type AnthropicMessage, type AgentMessage } from "contextfold";
import { init, assemble as assembleInBrowser } from "contextfold/browser";
const openai: OpenAIMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }];
const anthropic: AnthropicMessage[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
const agent: AgentMessage[] = [{ role: "user", content: "hi", timestamp: 1 }];
export async function main(): Promise<number> {
  const a = await assemble(openai, { budget: 4000, prompt: "next", preserveRecentMessages: 2, format: "openai" });
  const first: OpenAIMessage | undefined = a.messages[0];
  const c = await clean(anthropic, { cleanThinking: false });
  const r = await recover(agent, a.turns[0]?.id ?? "", { format: "openclaw" });
  const s = await openSession({ mode: "fold" });
  const step = s.assemble(agent, { budget: 2000 });
  s[Symbol.dispose]();
  s.free();
  await init(new Uint8Array());
  await assembleInBrowser(openai);
  if (c.stats.cleanedThink < 0 || r.messages.length < 0 || !first || step.turns.length < 0) throw new InputError();
  return estimateTokens(openai);
}
// @ts-expect-error: not an engine option
await assemble(openai, { budgett: 1 });
// @ts-expect-error: mode is "fold" or "clean"
await openSession({ mode: "shrink" });
`,
  );
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] },
      files: ["use.ts"],
    }),
  );
  const r = run(process.execPath, [tsc, "-p", "tsconfig.json"]);
  assert.equal(r.code, 0, `tsc: ${r.stdout}${r.stderr}`);
});

test("the real OpenClaw host installs the tarball and runs turns through the engine", { timeout: 900_000 }, async (t) => {
  const why = hostUnavailableReason();
  if (why) return t.skip(why);
  const root = tempDir("host");
  const model = await startFakeModel({ logFile: path.join(root, "model.jsonl") });
  let gateway;
  try {
    const host = createHost({ root, modelPort: model.port, pluginDir: root, pluginId: "contextfold", slot: "legacy" });
    host.config.plugins = /** @type {typeof host.config.plugins} */ ({}); // nothing about the plugin: the install writes it
    writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
    const inst = await runCli(host, ["plugins", "install", tarball, "--force", "--accept-capabilities"], { timeoutMs: 300_000 });
    assert.equal(inst.code, 0, inst.stdout + inst.stderr);
    const config = JSON.parse(readFileSync(host.configPath, "utf8"));
    assert.equal(config.plugins?.slots?.contextEngine, "contextfold", "the install selects the engine");
    host.config = config;
    const inspect = await runCli(host, ["plugins", "inspect", "contextfold", "--runtime", "--json"], { timeoutMs: 300_000 });
    assert.equal(inspect.code, 0, inspect.stderr);
    const info = parseJsonOutput(inspect.stdout);
    assert.equal(info.plugin.status, "loaded");
    assert.deepEqual(info.plugin.contextEngineIds, ["contextfold"]);
    assert.equal(info.plugin.packageName, "contextfold");
    assert.ok(!path.relative(host.stateDir, info.plugin.rootDir).startsWith(".."), `loaded from the installed copy: ${info.plugin.rootDir}`);
    // Two turns through the gateway: the second request must come cleaned (the first
    // answer's reasoning is not re-sent), and the engine says so in its log line.
    gateway = await startGateway(host);
    for (const m of ["first question", "second question"]) {
      const turn = await runCli(host, ["agent", "--agent", "main", "--session-key", "agent:main:main", "-m", m, "--json"], { timeoutMs: 300_000 });
      assert.equal(turn.code, 0, turn.stdout + turn.stderr);
    }
    const sent = model.completions();
    const second = sent.find((q) => JSON.stringify(q.body?.messages ?? q.messages ?? []).includes("second question"));
    assert.ok(second, "the model got the second turn's request");
    assert.ok(!JSON.stringify(second).includes("REASONING-1"), "the first answer's reasoning is not sent again");
    const log = [...readHostLog(host).map((e) => e.message), gateway.output()].join("\n");
    assert.match(log, /\[contextfold\] session=agent:main:main \d+→\d+ msgs .*cleanedThink=[1-9]/);
    assert.doesNotMatch(log, /degraded to "legacy"|quarantining it/);
    const records = path.join(host.stateDir, "contextfold", "sessions");
    const commits = readdirSync(records).flatMap((d) => (existsSync(path.join(records, d, "commits")) ? readdirSync(path.join(records, d, "commits")) : []));
    assert.equal(commits.length, 2, "the engine committed both turns");
  } finally {
    await gateway?.stop();
    await model.stop();
  }
});

const CHROMIUM = "/usr/bin/chromium";
let playwright = null;
try {
  playwright = await import("playwright-core");
} catch {
  playwright = null;
}
const noBrowser = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing: bash scripts/setup-browser.sh`
  : !playwright
    ? "playwright-core is missing: bash scripts/setup.sh --tests"
    : false;

/** Serves `dir` on 127.0.0.1 and opens a headless Chromium page on it. */
async function openPage(dir, t) {
  const { serve } = await import("../../js/playground/serve.mjs");
  const server = await serve(dir, { host: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await playwright.chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  t.after(async () => {
    await browser.close();
    await new Promise((r) => server.close(r));
  });
  const page = await browser.newPage();
  const errors = [];
  const fetched = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("worker", (w) => w.on("console", (m) => m.type() === "error" && errors.push(`worker: ${m.text()}`)));
  page.on("request", (r) => fetched.push(r.url()));
  return { page, origin, errors, fetched };
}

test("the package's playground runs on the package's own wasm", { skip: noBrowser }, async (t) => {
  const pkg = path.join(project, "node_modules", "contextfold");
  const { page, origin, errors, fetched } = await openPage(path.join(pkg, "playground"), t);
  await page.goto(origin + "/");
  await page.waitForFunction(() => document.documentElement.dataset.ready, null, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), "true", await page.textContent("#status"));
  const served = Buffer.from(await (await page.request.get(origin + "/wasm/contextfold_bg.wasm")).body());
  assert.ok(served.equals(readFileSync(path.join(pkg, "wasm", "contextfold_bg.wasm"))), "the playground's wasm is the package's, byte for byte");
  assert.ok(
    fetched.some((u) => u.endsWith("/wasm/contextfold_bg.wasm")),
    "the page loaded it",
  );
  // The built-in sample as the page shows it is what the installed CLI prints.
  await page.click("#sample-coding");
  await page.waitForFunction(() => window.__contextfold.lastResult?.name === "session.jsonl", null, { timeout: 30_000 });
  const shown = await page.evaluate(() => window.__contextfold.lastResult);
  const cli = npx("assemble", path.join(pkg, "playground", "samples", "session.jsonl"), "--json");
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(shown.messages, JSON.parse(cli.stdout).messages);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    fetched.filter((u) => !u.startsWith(origin + "/")),
    [],
    "nothing is fetched from elsewhere",
  );
});

test("the library's browser entry in Chromium, from the installed package", { skip: noBrowser }, async (t) => {
  const { conv } = libraryResults();
  writeFileSync(path.join(project, "index.html"), '<!doctype html><title>contextfold library</title><link rel="icon" href="data:,">');
  const { page, origin, errors } = await openPage(project, t);
  await page.goto(origin + "/");
  const got = await page.evaluate(async (conversations) => {
    // @ts-expect-error a URL on the test page's server (the installed package), not a path of this tree
    const cf = await import("/node_modules/contextfold/js/lib/browser.js");
    const out = {};
    for (const [format, messages] of Object.entries(conversations)) {
      const cleaned = await cf.clean(messages);
      const assembled = await cf.assemble(messages, { preserveRecentMessages: 1, budget: 400 });
      const folded = assembled.turns.find((x) => x.decision === "stubbed");
      const recovered = await cf.recover(messages, folded.id);
      const s = await cf.openSession({ preserveRecentMessages: 1 });
      const live = s.assemble(messages, { budget: 400 });
      s.free();
      out[format] = { cleaned, assembled, recovered, live, estimate: await cf.estimateTokens(messages) };
    }
    return out;
  }, conv);
  const node = libraryResults().out;
  for (const format of Object.keys(conv)) {
    const b = got[format];
    assert.equal(b.cleaned.format, format);
    assert.deepEqual(b.cleaned.messages, node[format].clean.messages, `${format}: clean in the browser = in Node`);
    assert.deepEqual(b.assembled.messages, node[format].assemble.messages, `${format}: assemble in the browser = in Node`);
    assert.deepEqual(b.recovered.messages, conv[format].slice(...b.assembled.turns.find((x) => x.id === b.recovered.turnId).range));
    assert.deepEqual(b.live.messages, b.assembled.messages);
    assert.equal(b.estimate, node[format].estimate);
  }
  assert.deepEqual(errors, []);
});

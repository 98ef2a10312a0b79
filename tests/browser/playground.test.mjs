// The playground in a real browser (Debian's chromium driven by playwright-core): the page
// shows what `contextfold assemble` prints for the same input and settings, unfolds a folded
// turn to its original messages, logs no console errors and fetches nothing from elsewhere.
// Installs nothing: skips when /usr/bin/chromium (bash scripts/setup-browser.sh) or
// playwright-core (cd tests && npm install) is missing. Needs the built wasm
// (bash scripts/build.sh); builds the playground folder itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readMessages } from "../../js/core/readers.js";
import { loadCore } from "../../js/core/node.js";
import { serve } from "../../js/playground/serve.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SITE = path.join(ROOT, "pkg-template", "playground");
const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
const SHOT = path.join(ROOT, "tests", "artifacts", "playground.png");
const SHOT_DARK = path.join(ROOT, "tests", "artifacts", "playground-dark.png");

let playwright = null;
try {
  playwright = await import("playwright-core");
} catch {
  playwright = null;
}
const skip = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing: run \`bash scripts/setup-browser.sh\` to install Debian's chromium`
  : !playwright
    ? "playwright-core is missing: run `cd tests && npm install --ignore-scripts`"
    : false;
if (skip) process.stderr.write(`# playground browser test skipped: ${skip}\n`);

let server;
let origin;
let context;
let page;
let tmp;
const consoleErrors = [];
const foreignRequests = [];

before(async () => {
  if (skip) return;
  if (!existsSync(path.join(ROOT, "pkg-template", "wasm", "contextfold_bg.wasm"))) {
    throw new Error("pkg-template/wasm is not built: run `bash scripts/build.sh` first");
  }
  const b = spawnSync("bash", [path.join(ROOT, "scripts", "build-playground.sh")], { encoding: "utf8" });
  assert.equal(b.status, 0, b.stderr);
  tmp = mkdtempSync(path.join(tmpdir(), "contextfold-playground-"));
  server = await serve(SITE, { host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${server.address().port}`;
  const profile = path.join(tmp, "profile");
  mkdirSync(profile);
  context = await playwright.chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1366, height: 768 },
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  page = context.pages()[0] ?? (await context.newPage());
  // The page's console and its engine worker's.
  context.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("worker", (w) =>
    w.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(`worker: ${m.text()}`);
    }),
  );
  page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
  context.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin + "/") && !u.startsWith("data:")) foreignRequests.push(u);
    if (r.method() !== "GET") foreignRequests.push(`${r.method()} ${u}`);
  });
  await page.goto(origin + "/");
  await page.waitForFunction(() => document.documentElement.dataset.ready, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), "true", await page.textContent("#status"));
});

after(async () => {
  await context?.close();
  await /** @type {Promise<void>} */ (new Promise((r) => (server ? server.close(() => r()) : r())));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/**
 * `node js/cli.js assemble <file> --json …` → {out, log}.
 * @param {string} file
 * @param {{budget?: number | null, prompt?: string, config?: object}} [o]
 */
function cliAssemble(file, { budget, prompt, config } = {}) {
  const args = [path.join(ROOT, "js", "cli.js"), "assemble", file, "--json"];
  if (budget != null) args.push("--budget", String(budget));
  if (prompt) args.push("--prompt", prompt);
  if (config) {
    const f = path.join(tmp, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(f, JSON.stringify(config));
    args.push("--config", f);
  }
  const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  const log = r.stderr.split("\n").find((l) => l.startsWith("[contextfold]"));
  return { out: JSON.parse(r.stdout), log };
}

/** What the page must show of a message: its role, the text of its text parts, its calls. */
function expectedView(m) {
  const c = m.content;
  let texts = typeof c === "string" ? [c] : Array.isArray(c) ? c.filter((p) => p?.type === "text").map((p) => String(p.text ?? "")) : [];
  if ((m.role === "compactionSummary" || m.role === "branchSummary") && typeof m.summary === "string") texts = [...texts, m.summary];
  const calls = [
    ...(Array.isArray(c) ? c.filter((p) => p?.type === "toolCall" || p?.type === "tool_use").map((p) => `call ${p.name}`) : []),
    ...(m.tool_calls ?? []).map((t) => `call ${t.function?.name}`),
  ];
  return { role: m.role, texts, calls };
}

/** The messages rendered in a container, read from the DOM. */
function renderedView(selector) {
  return page.evaluate((sel) => {
    return [...document.querySelectorAll(sel)].map((a) => ({
      role: a.dataset.role,
      texts: [...a.querySelectorAll(":scope > .part[data-type=text] > .part-body")].map((e) => e.textContent),
      calls: [...a.querySelectorAll(":scope > .part[data-type=toolCall] > .part-title")].map((e) => e.textContent),
    }));
  }, selector);
}

/** Waits until the page has re-run with these request settings. */
async function settled(pred, arg = null) {
  await page.waitForFunction(pred, arg, { timeout: 10000 });
  // One more frame so the DOM of that run is in place.
  await page.evaluate(() => /** @type {Promise<void>} */ (new Promise((r) => requestAnimationFrame(() => r()))));
}

async function setNumber(selector, value) {
  const el = page.locator(selector);
  await el.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.type(String(value));
}

test("the page loads the shipped wasm, byte for byte, with the right MIME type", { skip }, async () => {
  const res = await page.request.get(origin + "/wasm/contextfold_bg.wasm");
  assert.equal(res.headers()["content-type"], "application/wasm");
  const served = Buffer.from(await res.body());
  assert.ok(served.equals(readFileSync(path.join(ROOT, "pkg-template", "wasm", "contextfold_bg.wasm"))), "served wasm equals pkg-template/wasm");
  const js = await page.request.get(origin + "/js/playground/app.js");
  assert.match(js.headers()["content-type"], /^text\/javascript/);
  assert.ok(await page.evaluate(() => document.documentElement.dataset.engine), "engine version set");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.runner), "worker", "the engine runs off the main thread");
});

test("built-in sample, budget and protected turns set in the UI: the page shows what the CLI prints", { skip }, async () => {
  await page.click("#sample-coding");
  await settled(() => window.__contextfold.lastResult?.name === "session.jsonl");
  await setNumber("#cfg-preserveRecentMessages", 1);
  await setNumber("#budget", 300);
  await settled(() => {
    const r = window.__contextfold.lastResult;
    return r?.request.budget === 300 && r.request.config.preserveRecentMessages === 1;
  });
  const r = await page.evaluate(() => window.__contextfold.lastResult);
  assert.deepEqual(r.request.config, { preserveRecentMessages: 1 }, "only the changed key goes to the core");

  const cli = cliAssemble(path.join(ROOT, "samples", "session.jsonl"), { budget: 300, config: { preserveRecentMessages: 1 } });
  // The rendered messages: role and text of each, read from the DOM.
  const shown = await renderedView("#context .msg");
  assert.equal(shown.length, cli.out.messages.length);
  assert.deepEqual(shown, cli.out.messages.map(expectedView));
  // And the whole result, field for field.
  assert.deepEqual(r.messages, cli.out.messages);
  assert.equal(r.estimatedTokens, cli.out.estimatedTokens);
  assert.deepEqual(r.stats, cli.out.stats);
  assert.deepEqual(
    r.turns.map(({ id, topic, decision, reason, tokensBefore, tokensAfter }) => ({ id, topic, decision, reason, tokensBefore, tokensAfter })),
    cli.out.turns,
  );
  assert.equal((await page.textContent("#logline")).trim(), cli.log);
  assert.equal(await page.textContent("#total-messages"), `${cli.out.stats.clean.messagesBefore} → ${cli.out.messages.length}`);
  assert.ok(
    cli.out.turns.some((t) => t.decision === "stubbed"),
    "the settings fold some turns",
  );
  assert.ok((await page.locator("#context .msg.is-stub .badge-stub").count()) > 0, "stubs are marked");
  // The timeline: one button per turn, with its decision.
  const turns = await page.$$eval("#turns .turn", (els) => els.map((e) => [e.dataset.turn, e.querySelector(".chip").textContent]));
  assert.deepEqual(
    turns,
    cli.out.turns.map((t) => [t.id, t.decision]),
  );
});

test("clicking a folded turn shows its original messages and transcript lines", { skip }, async () => {
  const r = await page.evaluate(() => window.__contextfold.lastResult);
  const folded = r.turns.find((t) => t.decision === "stubbed");
  assert.ok(folded);
  const li = page.locator(`#turns .turn[data-turn="${folded.id}"]`);
  await li.locator(".turn-btn").click();
  assert.equal(await li.locator(".turn-btn").getAttribute("aria-expanded"), "true");
  await li.locator(".turn-detail").waitFor({ state: "visible" });

  const text = readFileSync(path.join(ROOT, "samples", "session.jsonl"), "utf8");
  const original = readMessages(text, { name: "session.jsonl", core: await loadCore() }).messages.slice(folded.range[0], folded.range[1]);
  assert.ok(original.length >= 2);
  const shown = await renderedView(`#turns .turn[data-turn="${folded.id}"] .turn-detail .msg`);
  assert.deepEqual(shown, original.map(expectedView));
  assert.ok(
    shown.some((m) => m.role === "toolResult"),
    "the dropped tool results are back",
  );

  // The transcript lines are what `contextfold recover` prints.
  const rec = spawnSync(process.execPath, [path.join(ROOT, "js", "cli.js"), "recover", path.join(ROOT, "samples", "session.jsonl"), folded.id, "--json"], {
    encoding: "utf8",
  });
  assert.equal(rec.status, 0, rec.stderr);
  await li.locator("details.raw > summary").click();
  const raw = (await li.locator(".raw-lines").textContent()).split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(raw, JSON.parse(rec.stdout).entries);

  // Keyboard: Enter and Space on a turn button toggle it.
  const other = r.turns.find((t) => t.decision === "stubbed" && t.id !== folded.id) ?? folded;
  const btn = page.locator(`#turns .turn[data-turn="${other.id}"] .turn-btn`);
  const was = await btn.getAttribute("aria-expanded");
  await btn.focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    ([id, v]) => document.querySelector(`#turns .turn[data-turn="${id}"] .turn-btn`)?.getAttribute("aria-expanded") !== v,
    [other.id, was],
  );
  await page.keyboard.press("Space");
  await page.waitForFunction(
    ([id, v]) => document.querySelector(`#turns .turn[data-turn="${id}"] .turn-btn`)?.getAttribute("aria-expanded") === v,
    [other.id, was],
  );
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("turn-btn")), true, "focus stays on the turn");
});

test("multi-topic sample with a prompt: topics the prompt refers to come back, as in the CLI", { skip }, async () => {
  await page.click("#cfg-preserveRecentMessages");
  await page.click("#reset");
  await page.click("#sample-multitopic");
  // Stub other topics whatever the budget (the checkbox, as a person would).
  await page.check("#cfg-foldOtherTopics");
  const prompt = "Back to the sourdough: how long should the levain rest before I mix the dough?";
  await page.fill("#prompt", prompt);
  await settled(
    (p) =>
      window.__contextfold.lastResult?.name === "multitopic.jsonl" &&
      window.__contextfold.lastResult.request.prompt === p &&
      window.__contextfold.lastResult.request.config.foldOtherTopics === true,
    prompt,
  );
  const r = await page.evaluate(() => window.__contextfold.lastResult);
  assert.equal(r.request.prompt, prompt);
  assert.deepEqual(r.request.config, { foldOtherTopics: true });
  assert.equal(r.request.budget, null);
  const cli = cliAssemble(path.join(SITE, "samples", "multitopic.jsonl"), { prompt, config: { foldOtherTopics: true } });
  assert.deepEqual(r.messages, cli.out.messages);
  assert.deepEqual(await renderedView("#context .msg"), cli.out.messages.map(expectedView));
  assert.ok(
    cli.out.turns.some((t) => /refer to topic/.test(t.reason)),
    "the prompt brings a topic back",
  );
  assert.ok(
    cli.out.turns.some((t) => t.decision === "stubbed"),
    "other topics are stubbed",
  );
  // Open a folded turn for the screenshot.
  const folded = r.turns.find((t) => t.decision === "stubbed");
  await page.locator(`#turns .turn[data-turn="${folded.id}"] .turn-btn`).click();
  await page.locator(`#turns .turn[data-turn="${folded.id}"] .turn-detail`).waitFor({ state: "visible" });
  mkdirSync(path.dirname(SHOT), { recursive: true });
  await page.screenshot({ path: SHOT });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: SHOT_DARK });
  await page.emulateMedia({ colorScheme: "light" });
  assert.ok(readFileSync(SHOT).length > 10000);
});

test("truncated tool results are marked, and match the CLI", { skip }, async () => {
  await page.click("#sample-coding");
  const config = { dropToolResults: false, dropToolCallMessages: false, toolResultTruncateChars: 200, preserveRecentMessages: 1, foldOtherTopics: false };
  const r = await page.evaluate(async (cfg) => {
    await window.__contextfold.setPrompt("");
    await window.__contextfold.setConfig(cfg);
    return window.__contextfold.setBudget(8000);
  }, config);
  const cli = cliAssemble(path.join(ROOT, "samples", "session.jsonl"), { budget: 8000, config });
  assert.deepEqual(r.messages, cli.out.messages);
  assert.deepEqual(await renderedView("#context .msg"), cli.out.messages.map(expectedView));
  const truncated = cli.out.turns.filter((t) => t.decision === "truncated").length;
  assert.ok(truncated > 0);
  assert.ok((await page.locator("#context .msg.is-truncated .badge-truncated").count()) >= truncated);
  // The settings panel shows what the hook set.
  assert.equal(await page.isChecked("#cfg-dropToolResults"), false);
  assert.equal(await page.inputValue("#cfg-toolResultTruncateChars"), "200");
});

test("other formats and every setting through the hook match the CLI", { skip }, async () => {
  const openai = {
    model: "x",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather in Oslo?" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "need the tool",
        tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "rain, 9 °C" },
      { role: "assistant", content: "It rains.", reasoning_content: "tool said rain" },
      { role: "user", content: "and tomorrow?" },
    ],
  };
  const file = path.join(tmp, "openai.json");
  writeFileSync(file, JSON.stringify(openai));
  const config = { mode: "fold", preserveRecentMessages: 0, foldOtherTopics: false, summarizeThreshold: 0.5, keepRecentTurns: 0, dropToolCallMessages: false };
  const r = await page.evaluate(
    async ([text, cfg]) => {
      window.__contextfold.setInput(text, "openai.json");
      window.__contextfold.setConfig(cfg);
      window.__contextfold.setBudget(5000);
      return window.__contextfold.setPrompt("");
    },
    [JSON.stringify(openai), config],
  );
  assert.equal(r.format, "openai");
  const cli = cliAssemble(file, { budget: 5000, config });
  assert.deepEqual(r.messages, cli.out.messages);
  assert.deepEqual(await renderedView("#context .msg"), cli.out.messages.map(expectedView));
  // The controls follow the hook.
  assert.equal(await page.inputValue("#cfg-preserveRecentMessages"), "0");
  assert.equal(await page.isChecked("#cfg-foldOtherTopics"), false);

  // Mode clean: the cleaner alone, as in the CLI.
  await page.check("#cfg-mode-clean");
  await settled(() => window.__contextfold.lastResult?.request.config.mode === "clean");
  const c = await page.evaluate(() => window.__contextfold.lastResult);
  assert.deepEqual(c.messages, cliAssemble(file, { budget: 5000, config: { ...config, mode: "clean" } }).out.messages);

  // Once loaded the page needs no network: the samples are already in memory.
  await context.setOffline(true);
  await page.click("#sample-multitopic");
  await settled(() => window.__contextfold.lastResult?.name === "multitopic.jsonl");
  await page.fill("#budget", "1500");
  await settled(() => window.__contextfold.lastResult?.request.budget === 1500);
  await context.setOffline(false);

  // A bad input is reported on the page, not thrown.
  assert.equal(await page.evaluate(() => window.__contextfold.setInput('{"type":"message","id":"a","parentId":null}\n{oops\n', "bad.jsonl")), null);
  assert.match(await page.textContent("#status"), /invalid JSON line/);
  await page.click("#sample-coding");
  await settled(() => window.__contextfold.lastResult?.name === "session.jsonl");
  assert.equal(await page.isHidden("#status"), true);
});

test("the replay of the built-in sample plots tokens and cached share per request, with the figures `contextfold replay` prints", { skip }, async () => {
  await page.click("#sample-coding");
  await settled(() => window.__contextfold.lastResult?.name === "session.jsonl");
  await page.evaluate(() => window.__contextfold.setConfig({}));
  await page.evaluate(() => window.__contextfold.setBudget(1000));
  await page.click("#replay-box > summary");
  await page.click("#replay-run");
  await page.waitForSelector("#replay-tokens polyline", { timeout: 20000 });
  const args = [path.join(ROOT, "js", "cli.js"), "replay", path.join(ROOT, "samples", "session.jsonl"), "--budget", "1000", "--json"];
  const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  const cli = JSON.parse(r.stdout).summary;
  for (const id of ["#replay-tokens", "#replay-cached"]) {
    const lines = await page.$$eval(`${id} polyline`, (els) => els.map((e) => [e.dataset.method, e.getAttribute("points").trim().split(/\s+/).length]));
    assert.deepEqual(
      lines,
      ["contextfold", "passThrough", "recency"].map((m) => [m, cli.requests]),
      `${id}: one point per request for each method`,
    );
  }
  const rows = await page.$$eval("#replay-result tbody tr", (trs) =>
    trs.map((tr) => [tr.dataset.method, ...[...tr.querySelectorAll("td")].map((td) => td.textContent)]),
  );
  assert.deepEqual(
    rows.map((x) => x.slice(0, 6)),
    ["contextfold", "passThrough", "recency"].map((m) => {
      const s = cli.methods[m];
      return [
        m,
        Math.round(s.tokens.mean).toLocaleString("en"),
        Math.round(s.tokens.max).toLocaleString("en"),
        String(s.overBudget),
        s.meanReuse.toFixed(2),
        String(s.breaks),
      ];
    }),
  );
});

test("no console errors, nothing fetched from anywhere else, nothing sent", { skip }, async () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});

// The library API of the built package (pkg-template/js/lib/, what `import … from
// "contextfold"` loads): the same answers as the CLI for the same input, the live session's
// incremental index equal to a fresh one, formats detected and checked, and the typed options
// in step with the plugin manifest. tests/package/ runs it again from the installed tarball.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PKG, SAMPLE, cli, readJson } from "./helpers.mjs";
import { CONVERSATIONS } from "../package/conversations.mjs";

const lib = await import(path.join(PKG, "js", "lib", "node.js"));

/** A plain chat (no field tells the shapes apart) with repeated and consecutive prompts. */
function plainChat() {
  const out = [];
  for (let i = 0; i < 8; i++) {
    out.push({ role: "user", content: i % 3 === 2 ? "continue" : `question ${i} about ${["bread", "hiking", "coffee"][i % 3]}` });
    if (i === 4) out.push({ role: "user", content: "continue" });
    out.push({ role: "assistant", content: `answer ${i} `.repeat(120) });
  }
  out.push({ role: "user", content: "continue" });
  return out;
}

function withFile(value, fn) {
  const dir = mkdtempSync(path.join(tmpdir(), "contextfold-lib-"));
  try {
    const file = path.join(dir, "input.json");
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function cliAssemble(file, budget) {
  const r = cli(["assemble", file, "--json", "--budget", String(budget)]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("assemble on an array of messages is what `contextfold assemble --json` prints, turn ids included", async () => {
  const inputs = { plain: plainChat(), ...Object.fromEntries(Object.entries(CONVERSATIONS).map(([k, f]) => [k, f()])) };
  for (const [name, messages] of Object.entries(inputs)) {
    for (const budget of [300, 2000]) {
      const want = withFile(messages, (f) => cliAssemble(f, budget));
      const got = await lib.assemble(messages, { budget });
      assert.deepEqual(got.messages, want.messages, `${name} at ${budget}`);
      assert.deepEqual(
        got.turns.map(({ id, topic, decision, reason, tokensBefore, tokensAfter }) => ({ id, topic, decision, reason, tokensBefore, tokensAfter })),
        want.turns,
      );
      assert.deepEqual(got.stats, want.stats);
      // The live session's first request plans the same (its index holds the same ids).
      const s = await lib.openSession();
      assert.deepEqual(s.assemble(messages, { budget }).messages, want.messages, `${name} at ${budget}, session`);
      s.free();
    }
  }
});

test("a transcript as text or bytes reads as the CLI reads the file; recover returns its lines", async () => {
  const bytes = readFileSync(SAMPLE);
  const want = cliAssemble(SAMPLE, 300);
  const got = await lib.assemble(bytes.toString("utf8"), { budget: 300 });
  assert.equal(got.format, "openclaw");
  assert.deepEqual(got.messages, want.messages);
  const index = JSON.parse(cli(["index", SAMPLE, "--json"]).stdout);
  const turn = index.turns[1];
  const fromBytes = await lib.recover(bytes, turn.id);
  assert.deepEqual(
    fromBytes.lines.map((l) => Buffer.from(l)),
    turn.entries.map((e) => bytes.subarray(e.range[0], e.range[1])),
  );
  const fromText = await lib.recover(bytes.toString("utf8"), turn.id);
  assert.equal(fromText.lines.join(""), Buffer.concat(fromBytes.lines).toString("utf8"));
  assert.deepEqual(
    fromText.messages,
    fromText.lines.map((l) => JSON.parse(l).message),
  );
});

test("a live session fed turn by turn indexes as a fresh one does; a changed history is indexed again", async () => {
  const messages = CONVERSATIONS.openclaw();
  const s = await lib.openSession({ preserveRecentMessages: 1 });
  for (let n = 1; n <= messages.length; n++) s.assemble(messages.slice(0, n), { budget: 400 });
  const fresh = await lib.openSession({ preserveRecentMessages: 1 });
  fresh.assemble(messages, { budget: 400 });
  assert.deepEqual(s.topics(), fresh.topics());
  assert.ok(s.topics().length > 1);
  // An earlier message edited: its turn is indexed with the new text and recovered as it is now.
  const edited = messages.map((m, i) => (i === 6 ? { ...m, content: [{ type: "text", text: "Tell me about glaciers instead." }] } : m));
  const r = s.assemble(edited, { budget: 400 });
  const turn = r.turns.find((t) => t.range[0] === 6);
  assert.equal(s.recover(turn.id).messages[0], edited[6]);
  fresh.free();
  s.free();
  assert.throws(() => s.topics(), /freed/);
});

test("formats: detected per shape, checked when named", async () => {
  for (const [format, make] of Object.entries(CONVERSATIONS)) {
    assert.equal((await lib.clean(make())).format, format);
    for (const other of Object.keys(CONVERSATIONS).filter((f) => f !== format)) {
      await assert.rejects(
        lib.clean(make(), { format: other }),
        (/** @type {Error} */ e) => e instanceof lib.InputError && /^message \d+ is not /.test(e.message),
      );
    }
    assert.equal((await lib.clean(make(), { format: "messages" })).format, "messages");
  }
  assert.equal((await lib.clean(plainChat())).format, "messages");
  await assert.rejects(lib.clean(plainChat(), { format: "yaml" }), lib.InputError);
  await assert.rejects(
    lib.assemble([{ role: "user", content: "x" }], { nope: 1 }),
    (/** @type {Error} */ e) => e instanceof lib.InputError && /nope/.test(e.message),
  );
  await assert.rejects(lib.clean([{ role: "user", content: "x" }], { prompt: "p" }), /does not apply/);
  await assert.rejects(lib.clean({ messages: [] }), lib.InputError);
});

test("the typed options are the manifest's config keys", () => {
  const dts = readFileSync(path.join(PKG, "js", "lib", "types.d.ts"), "utf8");
  const block = dts.slice(dts.indexOf("export interface EngineOptions {"), dts.indexOf("\n}\n", dts.indexOf("export interface EngineOptions {")));
  const typed = [...block.matchAll(/^ {2}(\w+)\?:/gm)].map((m) => m[1]).sort();
  const manifest = Object.keys(readJson(path.join(PKG, "openclaw.plugin.json")).configSchema.properties).sort();
  assert.deepEqual(typed, manifest);
});

// Bad and huge transcripts, through the packaged CLI and through the plugin's transcript
// reader and live session: each problem is an error naming the line or is skipped with a
// warning naming it; nothing crashes; the messages of the active branch all reach the output
// or are accounted for by a warning. The CLI (js/core/readers.js) and the plugin
// (js/openclaw/transcript.js) say the same thing about the same line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, appendFileSync, existsSync, rmSync, createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import { PKG, ROOT } from "./helpers.mjs";

const { JsonlTranscript, parseJsonlBuffer } = await import(path.join(PKG, "js", "openclaw", "transcript.js"));
const { LiveSession } = await import(path.join(PKG, "js", "openclaw", "live.js"));
const { sessionLines } = await import(path.join(ROOT, "bench", "soak", "generate.mjs"));

const CLI = path.join(PKG, "js", "cli.js");
const tmp = mkdtempSync(path.join(os.tmpdir(), "cf-transcripts-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));

/** The CLI names a file as it was given: run it in `tmp` with names relative to it. */
const rel = (args) => args.map((a) => (a.startsWith(tmp + path.sep) ? path.relative(tmp, a) : a));

/**
 * Runs the packaged CLI; stdout as a Buffer (recover returns bytes).
 * @param {string[]} args
 * @param {{input?: string | Buffer, env?: Record<string, string>}} [o]
 */
function run(args, { input, env } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...rel(args)], { cwd: tmp, input, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, ...env } });
  return { code: r.status, signal: r.signal, out: r.stdout, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8") };
}

function json(r) {
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function warnings(stderr) {
  return stderr.split("\n").filter((l) => l.startsWith("warning: "));
}

// --- a small transcript builder ------------------------------------------------------------
const L = (o) => JSON.stringify(o);
const header = (id = "bad-session") => L({ type: "session", version: 4, id, timestamp: "2026-11-02T09:00:00.000Z" });
const msg = (id, parentId, message) => L({ type: "message", id, parentId, timestamp: "2026-11-02T09:00:01.000Z", message });
const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
const answer = (text) => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: `thinking about ${text}`, thinkingSignature: "" },
    { type: "text", text },
  ],
  stopReason: "stop",
});
const call = (id, name) => ({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: { path: "a.txt" } }], stopReason: "toolUse" });
const result = (id, name, text) => ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false });

/** Three finished turns (the second with a tool) and an open question: 8 messages, ids a…h. */
function baseLines() {
  return [
    header(),
    msg("a", null, user("first question about parsers")),
    msg("b", "a", answer("first answer")),
    msg("c", "b", user("read a.txt please")),
    msg("d", "c", call("call_1", "read")),
    msg("e", "d", result("call_1", "read", "contents of a.txt ".repeat(40))),
    msg("f", "e", answer("a.txt holds contents")),
    msg("g", "f", user("thanks, one more thing")),
    msg("h", "g", answer("sure")),
  ];
}

function file(name, content) {
  const p = path.join(tmp, name);
  writeFileSync(p, content);
  return p;
}

/**
 * A well-formed output: every kept tool call is answered before the next user/assistant
 * message (the last turn may be open) and every result answers a call of the nearest
 * assistant message; no two user (or assistant) messages in a row (a call, its results and
 * the answer are apart); no empty assistant.
 */
function assertValid(messages) {
  let lastRole;
  let open = new Set();
  const core = messages.filter((m) => ["user", "assistant", "toolResult"].includes(m.role));
  core.forEach((m, i) => {
    if (m.role === "toolResult") {
      assert.ok(open.has(m.toolCallId), `message ${i}: result ${m.toolCallId} answers no open call`);
      open.delete(m.toolCallId);
      lastRole = m.role;
      return;
    }
    const last = i === core.length - 1;
    assert.ok(open.size === 0 || last, `message ${i}: calls ${[...open]} unanswered`);
    if (m.role === lastRole) assert.fail(`message ${i}: two ${m.role} messages in a row`);
    lastRole = m.role;
    if (m.role === "assistant") {
      assert.ok(typeof m.content === "string" ? m.content.trim() : m.content.length > 0, `message ${i}: empty assistant message`);
      open = new Set((Array.isArray(m.content) ? m.content : []).filter((p) => p.type === "toolCall").map((p) => p.id));
    }
  });
}

/** Runs clean, assemble and index; returns their parsed outputs and stderr. */
function allCommands(p) {
  const clean = run(["clean", p, "--json"]);
  const assemble = run(["assemble", p, "--json", "--prompt", "next question"]);
  const index = run(["index", p, "--json"]);
  for (const [name, r] of Object.entries({ clean, assemble, index })) {
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.equal(r.signal, null);
  }
  const c = JSON.parse(clean.stdout);
  const a = JSON.parse(assemble.stdout);
  assertValid(c.messages);
  assertValid(a.messages);
  return { clean: c, assemble: a, index: JSON.parse(index.stdout), stderr: { clean: clean.stderr, assemble: assemble.stderr, index: index.stderr } };
}

/** Entries of a turn index: all message ids of the active branch, in order. */
function indexedIds(index) {
  return index.turns.flatMap((t) => t.entries.map((e) => e.id));
}

/** What the plugin's reader and a live session say about the same file. */
async function pluginView(p) {
  const tr = new JsonlTranscript(p);
  const read = await tr.read(undefined);
  const warned = [];
  const live = new LiveSession({
    stateDir: mkdtempSync(path.join(tmp, "state-")),
    sessionKey: `agent:main:${path.basename(p)}`,
    config: {},
    transcript: new JsonlTranscript(p),
    logger: { info: () => {}, warn: (m) => warned.push(m) },
  });
  const update = await live.sync();
  const index = (await live.session()).index();
  return { read, warned, update, index, live };
}

// --- the cases ------------------------------------------------------------------------------

test("a well-formed transcript: no warnings, all eight messages, CLI and plugin agree", async () => {
  const p = file("ok.jsonl", baseLines().join("\n") + "\n");
  const r = allCommands(p);
  assert.deepEqual(warnings(r.stderr.clean), []);
  assert.equal(r.clean.stats.messagesBefore, 8);
  assert.deepEqual(indexedIds(r.index), ["a", "b", "c", "d", "e", "f", "g", "h"]);
  const v = await pluginView(p);
  assert.deepEqual(v.read.warnings, []);
  assert.deepEqual(v.warned, []);
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));
});

test("truncated last line: skipped with a warning naming it; the plugin leaves it for its next read", async () => {
  const lines = baseLines();
  const cut = lines[8].slice(0, 30);
  const p = file("truncated.jsonl", lines.slice(0, 8).join("\n") + "\n" + cut);
  const r = allCommands(p);
  for (const s of Object.values(r.stderr)) assert.match(s, /^warning: truncated\.jsonl:9: truncated final line skipped \(byte \d+, 30 bytes/m);
  assert.equal(r.clean.stats.messagesBefore, 7);
  assert.deepEqual(indexedIds(r.index), ["a", "b", "c", "d", "e", "f", "g"]);
  const recover = run(["recover", p, "a"]);
  assert.equal(recover.code, 0, recover.stderr);

  // The plugin: the unfinished line is not consumed; once the writer finishes it, it is read.
  const tr = new JsonlTranscript(p);
  const first = await tr.read(undefined);
  assert.deepEqual(
    first.entries.map((e) => e.id),
    ["a", "b", "c", "d", "e", "f", "g"],
  );
  assert.match(first.warnings.join("\n"), /truncated\.jsonl:9: incomplete last line left for later \(byte \d+, 30 bytes\)/);
  appendFileSync(p, lines[8].slice(30) + "\n");
  const next = await tr.read(first.cursor);
  assert.deepEqual(
    next.entries.map((e) => e.id),
    ["h"],
  );
  assert.deepEqual(next.warnings, []);
  // A complete last line without its newline is used (it cannot be the prefix of another line).
  const q = file("no-final-newline.jsonl", lines.join("\n"));
  assert.equal(json(run(["clean", q, "--json"])).stats.messagesBefore, 8);
  assert.deepEqual(
    (await new JsonlTranscript(q).read(undefined)).entries.map((e) => e.id),
    ["a", "b", "c", "d", "e", "f", "g", "h"],
  );
});

test("an invalid JSON line: the CLI stops with an error naming it; the plugin skips it with the same words", async () => {
  const lines = baseLines();
  lines.splice(4, 0, '{"type":"message","id":"x",parentId:"c"}');
  const p = file("invalid.jsonl", lines.join("\n") + "\n");
  for (const cmd of ["clean", "assemble", "index", "recover"]) {
    const r = run(cmd === "recover" ? [cmd, p, "a"] : [cmd, p, "--json"]);
    assert.equal(r.code, 1, `${cmd}: ${r.stderr}`);
    assert.match(r.stderr, /^contextfold: invalid\.jsonl:5: invalid JSON line \(byte \d+: /m);
    assert.equal(r.stdout, "");
  }
  const v = await pluginView(p);
  assert.match(v.read.warnings.join("\n"), /^invalid\.jsonl:5: invalid JSON line \(byte \d+: .*\); skipped$/m);
  assert.equal(v.warned.length, 1);
  assert.match(v.warned[0], /session=agent:main:invalid\.jsonl invalid\.jsonl:5: invalid JSON line/);
  assert.deepEqual(indexedIds(v.index), ["a", "b", "c", "d", "e", "f", "g", "h"]);
  // Mid-file garbage and a non-object line are reported the same way.
  const q = file("garbage.jsonl", [...baseLines().slice(0, 3), "\u0000\u0001 binary", "[1,2,3]", ...baseLines().slice(3)].join("\n") + "\n");
  const g = await new JsonlTranscript(q).read(undefined);
  assert.match(g.warnings[0], /garbage\.jsonl:4: invalid JSON line/);
  assert.match(g.warnings[1], /garbage\.jsonl:5: not a transcript entry \(a JSON array\); skipped/);
  assert.equal(g.entries.length, 8);
});

test("invalid UTF-8 in a line: a warning names the line and the byte; recovery returns the exact original bytes", async () => {
  const lines = baseLines().map((l) => Buffer.from(l + "\n"));
  // Lone continuation byte, a cut 3-byte sequence, an overlong NUL and a surrogate half in
  // the tool result's text.
  const bad = Buffer.from([0x80, 0xe2, 0x82, 0x20, 0xc0, 0x80, 0xed, 0xa0, 0x80]);
  const e = lines[5].toString("utf8");
  const at = e.indexOf("contents of");
  lines[5] = Buffer.concat([Buffer.from(e.slice(0, at)), bad, Buffer.from(e.slice(at))]);
  const buf = Buffer.concat(lines);
  const p = file("utf8.jsonl", buf);
  const badOffset = buf.indexOf(bad);
  const r = allCommands(p);
  for (const s of Object.values(r.stderr)) {
    assert.match(s, new RegExp(`^warning: utf8\\.jsonl:6: invalid UTF-8 at byte ${badOffset}; `, "m"));
  }
  assert.equal(r.clean.stats.messagesBefore, 8);
  assert.deepEqual(indexedIds(r.index), ["a", "b", "c", "d", "e", "f", "g", "h"]);

  // recover: the turn's lines byte for byte, the invalid bytes included.
  const turn = r.index.turns.find((t) => t.entries.some((x) => x.id === "e"));
  const rec = run(["recover", p, turn.id]);
  assert.equal(rec.code, 0, rec.stderr);
  const want = Buffer.concat(turn.entries.map((x) => buf.subarray(x.range[0], x.range[1])));
  assert.ok(rec.out.equals(want), "recover returns the exact bytes");
  assert.ok(rec.out.includes(bad));
  const recJson = json(run(["recover", p, turn.id, "--json"]));
  const k = turn.entries.findIndex((x) => x.id === "e");
  assert.ok(Buffer.from(recJson.bytes[k], "base64").equals(buf.subarray(turn.entries[k].range[0], turn.entries[k].range[1])));
  assert.equal(recJson.entries[k].id, "e");

  // The plugin: the same warning, and its byte ranges read back the same bytes.
  const v = await pluginView(p);
  assert.equal(v.read.warnings.length, 1);
  assert.match(v.read.warnings[0], new RegExp(`^utf8\\.jsonl:6: invalid UTF-8 at byte ${badOffset}; `));
  const entry = v.read.entries.find((x) => x.id === "e");
  const [raw] = await new JsonlTranscript(p).readRangeBytes([entry.range]);
  assert.ok(raw.equals(lines[5]));
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));
  // Valid multi-byte text and a byte order mark are not problems.
  const q = file(
    "bom.jsonl",
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(baseLines().join("\n").replace("first answer", "grüße — 日本語 🚀") + "\n")]),
  );
  const b = run(["clean", q, "--json"]);
  assert.deepEqual(warnings(b.stderr), []);
  assert.equal(json(b).stats.messagesBefore, 8);
  assert.deepEqual((await new JsonlTranscript(q).read(undefined)).warnings, []);
});

test("unknown roles, part types and fields pass through untouched", async () => {
  const robot = { role: "robot", content: [{ type: "hologram", data: { x: 1 } }], mood: "curious" };
  const odd = {
    role: "assistant",
    content: [
      { type: "sparkle", level: 3 },
      { type: "text", text: "odd but fine" },
    ],
    vendorField: { keep: true },
    stopReason: "stop",
  };
  const lines = [
    header(),
    msg("a", null, user("first")),
    msg("r", "a", robot),
    msg("b", "r", odd),
    msg("c", "b", user("second")),
    msg("d", "c", answer("second answer")),
    L({ type: "mystery_entry", id: "m", parentId: "d", payload: [1, 2] }),
    msg("e", "m", user("third")),
  ];
  const p = file("unknown.jsonl", lines.join("\n") + "\n");
  const r = allCommands(p);
  assert.deepEqual(warnings(r.stderr.clean), []);
  for (const out of [r.clean.messages, r.assemble.messages]) {
    assert.deepEqual(
      out.find((m) => m.role === "robot"),
      robot,
    );
    assert.deepEqual(
      out.find((m) => m.vendorField),
      odd,
    );
  }
  assert.equal(r.clean.stats.messagesBefore, 6);
  assert.deepEqual(indexedIds(r.index), ["a", "r", "b", "c", "d", "e"]);
  const v = await pluginView(p);
  assert.deepEqual(v.warned, []);
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));
});

test("entries without an id are skipped with a warning naming the line", async () => {
  const lines = baseLines();
  lines.splice(3, 0, L({ type: "message", parentId: "b", message: user("lost?") }), L({ type: "custom", customType: "x" }));
  const p = file("noid.jsonl", lines.join("\n") + "\n");
  const r = allCommands(p);
  const w = warnings(r.stderr.clean);
  assert.deepEqual(w, ['warning: noid.jsonl:4: entry without an id skipped (role "user")', "warning: noid.jsonl:5: entry without an id skipped"]);
  assert.equal(r.clean.stats.messagesBefore, 8);
  const v = await pluginView(p);
  assert.deepEqual(
    v.read.warnings,
    w.map((x) => x.slice("warning: ".length)),
  );
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));
  // A message entry whose message is missing carries nothing: said so, not silently dropped.
  const q = file(
    "nomessage.jsonl",
    [
      ...baseLines().slice(0, 3),
      L({ type: "message", id: "z", parentId: "b", message: null }),
      ...baseLines()
        .slice(3)
        .map((l) => l.replace('"parentId":"b"', '"parentId":"z"')),
    ].join("\n") + "\n",
  );
  const n = run(["clean", q, "--json"]);
  assert.match(n.stderr, /warning: nomessage\.jsonl:4: message entry without a message object; it carries nothing/);
  assert.equal(json(n).stats.messagesBefore, 8);
});

test("a parent id or type that is not a string: the line is read, the index is still built", async () => {
  const lines = baseLines();
  lines[3] = lines[3].replace('"parentId":"b"', '"parentId":5'); // c
  lines.push(L({ type: 7, id: "i", parentId: "h", message: user("typed by a number") }));
  const p = file("types.jsonl", lines.join("\n") + "\n");
  const r = allCommands(p);
  assert.deepEqual(warnings(r.stderr.clean), ['warning: types.jsonl:4: parent 5 of entry "c" is not in the transcript; the active branch starts here']);
  // The branch is i … c: c starts it, i carries no message (its type is not "message").
  assert.equal(r.clean.stats.messagesBefore, 6);
  assert.deepEqual(indexedIds(r.index), ["c", "d", "e", "f", "g", "h"]);
  const v = await pluginView(p);
  assert.deepEqual(v.warned, [`[contextfold] session=agent:main:types.jsonl ${warnings(r.stderr.clean)[0].slice("warning: ".length)}`]);
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));
});

test("a parent cycle cuts the branch there with a warning; every message still arrives", async () => {
  const lines = baseLines();
  lines[1] = msg("a", "h", user("first question about parsers")); // a → h → … → a
  const p = file("cycle.jsonl", lines.join("\n") + "\n");
  const r = allCommands(p);
  const w = warnings(r.stderr.clean);
  assert.deepEqual(w, ['warning: cycle.jsonl:2: parent cycle at entry "h"; the active branch starts after it']);
  assert.equal(r.clean.stats.messagesBefore, 8);
  assert.deepEqual(indexedIds(r.index), ["a", "b", "c", "d", "e", "f", "g", "h"]);
  assert.equal(r.index.skipped, 1);
  const v = await pluginView(p);
  assert.deepEqual(
    v.read.warnings,
    w.map((x) => x.slice("warning: ".length)),
  );
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));
  // A pure cycle with a self-parent.
  const q = file("self.jsonl", [header(), msg("a", "a", user("me")), msg("b", "a", answer("you"))].join("\n") + "\n");
  const s = run(["clean", q, "--json"]);
  assert.match(s.stderr, /warning: self\.jsonl:2: parent cycle at entry "a"/);
  assert.equal(json(s).stats.messagesBefore, 2);
});

test("duplicate ids: the later line replaces the earlier one (as the host does), with a warning", async () => {
  // A replayed line (same id, same content) changes nothing but is reported.
  const lines = baseLines();
  const replay = [...lines.slice(0, 6), lines[5], ...lines.slice(6)];
  const p = file("replay.jsonl", replay.join("\n") + "\n");
  const r = allCommands(p);
  assert.deepEqual(warnings(r.stderr.clean), ['warning: replay.jsonl:7: duplicate id "e" (also line 6); the later line is used']);
  assert.equal(r.clean.stats.messagesBefore, 8);
  assert.deepEqual(indexedIds(r.index), ["a", "b", "c", "d", "e", "f", "g", "h"]);
  assert.equal(r.index.skipped, 1);
  // A rewritten entry appended at the end: the newest entry decides the branch, and the
  // messages it takes off the branch are counted.
  const rewrite = [...lines, msg("c", "b", user("read b.txt instead"))];
  const q = file("rewrite.jsonl", rewrite.join("\n") + "\n");
  const w = allCommands(q);
  const ws = warnings(w.stderr.clean);
  assert.equal(ws[0], 'warning: rewrite.jsonl:10: duplicate id "c" (also line 4); the later line is used');
  assert.match(ws.join("\n"), /rewrite\.jsonl:5: entry "d" comes before its parent "c" \(line 10\); not on the active branch/);
  assert.match(ws.at(-1), /rewrite\.jsonl: 5 messages left off the active branch by entries out of order/);
  assert.equal(w.clean.stats.messagesBefore, 3); // a, b, the new c; d…h counted; the old c replaced
  assert.deepEqual(indexedIds(w.index), ["a", "b", "c"]);
  const v = await pluginView(q);
  assert.deepEqual(
    v.read.warnings,
    ws.map((x) => x.slice("warning: ".length)),
  );
  assert.deepEqual(indexedIds(v.index), ["a", "b", "c"]);
});

test("entries out of order: a child line before its parent line", async () => {
  const lines = baseLines();
  // Swap d and e: e (child of d) is written first; the branch still runs a…h.
  const swapped = [...lines.slice(0, 4), lines[5], lines[4], ...lines.slice(6)];
  const p = file("swapped.jsonl", swapped.join("\n") + "\n");
  const r = allCommands(p);
  const w = warnings(r.stderr.clean);
  assert.deepEqual(w, ['warning: swapped.jsonl:5: entry "e" comes before its parent "d" (line 6); on the active branch in parent order']);
  assert.equal(r.clean.stats.messagesBefore, 8);
  assert.deepEqual(indexedIds(r.index), ["a", "b", "c", "d", "e", "f", "g", "h"]);
  const v = await pluginView(p);
  assert.deepEqual(
    v.read.warnings,
    w.map((x) => x.slice("warning: ".length)),
  );
  assert.deepEqual(indexedIds(v.index), indexedIds(r.index));

  // The parent written last: the host's newest entry is that parent, so its children are off
  // the branch; they are named and counted, not silently lost.
  const late = [...lines.slice(0, 4), ...lines.slice(5), lines[4]];
  const q = file("late-parent.jsonl", late.join("\n") + "\n");
  const s = allCommands(q);
  const ws = warnings(s.stderr.clean);
  assert.equal(
    ws[0],
    'warning: late-parent.jsonl:5: entry "e" comes before its parent "d" (line 9); not on the active branch, which ends at the newest entry "d" (line 9)',
  );
  assert.equal(ws[1], "warning: late-parent.jsonl: 4 messages left off the active branch by entries out of order");
  assert.equal(s.clean.stats.messagesBefore, 4); // a b c d; e f g h accounted for
  assert.deepEqual(indexedIds(s.index), ["a", "b", "c", "d"]);
  const u = await pluginView(q);
  assert.deepEqual(indexedIds(u.index), ["a", "b", "c", "d"]);

  // A parent that is not in the file at all.
  const orphan = [header(), msg("c", "zzz", user("where did the start go")), msg("d", "c", answer("no idea"))];
  const o = run(["clean", file("orphan.jsonl", orphan.join("\n") + "\n"), "--json"]);
  assert.match(o.stderr, /warning: orphan\.jsonl:2: parent "zzz" of entry "c" is not in the transcript; the active branch starts here/);
  assert.equal(json(o).stats.messagesBefore, 2);
});

test("the plugin reads incrementally with line numbers, and rebuilds with the same warnings after a rewrite", async () => {
  const lines = baseLines();
  const p = file("incremental.jsonl", lines.slice(0, 5).join("\n") + "\n");
  const warned = [];
  const live = new LiveSession({
    stateDir: mkdtempSync(path.join(tmp, "state-")),
    sessionKey: "agent:main:incremental",
    config: {},
    transcript: new JsonlTranscript(p),
    logger: { info: () => {}, warn: (m) => warned.push(m) },
  });
  await live.sync();
  appendFileSync(p, "not json\n" + lines.slice(5).join("\n") + "\n");
  const u = await live.sync();
  assert.equal(u.rewrite, undefined);
  assert.equal(warned.length, 1);
  assert.match(warned[0], /incremental\.jsonl:6: invalid JSON line \(byte \d+: .*\); skipped/);
  assert.deepEqual(indexedIds((await live.session()).index()), ["a", "b", "c", "d", "e", "f", "g", "h"]);
  // A child written before its parent in a later append: the index asks for a rebuild, which
  // follows the host's branch rule and says why.
  appendFileSync(p, [msg("j", "i", answer("late")), msg("i", "h", user("early"))].join("\n") + "\n");
  warned.length = 0;
  await live.sync();
  assert.ok(
    warned.some((w) => /incremental\.jsonl:11: entry "j" comes before its parent "i" \(line 12\)/.test(w)),
    warned.join("\n"),
  );
  assert.deepEqual(indexedIds((await live.session()).index()), ["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
});

test("parseJsonlBuffer keeps the entries and ranges the index needs", () => {
  const buf = Buffer.from(baseLines().join("\n") + "\n");
  const r = parseJsonlBuffer(buf, 0, "x.jsonl");
  assert.equal(r.header.id, "bad-session");
  assert.equal(r.entries.length, 8);
  for (const e of r.entries) assert.equal(JSON.parse(buf.subarray(e.range[0], e.range[1]).toString()).id, e.id);
  assert.equal(r.end, buf.length);
});

// --- size ----------------------------------------------------------------------------------

/**
 * Peak resident memory (bytes) and wall time of one CLI run: `/usr/bin/time -v` when there is
 * one, else a wrapper that reports `process.resourceUsage().maxRSS` as the process exits.
 */
function measured(args) {
  const t0 = performance.now();
  let r;
  if (existsSync("/usr/bin/time")) {
    r = spawnSync("/usr/bin/time", ["-v", process.execPath, CLI, ...rel(args)], { cwd: tmp, maxBuffer: 1024 * 1024 * 1024 });
  } else {
    const wrap = path.join(tmp, "maxrss.mjs");
    writeFileSync(
      wrap,
      'import { pathToFileURL } from "node:url";\n' +
        "const cli = process.argv[2];\nprocess.argv.splice(1, 1);\n" +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the wrapper's own source text
        'process.on("exit", () => process.stderr.write(`\\nMaximum resident set size (kbytes): ${process.resourceUsage().maxRSS}\\n`));\n' +
        "await import(pathToFileURL(cli).href);\n",
    );
    r = spawnSync(process.execPath, [wrap, CLI, ...rel(args)], { cwd: tmp, maxBuffer: 1024 * 1024 * 1024 });
  }
  const seconds = (performance.now() - t0) / 1000;
  const stderr = r.stderr.toString("utf8");
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]);
  assert.ok(kb > 0, `no peak memory figure in: ${stderr.slice(-500)}`);
  const cpu = ["User", "System"].reduce((t, k) => t + Number(new RegExp(`${k} time \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? NaN), 0);
  return { code: r.status, stdout: r.stdout, stderr, peak: kb * 1024, seconds, cpu };
}

async function writeLines(p, lines) {
  const ws = createWriteStream(p);
  for (const l of lines) if (!ws.write(l + "\n")) await once(ws, "drain");
  ws.end();
  await once(ws, "finish");
}

test("a 50 MB tool result: clean, assemble and index stay under 14x the file size in memory", { timeout: 300_000 }, async () => {
  // What the CLI holds at its peak (assemble): the file (1x), the parsed messages (1x), the
  // request text for the core (1x), its copy inside the wasm memory (1x), serde_json's scratch
  // buffer for a string with escapes (grown by doubling, up to 1.3x, held until the parse
  // ends) and the parsed string (1x): wasm memory never shrinks, so that high-water mark
  // stays; then the output (1x when the result is in it) and Node's own ~50 MB. 14x leaves
  // room for the garbage collector's timing; the measured figures are in bench/soak/README.md.
  const big = Array.from({ length: (50 * 1024 * 1024) / 64 }, (_, i) => `row ${String(i).padStart(8, "0")}: ${"x".repeat(46)} ok`).join("\n");
  for (const where of ["completed", "live"]) {
    // completed: a, b, c, [bigc, bigr], d…h (the big exchange opens the tool turn); live: a…g
    // and the big exchange as the open tool loop of the last turn.
    const bigCall = (parent) => msg("bigc", parent, call("call_big", "read"));
    const bigResult = msg("bigr", "bigc", result("call_big", "read", big));
    const base = baseLines();
    const lines =
      where === "completed"
        ? [...base.slice(0, 4), bigCall("c"), bigResult, base[4].replace('"parentId":"c"', '"parentId":"bigr"'), ...base.slice(5)]
        : [...base.slice(0, 8), bigCall("g"), bigResult];
    const p = path.join(tmp, `big-${where}.jsonl`);
    await writeLines(p, lines);
    const size = statSync(p).size;
    assert.ok(size > 50 * 1024 * 1024);
    for (const cmd of ["clean", "assemble", "index"]) {
      const m = measured([cmd, p, "--json"]);
      assert.equal(m.code, 0, m.stderr);
      const out = JSON.parse(m.stdout.toString("utf8"));
      if (cmd !== "index") assertValid(out.messages);
      if (cmd === "clean") {
        const kept = out.messages.some((x) => x.role === "toolResult" && x.toolCallId === "call_big");
        assert.equal(kept, where === "live", "a completed result is dropped; the live one is kept whole");
      }
      const ratio = m.peak / size;
      process.stderr.write(
        `[size] 50 MB tool result (${where} turn) ${cmd}: ${m.seconds.toFixed(1)} s (cpu ${m.cpu.toFixed(1)} s), peak ${(m.peak / 1048576).toFixed(0)} MiB = ${ratio.toFixed(1)}x the file\n`,
      );
      assert.ok(ratio < 14, `${cmd}: peak ${(m.peak / 1048576).toFixed(0)} MiB is ${ratio.toFixed(1)}x the ${(size / 1048576).toFixed(0)} MiB file`);
    }
    rmSync(p);
  }
});

test("100,000 turns: clean and assemble complete with valid output", { timeout: 1_200_000 }, async () => {
  const p = path.join(tmp, "turns-100k.jsonl");
  await writeLines(p, sessionLines({ turns: 100_000, seed: 7, resultChars: 120 }));
  const size = statSync(p).size;
  for (const cmd of ["clean", "assemble"]) {
    const m = measured([cmd, p, "--json", ...(cmd === "assemble" ? ["--prompt", "what about the cache eviction?"] : [])]);
    assert.equal(m.code, 0, m.stderr);
    const out = JSON.parse(m.stdout.toString("utf8"));
    assertValid(out.messages);
    const st = cmd === "clean" ? out.stats : out.stats.clean;
    assert.ok(st.messagesBefore > 250_000, `${st.messagesBefore} messages`);
    if (cmd === "assemble") {
      assert.equal(out.stats.turns, 100_000);
      assert.ok(out.estimatedTokens <= out.stats.budget || out.stats.overBudget);
    }
    process.stderr.write(
      `[size] 100,000 turns (${(size / 1048576).toFixed(0)} MiB) ${cmd}: ${m.seconds.toFixed(1)} s (cpu ${m.cpu.toFixed(1)} s), peak ${(m.peak / 1048576).toFixed(0)} MiB, ${st.messagesBefore} → ${st.messagesAfter} messages\n`,
    );
  }
  rmSync(p);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LOCOMO, TAUBENCH, CLAUDE_CODE, dataPath } from "./helpers.mjs";

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), "../cli.mjs");
const run = (...args) => execFileSync(process.execPath, [CLI, ...args], { encoding: "utf8" });

const SAMPLE = [
  {
    sample_id: "conv-x",
    conversation: {
      speaker_a: "Ann",
      speaker_b: "Bob",
      session_1_date_time: "1:56 pm on 8 May, 2023",
      session_1: [
        { speaker: "Ann", dia_id: "D1:1", text: "Hello" },
        { speaker: "Bob", dia_id: "D1:2", text: "Hi" },
      ],
    },
    qa: [{ question: "q", answer: "Hi", evidence: ["D1:2"], category: 4 }],
  },
  {
    sample_id: "conv-y",
    conversation: {
      speaker_a: "Cy",
      speaker_b: "Di",
      session_1_date_time: "1:00 pm on 1 May, 2023",
      session_1: [{ speaker: "Cy", dia_id: "D1:1", text: "Yo" }],
    },
    qa: [],
  },
];

function snapshot(dir) {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), "utf8")]),
  );
}

test("cli: locomo --variant all writes sessions, sidecars and summaries", () => {
  const dir = mkdtempSync(join(tmpdir(), "convert-"));
  try {
    writeFileSync(join(dir, "in.json"), JSON.stringify(SAMPLE));
    run("locomo", join(dir, "in.json"), join(dir, "out"), "--variant", "all", "--group-size", "0");
    assert.deepEqual(readdirSync(join(dir, "out")).sort(), [
      "locomo.agentic.summary.json",
      "locomo.chat.summary.json",
      "locomo.conv-x.agentic.jsonl",
      "locomo.conv-x.agentic.questions.json",
      "locomo.conv-x.chat.jsonl",
      "locomo.conv-x.chat.questions.json",
      "locomo.conv-y.agentic.jsonl",
      "locomo.conv-y.agentic.questions.json",
      "locomo.conv-y.chat.jsonl",
      "locomo.conv-y.chat.questions.json",
      "locomo.multitopic.conv-x+conv-y.jsonl",
      "locomo.multitopic.conv-x+conv-y.questions.json",
      "locomo.multitopic.summary.json",
    ]);
    const first = snapshot(join(dir, "out"));
    run("locomo", join(dir, "in.json"), join(dir, "out"), "--variant", "all", "--group-size", "0");
    assert.deepEqual(snapshot(join(dir, "out")), first, "byte-identical on a second run");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cli: bad usage exits non-zero with a message", () => {
  const r = spawnSync(process.execPath, [CLI, "nope", "a", "b"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown dataset "nope"/);
  const r2 = spawnSync(process.execPath, [CLI, "locomo", "/nonexistent.json", "/tmp/x"], { encoding: "utf8" });
  assert.equal(r2.status, 1);
  assert.match(r2.stderr, /^convert: /);
});

test("cli: every real dataset converts, twice to the same bytes", () => {
  for (const p of [LOCOMO, TAUBENCH, CLAUDE_CODE]) dataPath(p);
  const dir = mkdtempSync(join(tmpdir(), "convert-real-"));
  try {
    const all = (out) => {
      run("locomo", LOCOMO, out, "--variant", "all");
      run("taubench", TAUBENCH, out);
      run("claude-code", CLAUDE_CODE, out);
      return snapshot(out);
    };
    const a = all(join(dir, "a"));
    const b = all(join(dir, "b"));
    assert.deepEqual(Object.keys(a), Object.keys(b));
    for (const f of Object.keys(a)) assert.ok(a[f] === b[f], f);
    assert.ok(Object.keys(a).some((f) => f.startsWith("claude-code.") && f.endsWith(".messages.json")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { convertLocomo, normalizeEvidence, parseLocomoDate, makeGroups, containsNormalized } from "../locomo.mjs";
import { checkPairing } from "../openclaw.mjs";
import { LOCOMO, dataPath, readSession, textOf, assertShapes } from "./helpers.mjs";

// A small conversation with the shapes real data has: sessions out of key order, a session
// opened by speaker_b, consecutive lines of one speaker, a session ending on speaker_a, an
// empty session, an image turn, and every evidence quirk.
const SAMPLE = {
  sample_id: "conv-x",
  conversation: {
    speaker_a: "Ann",
    speaker_b: "Bob",
    session_2_date_time: "9:05 am on 3 June, 2023",
    session_2: [
      { speaker: "Bob", dia_id: "D2:1", text: "Morning!" },
      { speaker: "Ann", dia_id: "D2:2", text: "Hi Bob, I adopted a cat named Miso." },
      { speaker: "Ann", dia_id: "D2:3", text: "She is 2 years old.", img_url: ["http://x/cat.jpg"], blip_caption: "a photo of a cat" },
    ],
    session_1_date_time: "1:56 pm on 8 May, 2023",
    session_1: [
      { speaker: "Ann", dia_id: "D1:1", text: "Hello" },
      { speaker: "Bob", dia_id: "D1:2", text: "Hey Ann, I moved to Lisbon in 2022." },
    ],
    session_3_date_time: "2:00 pm on 4 June, 2023",
    session_3: [],
  },
  qa: [
    { question: "Where did Bob move?", answer: "Lisbon", evidence: ["D1:2"], category: 4 },
    { question: "When did Bob move?", answer: 2022, evidence: ["D1:2 D2:2"], category: 2 },
    { question: "What is the cat called?", answer: "Miso", evidence: ["D:2:2"], category: 1 },
    { question: "How old is the cat?", answer: "two", evidence: ["D02:03", "D9:9", "D"], category: 3 },
    { question: "Would Ann like dogs?", answer: "maybe", evidence: [], category: 3 },
    { question: "Where did Ann move?", adversarial_answer: "Paris", evidence: ["D1:2"], category: 5 },
  ],
};
const OTHER = {
  sample_id: "conv-y",
  conversation: {
    speaker_a: "Cy",
    speaker_b: "Di",
    session_1_date_time: "10:00 am on 1 January, 2022",
    session_1: [
      { speaker: "Cy", dia_id: "D1:1", text: "Happy new year" },
      { speaker: "Di", dia_id: "D1:2", text: "You too" },
    ],
  },
  qa: [{ question: "What did Cy say?", answer: "Happy new year", evidence: ["D1:1"], category: 4 }],
};

test("evidence ids: the real-data quirks normalize", () => {
  assert.deepEqual(normalizeEvidence("D1:3"), { ids: ["D1:3"], malformed: false, unparseable: [] });
  assert.deepEqual(normalizeEvidence("D9:1 D4:4").ids, ["D9:1", "D4:4"]);
  assert.deepEqual(normalizeEvidence("D8:6; D9:17").ids, ["D8:6", "D9:17"]);
  assert.deepEqual(normalizeEvidence("D:11:26"), { ids: ["D11:26"], malformed: true, unparseable: [] });
  assert.deepEqual(normalizeEvidence("D30:05"), { ids: ["D30:5"], malformed: true, unparseable: [] });
  assert.deepEqual(normalizeEvidence("D"), { ids: [], malformed: true, unparseable: ["D"] });
});

test("session dates parse into a label and a UTC time", () => {
  assert.deepEqual(parseLocomoDate("1:56 pm on 8 May, 2023"), { ms: Date.UTC(2023, 4, 8, 13, 56), label: "8 May 2023, 1:56 pm" });
  assert.equal(parseLocomoDate("12:48 am on 1 February, 2023").ms, Date.UTC(2023, 1, 1, 0, 48));
  assert.equal(parseLocomoDate("sometime"), null);
});

test("answer matching is normalized and word-bounded", () => {
  assert.ok(containsNormalized("Bob: I moved to Lisbon, in 2022!", "lisbon"));
  assert.ok(!containsNormalized("in 2022", "2"));
  assert.ok(!containsNormalized("anything", ""));
});

test("multitopic groups: size 3, a trailing single conversation joins the previous group", () => {
  assert.deepEqual(makeGroups(["a", "b", "c", "d", "e"], 3), [
    ["a", "b", "c"],
    ["d", "e"],
  ]);
  assert.deepEqual(makeGroups(["a", "b", "c", "d"], 3), [["a", "b", "c", "d"]]);
  assert.deepEqual(makeGroups(["a", "b", "c"], 0), [["a", "b", "c"]]);
});

test("chat: alternating roles, dated session starts, synthetic messages only where needed", () => {
  const [r] = convertLocomo([SAMPLE], { variant: "chat" });
  const s = readSession(r.jsonl);
  assertShapes(s.messages, { alternating: true });
  assert.deepEqual(
    s.messages.map((m) => m.role),
    ["user", "assistant", "user", "assistant", "user", "assistant"],
  );
  assert.deepEqual(s.messages.map(textOf), [
    "[8 May 2023, 1:56 pm] Ann: Hello",
    "Bob: Hey Ann, I moved to Lisbon in 2022.",
    "[3 June 2023, 9:05 am] (Bob writes first)",
    "Bob: Morning!",
    "Ann: Hi Bob, I adopted a cat named Miso.\nAnn: She is 2 years old. [image: a photo of a cat]",
    "(Bob does not reply in this session)",
  ]);
  assert.deepEqual(r.sidecar.syntheticMessages, [2, 5]);
  assert.deepEqual(r.sidecar.turnStarts, [0, 2, 4]);
  assert.equal(r.sidecar.conversations[0].emptySessions, 1);
  assert.deepEqual(r.sidecar.diaMap["conv-x"]["D2:3"], { messageIndex: 4, entryId: "m0005" });
  // timestamps follow the session dates
  assert.equal(s.messages[0].timestamp, Date.UTC(2023, 4, 8, 13, 56));
  assert.equal(s.messages[2].timestamp, Date.UTC(2023, 5, 3, 9, 5));
});

test("chat: questions carry repaired evidence, dropped ids, flags", () => {
  const [r] = convertLocomo([SAMPLE], { variant: "chat" });
  const q = r.sidecar.questions;
  assert.deepEqual(
    q.map((x) => x.evidenceMessages),
    [[1], [1, 4], [4], [4], [], [1]],
  );
  assert.deepEqual(q[1].evidence, ["D1:2", "D2:2"]);
  assert.equal(q[1].answer, "2022");
  assert.deepEqual(
    q.map((x) => x.answerInEvidence),
    [true, true, true, false, false, false],
  );
  assert.deepEqual(q[3].evidence, ["D2:3"]);
  assert.deepEqual(
    q[3].evidenceDropped.map((d) => d.reason),
    ["no such turn", "unparseable"],
  );
  assert.equal(q[4].noEvidence, true);
  assert.deepEqual(
    q.map((x) => x.scorable),
    [true, true, true, true, false, false],
  );
  assert.equal(q[5].answer, null);
  assert.equal(q[5].adversarialAnswer, "Paris");
  assert.deepEqual(q[0].evidenceEntryIds, ["m0002"]);
  assert.deepEqual(q[1].evidenceTurns, [0, 2]);
  const ev = r.sidecar.stats.evidence;
  assert.deepEqual([ev.malformed, ev.unparseable, ev.dangling, ev.dropped], [4, 1, 1, 2]);
});

test("agentic: one tool round-trip per dated session, evidence inside the result", () => {
  const [r] = convertLocomo([SAMPLE], { variant: "agentic" });
  const s = readSession(r.jsonl);
  assertShapes(s.messages);
  assert.deepEqual(
    s.messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "assistant", "user", "assistant", "toolResult", "assistant"],
  );
  assert.deepEqual(s.messages[1].content, [{ type: "toolCall", id: "call_0001", name: "read_chat_log", arguments: { session: 1 } }]);
  assert.equal(textOf(s.messages[6]).split("\n")[0], "Session 2 of Ann and Bob, 3 June 2023, 9:05 am");
  assert.ok(textOf(s.messages[6]).includes("[D2:3] Ann: She is 2 years old. [image: a photo of a cat]"));
  assert.deepEqual(r.sidecar.diaMap["conv-x"]["D1:2"], { messageIndex: 2, entryId: "m0003", tag: "[D1:2]" });
  assert.deepEqual(checkPairing(s.messages).violations, []);
});

test("multitopic: sessions interleave and the sidecar marks each conversation switch", () => {
  const [r] = convertLocomo([SAMPLE, OTHER], { variant: "multitopic", groupSize: 0 });
  const s = readSession(r.jsonl);
  assertShapes(s.messages, { alternating: true });
  assert.deepEqual(
    r.sidecar.segments.map((g) => `${g.conversation}/${g.session}@${g.startMessage}`),
    ["conv-x/1@0", "conv-y/1@2", "conv-x/2@4"],
  );
  assert.deepEqual(r.sidecar.switches, [
    { messageIndex: 2, turnIndex: 1, entryId: "m0003", from: "conv-x", to: "conv-y" },
    { messageIndex: 4, turnIndex: 2, entryId: "m0005", from: "conv-y", to: "conv-x" },
  ]);
  const q = r.sidecar.questions.find((x) => x.conversation === "conv-y");
  assert.deepEqual(q.evidenceMessages, [2]);
  assert.deepEqual(q.evidenceKeys, ["conv-y:D1:1"]);
});

test("output is deterministic", () => {
  for (const variant of /** @type {const} */ (["chat", "agentic", "multitopic"])) {
    const a = convertLocomo([SAMPLE, OTHER], { variant });
    const b = convertLocomo(structuredClone([SAMPLE, OTHER]), { variant });
    assert.deepEqual(
      a.map((x) => x.jsonl),
      b.map((x) => x.jsonl),
    );
    assert.deepEqual(
      a.map((x) => JSON.stringify(x.sidecar)),
      b.map((x) => JSON.stringify(x.sidecar)),
    );
  }
});

// ---- real data ----

const load = () => JSON.parse(readFileSync(dataPath(LOCOMO), "utf8"));
const sessionsOf = (sample) =>
  Object.keys(sample.conversation)
    .filter((k) => /^session_\d+$/.test(k) && sample.conversation[k].length)
    .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]))
    .map((k) => ({ n: Number(k.split("_")[1]), turns: sample.conversation[k] }));

test("real LoCoMo chat: message counts follow the dialog", () => {
  const samples = load();
  const results = convertLocomo(samples, { variant: "chat" });
  for (const [i, sample] of samples.entries()) {
    const a = sample.conversation.speaker_a;
    let expected = 0;
    let lines = 0;
    for (const { turns } of sessionsOf(sample)) {
      lines += turns.length;
      expected += turns.filter((t, j) => j === 0 || (t.speaker === a) !== (turns[j - 1].speaker === a)).length;
      if (turns[0].speaker !== a) expected++; // synthetic dated opener
      if (turns[turns.length - 1].speaker === a) expected++; // synthetic closer
    }
    const s = readSession(results[i].jsonl);
    assert.equal(s.messages.length, expected, sample.sample_id);
    assert.equal(results[i].sidecar.stats.dialogTurns, lines);
    assertShapes(s.messages, { alternating: true });
    if (sample.sample_id === "conv-26") {
      assert.equal(lines, 419);
      assert.equal(s.messages.length, 430);
    }
  }
});

test("real LoCoMo chat: every session starts a turn and carries its date", () => {
  const samples = load();
  for (const [i, r] of convertLocomo(samples, { variant: "chat" }).entries()) {
    const s = readSession(r.jsonl);
    const sessions = sessionsOf(samples[i]);
    for (const { n, turns } of sessions) {
      const idx = r.sidecar.diaMap[samples[i].sample_id][turns[0].dia_id].messageIndex;
      const start = s.messages[idx].role === "user" && textOf(s.messages[idx]).startsWith("[") ? idx : idx - 1;
      const label = parseLocomoDate(samples[i].conversation[`session_${n}_date_time`]).label;
      assert.equal(s.messages[start].role, "user");
      assert.ok(textOf(s.messages[start]).startsWith(`[${label}] `), `${samples[i].sample_id} session ${n}`);
    }
  }
});

test("real LoCoMo: every existing evidence id maps to a message holding that line", () => {
  const samples = load();
  for (const variant of /** @type {const} */ (["chat", "agentic", "multitopic"])) {
    for (const r of convertLocomo(samples, { variant })) {
      const s = readSession(r.jsonl);
      for (const q of r.sidecar.questions) {
        const sample = samples.find((x) => x.sample_id === q.conversation);
        const turns = new Map(sessionsOf(sample).flatMap((x) => x.turns.map((t) => [t.dia_id, t])));
        for (const id of q.evidence) {
          const loc = r.sidecar.diaMap[q.conversation][id];
          const t = turns.get(id);
          const text = textOf(s.messages[loc.messageIndex]);
          assert.ok(text.includes(`${t.speaker}: ${t.text}`), `${q.id} ${id} (${variant})`);
          assert.ok(q.evidenceMessages.includes(loc.messageIndex));
          assert.equal(s.entryIds[loc.messageIndex], loc.entryId);
          if (variant === "agentic") {
            assert.equal(s.messages[loc.messageIndex].role, "toolResult");
            assert.ok(text.includes(`[${id}] ${t.speaker}: ${t.text}`));
          }
        }
        // every raw id either maps or is reported dropped
        const raw = q.evidenceRaw.flatMap((e) => normalizeEvidence(e).ids);
        for (const id of raw) assert.ok(q.evidence.includes(id) || q.evidenceDropped?.some((d) => d.token === id), `${q.id} ${id}`);
      }
    }
  }
});

test("real LoCoMo: question counts, categories and evidence quirks", () => {
  const samples = load();
  const results = convertLocomo(samples, { variant: "chat" });
  const qs = results.flatMap((r) => r.sidecar.questions);
  assert.equal(
    qs.length,
    samples.reduce((n, s) => n + s.qa.length, 0),
  );
  for (const q of qs) {
    assert.ok(q.answer === null || typeof q.answer === "string");
    assert.equal(q.scorable, q.category !== 5 && q.evidenceMessages.length > 0);
  }
  const ids = new Set(samples.map((s) => s.sample_id));
  if (ids.has("conv-26")) {
    const q = qs.find((x) => x.conversation === "conv-26" && x.evidenceRaw.includes("D8:6; D9:17"));
    assert.deepEqual(q.evidence, ["D8:6", "D9:17"]);
  }
  if (ids.has("conv-43")) assert.ok(qs.some((x) => x.evidenceRaw.includes("D:11:26") && x.evidence.includes("D11:26")));
});

test("real LoCoMo agentic: four messages per dated session, calls paired", () => {
  const samples = load();
  for (const [i, r] of convertLocomo(samples, { variant: "agentic" }).entries()) {
    const s = readSession(r.jsonl);
    assert.equal(s.messages.length, 4 * sessionsOf(samples[i]).length);
    assertShapes(s.messages);
    const p = checkPairing(s.messages);
    assert.deepEqual(p.violations, []);
    assert.equal(p.pairs.length, sessionsOf(samples[i]).length);
  }
});

test("real LoCoMo multitopic: switches sit exactly where the conversation changes", () => {
  const samples = load();
  const results = convertLocomo(samples, { variant: "multitopic" });
  assert.equal(results.flatMap((r) => r.sidecar.conversations).length, samples.length);
  for (const r of results) {
    const s = readSession(r.jsonl);
    assertShapes(s.messages, { alternating: true });
    // owner of every message, from the dia_id map and the segments
    const owner = new Array(s.messages.length).fill(null);
    for (const g of r.sidecar.segments) for (let i = g.startMessage; i <= g.endMessage; i++) owner[i] = g.conversation;
    assert.ok(owner.every(Boolean), "segments cover every message");
    for (const [conv, map] of Object.entries(r.sidecar.diaMap)) for (const loc of Object.values(map)) assert.equal(owner[loc.messageIndex], conv);
    const changes = [];
    for (let i = 1; i < owner.length; i++) if (owner[i] !== owner[i - 1]) changes.push(i);
    assert.deepEqual(
      r.sidecar.switches.map((x) => x.messageIndex),
      changes,
    );
    let turn = -1;
    const turnOf = s.messages.map((m) => (m.role === "user" ? ++turn : turn));
    for (const sw of r.sidecar.switches) {
      assert.equal(s.messages[sw.messageIndex].role, "user", "a switch starts a turn");
      assert.equal(sw.turnIndex, turnOf[sw.messageIndex]);
      assert.equal(s.entryIds[sw.messageIndex], sw.entryId);
    }
    // round robin: the first segments visit every conversation once, in group order
    const convs = r.sidecar.conversations.map((c) => c.sampleId);
    assert.deepEqual(
      r.sidecar.segments.slice(0, convs.length).map((g) => g.conversation),
      convs,
    );
  }
});

test("real LoCoMo: conversion is deterministic", () => {
  const a = convertLocomo(load(), { variant: "multitopic" });
  const b = convertLocomo(load(), { variant: "multitopic" });
  assert.deepEqual(
    a.map((x) => x.jsonl),
    b.map((x) => x.jsonl),
  );
  assert.deepEqual(
    a.map((x) => JSON.stringify(x.sidecar)),
    b.map((x) => JSON.stringify(x.sidecar)),
  );
});

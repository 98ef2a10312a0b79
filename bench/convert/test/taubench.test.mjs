import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { convertTaubench, convertTrajectory, isWriteAction, leafValues, summarizeTaubench } from "../taubench.mjs";
import { checkPairing, messageSearchText } from "../openclaw.mjs";
import { TAUBENCH, dataPath, readSession, assertShapes } from "./helpers.mjs";

const call = (id, name, args) => ({ id, type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) } });
// Reused call id (as in real data), an unparsable argument string, a text+call message, an
// error result, and a gold write action whose first call comes after two reads.
const TRAJ = {
  task_id: 7,
  trial: 2,
  reward: 1,
  info: {
    task: {
      user_id: "ann_1",
      instruction: "You are ann_1.",
      actions: [
        { name: "get_reservation_details", kwargs: { reservation_id: "ABC123" } },
        { name: "update_reservation_baggages", kwargs: { reservation_id: "ABC123", total_baggages: 2, nonfree_baggages: 0, payment_id: "gift_card_1" } },
      ],
    },
  },
  traj: [
    { role: "system", content: "# Policy\nThe current time is 2024-05-15 15:00:00 EST." },
    { role: "user", content: "Add a bag to ABC123 please, pay with gift_card_1." },
    { role: "assistant", content: null, tool_calls: [call("call_A", "get_reservation_details", { reservation_id: "ABC123" })] },
    { role: "tool", tool_call_id: "call_A", name: "get_reservation_details", content: '{"reservation_id": "ABC123", "total_baggages": 1}' },
    { role: "assistant", content: "Checking the price.", tool_calls: [call("call_A", "calculate", "{not json")] },
    { role: "tool", tool_call_id: "call_A", name: "calculate", content: "Error: invalid expression" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        call("call_B", "update_reservation_baggages", { reservation_id: "ABC123", total_baggages: 2, nonfree_baggages: 0, payment_id: "gift_card_1" }),
      ],
    },
    { role: "tool", tool_call_id: "call_B", name: "update_reservation_baggages", content: "{}" },
    { role: "assistant", content: "Done." },
  ],
};

test("write actions exclude reads, calculate and think", () => {
  assert.ok(isWriteAction("book_reservation"));
  assert.ok(isWriteAction("transfer_to_human_agents"));
  for (const n of ["get_user_details", "search_direct_flight", "list_all_airports", "calculate", "think"]) assert.ok(!isWriteAction(n), n);
  assert.deepEqual(leafValues({ a: "x", b: [1, { c: "yy" }], d: true, e: null }), ["x", "1", "yy"]);
});

test("trajectory: calls, results, reused ids, query point, gold values", () => {
  const r = convertTrajectory(TRAJ, { source: "t", model: "gpt-4o" });
  assert.equal(r.name, "taubench.t.task-007.trial-2");
  const s = readSession(r.jsonl);
  assertShapes(s.messages);
  assert.deepEqual(
    s.messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult", "assistant"],
  );
  assert.deepEqual(s.messages[3].content, [
    { type: "text", text: "Checking the price." },
    { type: "toolCall", id: "call_A", name: "calculate", arguments: "{not json" },
  ]);
  assert.equal(s.messages[2].toolName, "get_reservation_details");
  assert.equal(s.messages[4].toolName, "calculate", "the reused id pairs with the nearest unanswered call");
  assert.equal(s.messages[4].isError, true);
  assert.equal(s.messages[1].model, "gpt-4o");
  assert.equal(s.messages[0].timestamp, Date.UTC(2024, 4, 15, 20, 0, 5));
  const sc = r.sidecar;
  assert.equal(sc.system, "# Policy\nThe current time is 2024-05-15 15:00:00 EST.");
  assert.equal(sc.queryIndex, 5);
  assert.equal(sc.queryEntryId, "m0006");
  assert.equal(sc.queryCall.matchesGold, true);
  assert.deepEqual(
    sc.goldWriteActions.map((a) => a.name),
    ["update_reservation_baggages"],
  );
  assert.deepEqual(sc.goldArgValues, ["ABC123", "gift_card_1"]);
  assert.deepEqual(sc.pairing, { calls: 3, results: 3, reusedIds: 1, orphanResults: 0, violations: 0, openAtEnd: 0 });
  assert.equal(sc.stats.unparsableArguments, 1);
});

test("trajectory without a gold write call is kept and flagged", () => {
  const noWrite = structuredClone(TRAJ);
  noWrite.traj = noWrite.traj.slice(0, 6);
  const r = convertTrajectory(noWrite);
  assert.equal(r.sidecar.queryIndex, null);
  assert.equal(r.sidecar.flags.noGoldWriteCall, true);
  const reads = structuredClone(TRAJ);
  reads.info.task.actions = reads.info.task.actions.slice(0, 1);
  assert.equal(convertTrajectory(reads).sidecar.flags.noGoldWriteAction, true);
});

// ---- real data ----

const load = () => JSON.parse(readFileSync(dataPath(TAUBENCH), "utf8"));

test("real tau-bench: every call and result kept, zero pairing violations", () => {
  const items = load();
  const results = convertTaubench(items, { source: "gpt-4o-airline-dev" });
  assert.equal(results.length, items.length);
  assert.equal(new Set(results.map((r) => r.name)).size, results.length);
  let reused = 0;
  for (const [i, r] of results.entries()) {
    const s = readSession(r.jsonl);
    assertShapes(s.messages);
    const traj = items[i].traj;
    assert.equal(s.messages.length, traj.filter((m) => m.role !== "system").length);
    const calls = s.messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "toolCall") : []));
    assert.equal(
      calls.length,
      traj.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0),
    );
    assert.equal(s.messages.filter((m) => m.role === "toolResult").length, traj.filter((m) => m.role === "tool").length);
    const p = checkPairing(s.messages);
    assert.deepEqual(p.violations, [], r.name);
    assert.equal(p.pairs.length, calls.length);
    // each result names the tool of the call it answers
    for (const pair of p.pairs) {
      const c = s.messages[pair.call].content.find((x) => x.type === "toolCall" && x.id === pair.id);
      assert.equal(s.messages[pair.result].toolName, c.name);
    }
    for (const c of calls) assert.equal(typeof c.arguments, "object");
    reused += r.sidecar.pairing.reusedIds;
  }
  assert.ok(reused > 0, "the real data reuses call ids");
});

test("real tau-bench: the query point is the first assistant message calling a gold write action", () => {
  const results = convertTaubench(load(), { source: "gpt-4o-airline-dev" });
  for (const r of results) {
    const s = readSession(r.jsonl);
    const sc = r.sidecar;
    const names = new Set(sc.goldWriteActions.map((a) => a.name));
    const callsWrite = (m) => m.role === "assistant" && m.content.some((p) => p.type === "toolCall" && names.has(p.name));
    const first = s.messages.findIndex(callsWrite);
    assert.equal(sc.queryIndex, first >= 0 ? first : null, r.name);
    if (sc.queryIndex == null) {
      assert.ok(sc.flags.noGoldWriteAction || sc.flags.noGoldWriteCall);
      continue;
    }
    assert.equal(s.messages[sc.queryIndex].role, "assistant");
    assert.equal(s.entryIds[sc.queryIndex], sc.queryEntryId);
    const prefix = s.messages.slice(0, sc.queryIndex).map(messageSearchText).join("\n");
    for (const v of sc.goldArgValues) {
      assert.ok(v.length >= 3);
      assert.ok(prefix.includes(v), `${r.name}: ${v}`);
    }
    for (const d of sc.goldArgValuesDetail) if (!d.inPrefix) assert.ok(!prefix.includes(d.value));
  }
  const sum = summarizeTaubench(results);
  assert.equal(sum.pairingViolations, 0);
  assert.ok(sum.withQueryPoint > 0);
});

test("real tau-bench: conversion is deterministic", () => {
  const a = convertTaubench(load(), { source: "x" });
  const b = convertTaubench(load(), { source: "x" });
  assert.deepEqual(
    a.map((r) => r.jsonl),
    b.map((r) => r.jsonl),
  );
  assert.deepEqual(
    a.map((r) => JSON.stringify(r.sidecar)),
    b.map((r) => JSON.stringify(r.sidecar)),
  );
});

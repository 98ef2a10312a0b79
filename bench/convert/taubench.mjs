// tau-bench trajectories (OpenAI chat format) → OpenClaw sessions plus a query-point sidecar
// (EVALUATION.md §2).
//
// Mapping:
//   system     not a message: OpenClaw transcripts carry no system messages and the benchmark
//              pins the policy outside the budget, so the policy text goes to the sidecar
//              (`system`); the session starts with the customer's first user message.
//   user       user message, one text part.
//   assistant  assistant message: `content` (if any) as a text part, then one `toolCall` part
//              per `tool_calls` entry, arguments parsed from their JSON string (kept as the raw
//              string when it does not parse to an object). Ids are kept as they are, reused
//              ones included: the engine must pair positionally.
//   tool       toolResult: `toolCallId` from `tool_call_id`, `toolName` from the call it answers
//              (the nearest preceding unanswered call with that id), else from `name`;
//              `isError` when the text starts with "Error" (how the tau-bench tools report
//              failures; the format has no error flag).
//
// Query point: the first assistant message that calls a gold *write* action (a gold action
// whose name does not start with get_/search_/list_ and is not calculate/think). The prefix
// is every message before it.

import { SessionWriter, userMessage, assistantMessage, toolResultMessage, messageSearchText, checkPairing } from "./openclaw.mjs";

const READ_PREFIXES = ["get_", "search_", "list_"];
const READ_NAMES = new Set(["calculate", "think"]);
const CWD = "/bench/taubench";
const FALLBACK_START = Date.UTC(2024, 4, 15, 20, 0, 0);
const STEP_MS = 5_000;
/** Minimum length of a gold argument value that counts for gold-argument survival. */
export const MIN_VALUE_LENGTH = 3;

/** Whether a tool name is a write action (changes the database or hands the case over). */
export function isWriteAction(name) {
  return typeof name === "string" && !READ_NAMES.has(name) && !READ_PREFIXES.some((p) => name.startsWith(p));
}

/** Leaf values of a kwargs tree as strings (strings and numbers; booleans and null skipped). */
export function leafValues(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" && Number.isFinite(value)) out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leafValues(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) leafValues(v, out);
  return out;
}

/** The time the policy states ("The current time is 2024-05-15 15:00:00 EST"), as UTC ms. */
function policyTime(system) {
  const m = /current time is (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\s*(EST|EDT|UTC)?/i.exec(system ?? "");
  if (!m) return null;
  const offsetH = { EST: 5, EDT: 4, UTC: 0 }[(m[7] ?? "UTC").toUpperCase()];
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4] + offsetH, +m[5], +m[6]);
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("");
  return content == null ? "" : String(content);
}

function parseArguments(raw) {
  if (raw && typeof raw === "object" && !Array.isArray(raw)) return { value: raw, parsed: true };
  if (typeof raw !== "string") return { value: raw ?? {}, parsed: raw == null };
  if (raw.trim() === "") return { value: {}, parsed: true };
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return { value: v, parsed: true };
  } catch {
    // kept as the raw string below
  }
  return { value: raw, parsed: false };
}

function deepEqual(a, b) {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k])]),
    );
  return v;
}

/** The file name (without extension) of one trajectory's session. */
export function trajectoryName(source, taskId, trial) {
  return `taubench.${source}.task-${String(taskId).padStart(3, "0")}.trial-${trial}`;
}

/**
 * Converts one trajectory.
 * @param {any} item  `{ task_id, trial, reward, info: { task: { actions, instruction, user_id } }, traj }`
 * @param {{ index?: number, source?: string, model?: string, provider?: string, name?: string }} [opts]
 * @returns {{ name: string, jsonl: string, sidecar: any, messages: any[] }}
 */
export function convertTrajectory(item, { index = 0, source = "taubench", model = "unknown", provider = "openai", name } = {}) {
  const traj = Array.isArray(item?.traj) ? item.traj : [];
  const taskId = item?.task_id ?? index;
  const trial = item?.trial ?? 0;
  name = name ?? trajectoryName(source, taskId, trial);
  const systemParts = traj.filter((m) => m?.role === "system").map((m) => textOf(m.content));
  const system = systemParts.join("\n\n");
  const start = policyTime(system) ?? FALLBACK_START;
  const w = new SessionWriter({ id: name.replace(/^taubench\./, "taubench-").replace(/\./g, "-"), timestamp: start, cwd: CWD });
  const asst = { api: "openai-completions", provider, model };
  const calls = []; // { id, name, index, answered }
  const counts = { systemMessages: systemParts.length, reusedIds: 0, orphanResults: 0, unparsableArguments: 0, skipped: 0 };
  const seenIds = new Set();
  let step = 0;
  const ts = () => start + ++step * STEP_MS;
  for (const m of traj) {
    if (!m || typeof m !== "object" || m.role === "system") continue;
    if (m.role === "user") {
      w.message(userMessage(textOf(m.content), ts()));
    } else if (m.role === "assistant") {
      const parts = [];
      const text = textOf(m.content);
      if (text) parts.push({ type: "text", text });
      for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const fn = c?.function ?? {};
        const args = parseArguments(fn.arguments);
        if (!args.parsed) counts.unparsableArguments++;
        const id = String(c?.id ?? "");
        if (seenIds.has(id)) counts.reusedIds++;
        seenIds.add(id);
        parts.push({ type: "toolCall", id, name: String(fn.name ?? ""), arguments: args.value });
      }
      if (parts.length === 0) parts.push({ type: "text", text: "" });
      const { index: mi } = w.message(assistantMessage(parts, { timestamp: ts(), ...asst }));
      for (const p of parts) if (p.type === "toolCall") calls.push({ id: p.id, name: p.name, index: mi, answered: false });
    } else if (m.role === "tool") {
      const id = String(m.tool_call_id ?? "");
      let call = null;
      for (let i = calls.length - 1; i >= 0; i--) {
        if (!calls[i].answered && calls[i].id === id) {
          call = calls[i];
          break;
        }
      }
      if (call) call.answered = true;
      else counts.orphanResults++;
      const text = textOf(m.content);
      w.message(
        toolResultMessage({ toolCallId: id, toolName: call?.name ?? String(m.name ?? ""), content: text, isError: /^\s*Error\b/.test(text), timestamp: ts() }),
      );
    } else {
      counts.skipped++;
    }
  }

  const gold = Array.isArray(item?.info?.task?.actions) ? item.info.task.actions : [];
  const goldWriteActions = gold.filter((a) => isWriteAction(a?.name)).map((a) => ({ name: a.name, kwargs: a.kwargs ?? {} }));
  const writeNames = new Set(goldWriteActions.map((a) => a.name));
  let queryIndex = null;
  let queryCall = null;
  w.messages.forEach((msg, i) => {
    if (queryIndex != null || msg.role !== "assistant") return;
    const call = msg.content.find((p) => p.type === "toolCall" && writeNames.has(p.name));
    if (call) {
      queryIndex = i;
      const matchesGold = goldWriteActions.some((a) => a.name === call.name && deepEqual(a.kwargs, call.arguments));
      queryCall = { id: call.id, name: call.name, arguments: call.arguments, matchesGold };
    }
  });
  const prefix = queryIndex == null ? [] : w.messages.slice(0, queryIndex);
  const prefixTexts = prefix.map(messageSearchText);
  const candidates = [...new Set(goldWriteActions.flatMap((a) => leafValues(a.kwargs)))].filter((v) => v.length >= MIN_VALUE_LENGTH);
  const detail = candidates.map((value) => {
    const first = prefixTexts.findIndex((t) => t.includes(value));
    return { value, inPrefix: first >= 0, firstMessage: first >= 0 ? first : null, inSystem: system.includes(value) };
  });
  const pairing = checkPairing(w.messages);
  const jsonl = w.toJsonl();
  const roles = {};
  for (const msg of w.messages) roles[msg.role] = (roles[msg.role] ?? 0) + 1;
  const sidecar = {
    format: "contextfold-bench/taubench@1",
    name,
    session: `${name}.jsonl`,
    sessionId: w.header.id,
    source,
    index,
    taskId,
    trial,
    reward: item?.reward ?? null,
    userId: item?.info?.task?.user_id ?? null,
    instruction: item?.info?.task?.instruction ?? null,
    system,
    systemNote: "the policy (system prompt) is not in the session; pin it outside the budget",
    queryIndex,
    queryEntryId: queryIndex == null ? null : w.messageEntryIds[queryIndex],
    queryCall,
    goldActions: gold,
    goldWriteActions,
    goldArgValues: detail.filter((d) => d.inPrefix).map((d) => d.value),
    goldArgValuesDetail: detail,
    flags: {
      noGoldWriteAction: goldWriteActions.length === 0,
      noGoldWriteCall: goldWriteActions.length > 0 && queryIndex == null,
    },
    pairing: {
      calls: calls.length,
      results: roles.toolResult ?? 0,
      reusedIds: counts.reusedIds,
      orphanResults: counts.orphanResults,
      violations: pairing.violations.length,
      openAtEnd: pairing.openAtEnd,
    },
    stats: {
      messages: w.messages.length,
      user: roles.user ?? 0,
      assistant: roles.assistant ?? 0,
      toolResult: roles.toolResult ?? 0,
      systemMessages: counts.systemMessages,
      skippedMessages: counts.skipped,
      unparsableArguments: counts.unparsableArguments,
      bytes: Buffer.byteLength(jsonl),
      textChars: w.messages.reduce((n, msg) => n + messageSearchText(msg).length, 0),
      prefixChars: prefixTexts.reduce((n, t) => n + t.length, 0),
      systemChars: system.length,
    },
  };
  return { name, jsonl, sidecar, messages: w.messages };
}

/**
 * Converts a tau-bench trajectory file (the parsed JSON array). `source` names the file
 * (e.g. "gpt-4o-airline-dev"); the model defaults to the part before "-airline"/"-retail".
 * @param {any[]} items
 * @param {{source?: string, model?: string}} [o]
 */
export function convertTaubench(items, { source = "taubench", model } = {}) {
  if (!Array.isArray(items)) throw new Error("tau-bench input must be a JSON array of trajectories");
  const m = model ?? (/^(.*?)-(airline|retail)\b/.exec(source)?.[1] || "unknown");
  const used = new Set();
  return items.map((item, index) => {
    let name = trajectoryName(source, item?.task_id ?? index, item?.trial ?? 0);
    if (used.has(name)) name = `${name}.n${index}`; // same task and trial twice: unique by position
    used.add(name);
    return convertTrajectory(item, { index, source, model: m, name });
  });
}

/** Summary statistics over converted trajectories (query points, gold values, pairing). */
export function summarizeTaubench(results) {
  const s = results.map((r) => r.sidecar);
  const withQ = s.filter((x) => x.queryIndex != null);
  const qi = withQ.map((x) => x.queryIndex).sort((a, b) => a - b);
  const pct = (p) => (qi.length ? qi[Math.min(qi.length - 1, Math.floor(p * qi.length))] : null);
  return {
    trajectories: s.length,
    withQueryPoint: withQ.length,
    noGoldWriteAction: s.filter((x) => x.flags.noGoldWriteAction).length,
    noGoldWriteCall: s.filter((x) => x.flags.noGoldWriteCall).length,
    queryCallMatchesGold: withQ.filter((x) => x.queryCall.matchesGold).length,
    queryIndex: {
      min: qi[0] ?? null,
      p50: pct(0.5),
      max: qi[qi.length - 1] ?? null,
      mean: qi.length ? +(qi.reduce((a, b) => a + b, 0) / qi.length).toFixed(1) : null,
    },
    prefixChars: withQ.reduce((n, x) => n + x.stats.prefixChars, 0),
    goldArgValues: {
      // over trajectories with a query point: candidate values (>= 3 chars) and those in the prefix
      candidates: withQ.reduce((n, x) => n + x.goldArgValuesDetail.length, 0),
      inPrefix: withQ.reduce((n, x) => n + x.goldArgValues.length, 0),
      inSystemOnly: withQ.reduce((n, x) => n + x.goldArgValuesDetail.filter((d) => !d.inPrefix && d.inSystem).length, 0),
    },
    messages: s.reduce((n, x) => n + x.stats.messages, 0),
    bytes: s.reduce((n, x) => n + x.stats.bytes, 0),
    reusedIds: s.reduce((n, x) => n + x.pairing.reusedIds, 0),
    trajectoriesWithReusedIds: s.filter((x) => x.pairing.reusedIds > 0).length,
    orphanResults: s.reduce((n, x) => n + x.pairing.orphanResults, 0),
    pairingViolations: s.reduce((n, x) => n + x.pairing.violations, 0),
    openAtEnd: s.filter((x) => x.pairing.openAtEnd > 0).length,
  };
}

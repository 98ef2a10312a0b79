// LoCoMo conversations → OpenClaw sessions plus a question sidecar (EVALUATION.md §1).
//
// Variants (see README.md in this folder for the reasoning behind each choice):
//   chat        one message per group of consecutive lines of one speaker; speaker_a is the
//               `user`, speaker_b the `assistant`. Every dated session starts with a user
//               message whose text begins with the date (`[8 May 2023, 1:56 pm] `) and ends
//               with an assistant message, so roles alternate across session boundaries and
//               a session boundary is always a turn boundary. Where the data does not give
//               that shape, one short synthetic message is added (listed in the sidecar).
//   agentic     each dated session is one tool round-trip: user asks to read the log,
//               assistant calls `read_chat_log`, the toolResult holds the lines tagged
//               `[D3:5] Caroline: ...`, assistant acknowledges. Evidence sits in toolResults.
//   multitopic  several conversations interleaved session by session (session 1 of A, of B,
//               of C, session 2 of A, ...), each session rendered as in `chat` (or `agentic`
//               with style "agentic"); the sidecar records where the conversation switches.
//
// A turn (for the engine and for the sidecar's turn indices) starts at each user message.
// Deterministic: timestamps come from the session dates, ids are sequential.

import { SessionWriter, userMessage, assistantMessage, toolResultMessage } from "./openclaw.mjs";

export const VARIANTS = ["chat", "agentic", "multitopic"];
export const CATEGORY_NAMES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };
/** Default number of conversations per multitopic session (see README.md). */
export const DEFAULT_GROUP_SIZE = 3;

const MODEL = { api: "openai-completions", provider: "dataset", model: "locomo" };
const CWD = "/bench/locomo";
const FALLBACK_START = Date.UTC(2023, 0, 1, 12, 0, 0);
const LINE_STEP_MS = 60_000;
const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/**
 * Parses LoCoMo's session date ("1:56 pm on 8 May, 2023") into a UTC millisecond time and
 * the label shown in the session ("8 May 2023, 1:56 pm"). Returns null when it cannot.
 */
export function parseLocomoDate(text) {
  if (typeof text !== "string") return null;
  const m = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?\s*m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  const month = MONTHS.findIndex((name) => name.startsWith(m[5].toLowerCase().slice(0, 3)));
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === "p") hour += 12;
  const ms = Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
  if (!Number.isFinite(ms)) return null;
  const label = `${Number(m[4])} ${MONTHS[month][0].toUpperCase()}${MONTHS[month].slice(1)} ${m[6]}, ${Number(m[1])}:${m[2]} ${m[3].toLowerCase()}m`;
  return { ms, label };
}

/**
 * Normalizes one raw `evidence` entry into dialog ids. Handles the real-data quirks: several
 * ids in one string (`"D9:1 D4:4"`, `"D8:6; D9:17"`), a stray colon (`"D:11:26"` → D11:26)
 * and leading zeros (`"D30:05"` → D30:5).
 * @returns {{ ids: string[], malformed: boolean, unparseable: string[] }}
 */
export function normalizeEvidence(raw) {
  const text = String(raw ?? "");
  const tokens = text.split(/[\s;,]+/).filter(Boolean);
  const ids = [];
  const unparseable = [];
  for (const tok of tokens) {
    const m = /^d:?(\d+):(\d+)$/i.exec(tok);
    if (m) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
    else unparseable.push(tok);
  }
  const malformed = !/^D[1-9]\d*:[1-9]\d*$/.test(text);
  return { ids, malformed, unparseable };
}

/** Lower-case, punctuation-free, single-spaced text for the answer-in-evidence test. */
export function normalizeForMatch(text) {
  return String(text ?? "")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Whether the normalized `needle` occurs in the normalized `hay` on word boundaries. */
export function containsNormalized(hay, needle) {
  const n = normalizeForMatch(needle);
  if (!n) return false;
  return ` ${normalizeForMatch(hay)} `.includes(` ${n} `);
}

/** The rendered text of one dialog line: `Caroline: text [image: caption]`. */
export function renderLine(turn) {
  const caption = turn.caption ? ` [image: ${turn.caption}]` : "";
  return `${turn.speaker}: ${turn.text}${caption}`;
}

/**
 * Reads one LoCoMo sample into sessions sorted by number; empty sessions are dropped and
 * counted.
 */
export function readConversation(sample) {
  const conv = sample?.conversation;
  if (!conv || typeof conv !== "object") throw new Error(`sample ${sample?.sample_id ?? "?"}: no conversation object`);
  const sampleId = String(sample.sample_id ?? "conversation");
  const speakerA = conv.speaker_a;
  const speakerB = conv.speaker_b;
  const sessions = [];
  let emptySessions = 0;
  for (const key of Object.keys(conv)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(conv[key])) continue;
    const n = Number(m[1]);
    const dateRaw = conv[`session_${n}_date_time`] ?? null;
    const turns = conv[key]
      .filter((t) => t && typeof t === "object")
      .map((t, i) => ({
        diaId: typeof t.dia_id === "string" && t.dia_id ? t.dia_id : `D${n}:${i + 1}`,
        speaker: String(t.speaker ?? "?"),
        text: String(t.text ?? ""),
        caption: typeof t.blip_caption === "string" && t.blip_caption.trim() ? t.blip_caption.trim() : null,
        image: Array.isArray(t.img_url) ? t.img_url.length > 0 : Boolean(t.img_url),
      }));
    if (turns.length === 0) {
      emptySessions++;
      continue;
    }
    sessions.push({ n, dateRaw, date: parseLocomoDate(dateRaw), turns });
  }
  sessions.sort((a, b) => a.n - b.n);
  return { sampleId, speakerA, speakerB, sessions, emptySessions, qa: Array.isArray(sample.qa) ? sample.qa : [] };
}

/** Monotonic clock over the data's dates: never goes backwards, 1 s minimum step. */
class Clock {
  constructor() {
    this.last = null;
  }
  at(candidate) {
    const base = this.last == null ? (candidate ?? FALLBACK_START) : Math.max(candidate ?? this.last + 3_600_000, this.last + 1000);
    this.last = base;
    return base;
  }
}

function dateLabel(session) {
  return session.date?.label ?? (session.dateRaw ? String(session.dateRaw) : `session ${session.n}`);
}

/** Writes one dated session in the chat shape; fills `map` with dia_id → location. */
function writeChatSession(w, clock, conv, session, map, synthetic) {
  const start = session.date?.ms ?? null;
  const ts = (lineIndex) => clock.at(start == null ? null : start + lineIndex * LINE_STEP_MS);
  const groups = [];
  for (const [i, t] of session.turns.entries()) {
    const role = t.speaker === conv.speakerA ? "user" : "assistant";
    const last = groups[groups.length - 1];
    if (last && last.role === role) last.turns.push(t);
    else groups.push({ role, first: i, turns: [t] });
  }
  const prefix = `[${dateLabel(session)}] `;
  let first = true;
  if (groups[0].role !== "user") {
    const { index } = w.message(userMessage(`${prefix}(${groups[0].turns[0].speaker} writes first)`, ts(0)));
    synthetic.push(index);
    first = false;
  }
  for (const g of groups) {
    let text = g.turns.map(renderLine).join("\n");
    if (first) text = prefix + text;
    first = false;
    const t = ts(g.first);
    const msg = g.role === "user" ? userMessage(text, t) : assistantMessage([{ type: "text", text }], { timestamp: t, ...MODEL });
    const { id, index } = w.message(msg);
    for (const turn of g.turns) map.set(turn.diaId, { messageIndex: index, entryId: id, turn });
  }
  if (groups[groups.length - 1].role === "user") {
    const other = conv.speakerB ?? "the other speaker";
    const t = ts(session.turns.length);
    const { index } = w.message(assistantMessage([{ type: "text", text: `(${other} does not reply in this session)` }], { timestamp: t, ...MODEL }));
    synthetic.push(index);
  }
}

/** Writes one dated session as a read_chat_log tool round-trip. */
function writeAgenticSession(w, clock, conv, session, map, state, withConversation) {
  const start = session.date?.ms ?? null;
  const ts = (k) => clock.at(start == null ? null : start + k * 1000);
  const callId = `call_${String(++state.calls).padStart(4, "0")}`;
  const args = withConversation ? { conversation: conv.sampleId, session: session.n } : { session: session.n };
  const ask = withConversation ? `Read the chat log for session ${session.n} of ${conv.sampleId}.` : `Read the chat log for session ${session.n}.`;
  w.message(userMessage(ask, ts(0)));
  w.message(assistantMessage([{ type: "toolCall", id: callId, name: "read_chat_log", arguments: args }], { timestamp: ts(1), ...MODEL }));
  const who = [conv.speakerA, conv.speakerB].filter(Boolean).join(" and ");
  const header = `Session ${session.n} of ${who}, ${dateLabel(session)}`;
  const lines = session.turns.map((t) => `[${t.diaId}] ${renderLine(t)}`);
  const { id, index } = w.message(
    toolResultMessage({ toolCallId: callId, toolName: "read_chat_log", content: [header, ...lines].join("\n"), timestamp: ts(2) }),
  );
  for (const turn of session.turns) map.set(turn.diaId, { messageIndex: index, entryId: id, tag: `[${turn.diaId}]`, turn });
  const ack = `Read session ${session.n} (${dateLabel(session)}): ${session.turns.length} lines between ${who}.`;
  w.message(assistantMessage([{ type: "text", text: ack }], { timestamp: ts(3), ...MODEL }));
}

/** Splits conversations into multitopic groups of `groupSize` (a trailing single one joins the previous group). */
export function makeGroups(ids, groupSize = DEFAULT_GROUP_SIZE) {
  if (!groupSize || groupSize >= ids.length) return [ids.slice()];
  const groups = [];
  for (let i = 0; i < ids.length; i += groupSize) groups.push(ids.slice(i, i + groupSize));
  if (groups.length > 1 && groups[groups.length - 1].length === 1) groups[groups.length - 2].push(...groups.pop());
  return groups;
}

/** Turn index of every message (index of the latest user message at or before it; -1 before the first). */
function turnIndexOf(messages) {
  const out = [];
  let turn = -1;
  for (const m of messages) {
    if (m.role === "user") turn++;
    out.push(turn);
  }
  return out;
}

/** Builds the question records of one conversation against its dia_id map. */
function buildQuestions(conv, map, turnOf, multi, evStats) {
  return conv.qa.map((q, qi) => {
    const qid = `${conv.sampleId}:q${String(qi).padStart(3, "0")}`;
    const rawList = Array.isArray(q.evidence) ? q.evidence : q.evidence == null ? [] : [q.evidence];
    const ids = [];
    const dropped = [];
    for (const raw of rawList) {
      evStats.rawEntries++;
      const norm = normalizeEvidence(raw);
      if (norm.malformed) {
        evStats.malformed++;
        evStats.malformedExamples.push({ question: qid, raw: String(raw), ids: norm.ids, unparseable: norm.unparseable });
      }
      for (const tok of norm.unparseable) {
        evStats.unparseable++;
        dropped.push({ raw: String(raw), token: tok, reason: "unparseable" });
        evStats.droppedExamples.push({ question: qid, raw: String(raw), token: tok, reason: "unparseable" });
      }
      for (const id of norm.ids) {
        evStats.ids++;
        if (ids.includes(id)) continue;
        if (map.has(id)) ids.push(id);
        else {
          evStats.dangling++;
          dropped.push({ raw: String(raw), token: id, reason: "no such turn" });
          evStats.droppedExamples.push({ question: qid, raw: String(raw), token: id, reason: "no such turn" });
        }
      }
    }
    const locs = ids.map((id) => map.get(id));
    const evidenceMessages = [...new Set(locs.map((l) => l.messageIndex))].sort((a, b) => a - b);
    const entryOf = new Map(locs.map((l) => [l.messageIndex, l.entryId]));
    const category = Number(q.category);
    const answer = q.answer == null ? null : String(q.answer);
    const answerInEvidence = answer != null && locs.some((l) => containsNormalized(renderLine(l.turn), answer));
    const rec = {
      id: qid,
      conversation: conv.sampleId,
      question: String(q.question ?? ""),
      answer,
      category,
      categoryName: CATEGORY_NAMES[category] ?? "unknown",
      evidence: ids,
      evidenceRaw: rawList.map(String),
      evidenceMessages,
      evidenceEntryIds: evidenceMessages.map((i) => entryOf.get(i)),
      evidenceTurns: [...new Set(evidenceMessages.map((i) => turnOf[i]))],
      answerInEvidence,
      scorable: category !== 5 && evidenceMessages.length > 0,
    };
    if (q.adversarial_answer != null) rec.adversarialAnswer = String(q.adversarial_answer);
    if (dropped.length) rec.evidenceDropped = dropped;
    if (rawList.length === 0) rec.noEvidence = true;
    if (multi) rec.evidenceKeys = ids.map((id) => `${conv.sampleId}:${id}`);
    return rec;
  });
}

function questionStats(questions) {
  const byCategory = {};
  for (const q of questions) byCategory[q.category] = (byCategory[q.category] ?? 0) + 1;
  return {
    total: questions.length,
    byCategory,
    scorable: questions.filter((q) => q.scorable).length,
    noEvidence: questions.filter((q) => q.noEvidence).length,
    allEvidenceDropped: questions.filter((q) => !q.noEvidence && q.evidence.length === 0).length,
    answerInEvidence: questions.filter((q) => q.answerInEvidence).length,
    answerInEvidenceScorable: questions.filter((q) => q.answerInEvidence && q.scorable).length,
  };
}

function messageStats(w, synthetic) {
  const roles = { user: 0, assistant: 0, toolResult: 0 };
  let chars = 0;
  for (const m of w.messages) {
    roles[m.role] = (roles[m.role] ?? 0) + 1;
    for (const p of m.content) chars += (p.text ?? "").length;
  }
  return { messages: w.messages.length, turns: roles.user, ...roles, synthetic: synthetic.length, textChars: chars };
}

/**
 * Converts one group of conversations (one for chat/agentic, several for multitopic) into a
 * session. `style` is "chat" or "agentic".
 * @returns {{ name: string, jsonl: string, sidecar: any, messages: any[] }}
 */
function convertGroup(convs, { variant, style }) {
  const multi = variant === "multitopic";
  const name = multi
    ? `locomo.multitopic${style === "agentic" ? "-agentic" : ""}.${convs.map((c) => c.sampleId).join("+")}`
    : `locomo.${convs[0].sampleId}.${variant}`;
  const sessionId = name.replace(/^locomo\./, "locomo-").replace(/[.+]/g, "-");
  const firstDate = convs.map((c) => c.sessions[0]?.date?.ms).find((ms) => ms != null) ?? FALLBACK_START;
  const w = new SessionWriter({ id: sessionId, timestamp: firstDate, cwd: CWD });
  const clock = new Clock();
  const maps = new Map(convs.map((c) => [c.sampleId, new Map()]));
  const synthetic = [];
  const segments = [];
  const state = { calls: 0 };
  // Interleave by session rank: rank 0 of every conversation, then rank 1, ...
  const maxRank = Math.max(0, ...convs.map((c) => c.sessions.length));
  for (let rank = 0; rank < maxRank; rank++) {
    for (const conv of convs) {
      const session = conv.sessions[rank];
      if (!session) continue;
      const startMessage = w.nextIndex;
      const startEntry = w.seq + 1;
      if (style === "agentic") writeAgenticSession(w, clock, conv, session, maps.get(conv.sampleId), state, multi);
      else writeChatSession(w, clock, conv, session, maps.get(conv.sampleId), synthetic);
      segments.push({
        conversation: conv.sampleId,
        session: session.n,
        date: session.dateRaw,
        startMessage,
        endMessage: w.nextIndex - 1,
        startEntryId: `m${String(startEntry).padStart(4, "0")}`,
      });
    }
  }
  const turnOf = turnIndexOf(w.messages);
  for (const s of segments) s.startTurn = turnOf[s.startMessage];
  const evStats = { rawEntries: 0, ids: 0, malformed: 0, unparseable: 0, dangling: 0, malformedExamples: [], droppedExamples: [] };
  const questions = convs.flatMap((c) => buildQuestions(c, maps.get(c.sampleId), turnOf, multi, evStats));
  evStats.dropped = evStats.unparseable + evStats.dangling;

  const diaMap = {};
  for (const [conv, map] of maps) {
    diaMap[conv] = {};
    for (const [dia, loc] of map)
      diaMap[conv][dia] = loc.tag
        ? { messageIndex: loc.messageIndex, entryId: loc.entryId, tag: loc.tag }
        : { messageIndex: loc.messageIndex, entryId: loc.entryId };
  }
  const sidecar = {
    format: "contextfold-bench/locomo@1",
    name,
    session: `${name}.jsonl`,
    sessionId,
    variant,
    style,
    turnDefinition: "a turn starts at each user message; turn k is the k-th user message (0-based)",
    conversations: convs.map((c) => ({
      sampleId: c.sampleId,
      speakerA: c.speakerA,
      speakerB: c.speakerB,
      roles: { [c.speakerA]: "user", [c.speakerB]: "assistant" },
      sessions: c.sessions.length,
      emptySessions: c.emptySessions,
      dialogTurns: c.sessions.reduce((n, s) => n + s.turns.length, 0),
      questions: c.qa.length,
    })),
    turnStarts: w.messages.flatMap((m, i) => (m.role === "user" ? [i] : [])),
    syntheticMessages: synthetic,
    diaMap,
    questions,
  };
  if (multi) {
    sidecar.segments = segments;
    sidecar.switches = segments.flatMap((s, i) =>
      i > 0 && segments[i - 1].conversation !== s.conversation
        ? [{ messageIndex: s.startMessage, turnIndex: s.startTurn, entryId: s.startEntryId, from: segments[i - 1].conversation, to: s.conversation }]
        : [],
    );
  }
  const jsonl = w.toJsonl();
  sidecar.stats = {
    ...messageStats(w, synthetic),
    bytes: Buffer.byteLength(jsonl),
    dialogTurns: sidecar.conversations.reduce((n, c) => n + c.dialogTurns, 0),
    sessions: segments.length,
    questions: questionStats(questions),
    evidence: evStats,
  };
  if (multi) sidecar.stats.switches = sidecar.switches.length;
  return { name, jsonl, sidecar, messages: w.messages };
}

/**
 * Converts LoCoMo samples (the parsed `locomo*.json` array).
 * @param {any[]} samples
 * @param {{ variant?: "chat"|"agentic"|"multitopic", style?: "chat"|"agentic", groupSize?: number, groups?: string[][] }} [opts]
 *   `style` applies to multitopic only (default "chat"); `groups` (sample ids) overrides `groupSize`.
 * @returns {{ name: string, jsonl: string, sidecar: any, messages: any[] }[]}
 */
export function convertLocomo(samples, { variant = "chat", style, groupSize = DEFAULT_GROUP_SIZE, groups } = {}) {
  if (!VARIANTS.includes(variant)) throw new Error(`unknown LoCoMo variant "${variant}" (expected ${VARIANTS.join(", ")})`);
  if (!Array.isArray(samples)) throw new Error("LoCoMo input must be a JSON array of samples");
  const convs = samples.map(readConversation);
  if (variant !== "multitopic") return convs.map((c) => convertGroup([c], { variant, style: variant }));
  style = style ?? "chat";
  if (!["chat", "agentic"].includes(style)) throw new Error(`unknown multitopic style "${style}" (expected chat or agentic)`);
  const byId = new Map(convs.map((c) => [c.sampleId, c]));
  const idGroups =
    groups ??
    makeGroups(
      convs.map((c) => c.sampleId),
      groupSize,
    );
  return idGroups.map((ids) =>
    convertGroup(
      ids.map((id) => {
        const c = byId.get(id);
        if (!c) throw new Error(`multitopic group names unknown conversation "${id}"`);
        return c;
      }),
      { variant, style },
    ),
  );
}

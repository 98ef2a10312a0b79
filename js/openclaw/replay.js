// A minimal host for `contextfold replay`: drives the plugin's engine adapter (engine.js)
// over a recorded session exactly as OpenClaw drives it, with a throwaway state dir and a
// transcript it writes itself. Per replayed user turn, as the host does for a session that
// already has a transcript:
//   factory → bootstrap → maintain → assemble(history before the user message, prompt = its
//   text, tokenBudget) → the turn's entries land in the transcript → commitTurn → maintain
//   (the background step: summaries, sub-topic labels) → dispose
// The transcript is `<host state>/agents/main/sessions/<id>.jsonl`, where the adapter reads
// older hosts' transcripts; at each assemble it holds the active branch up to the entry
// before the turn's user message. An LLM is used for the background step only when the
// caller passes one (`llm`, what the host offers as runtimeContext.llm); otherwise the
// engine's deterministic summaries and labels are used. Nothing is kept: the folder (in
// memory where possible) is removed and the live session dropped when the replay ends.
import { mkdtempSync, mkdirSync, writeFileSync, appendFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { createEngine, liveSessions } from "./engine.js";
import { promptText } from "../core/replay.js";

/** @import { Message } from "../core/types.js" */
/** @import { ReplayRequest, ReplayTimeline, TranscriptLine } from "../core/replay.js" */
/** @import { Engine, HostMessages, HostRuntimeContext, Logger } from "./engine.js" */

/**
 * Where the throwaway state goes: memory-backed /dev/shm where there is one (the engine
 * fsyncs every record it writes, which on a disk costs more than the replay itself), else
 * the system's temp folder.
 */
function scratchDir() {
  try {
    if (statSync("/dev/shm").isDirectory()) return "/dev/shm";
  } catch {
    // no /dev/shm here
  }
  return os.tmpdir();
}

/**
 * @param {ReplayTimeline} timeline
 * @param {object} o
 * @param {Uint8Array} [o.bytes]  the input's bytes (an OpenClaw JSONL: its lines are written as they were)
 * @param {number[]} o.turns      positions of the user messages to replay
 * @param {object} [o.config]     the plugin config (stateDir is replaced)
 * @param {number} o.budget       the tokenBudget the host passes
 * @param {HostRuntimeContext["llm"]} [o.llm] the host's LLM for the background step
 * @param {(j: number) => void} [o.onRequest]
 * @returns {Promise<{requests: ReplayRequest[], warnings: string[]}>}
 */
export async function replayThroughAdapter(timeline, { bytes, turns, config = {}, budget, llm, onRequest }) {
  const { lines, header, messages, entryOfMessage } = timeline;
  const root = mkdtempSync(path.join(scratchDir(), "contextfold-replay-"));
  const sessionId = `replay-${randomBytes(4).toString("hex")}`;
  const sessionKey = `agent:main:${sessionId}`;
  const params = { sessionId, sessionKey };
  const hostStateDir = path.join(root, "host");
  const stateDir = path.join(root, "state");
  const transcript = path.join(hostStateDir, "agents", "main", "sessions", `${sessionId}.jsonl`);
  /** @type {string[]} */
  const warnings = [];
  /** @type {Logger} */
  const logger = { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  /** @param {TranscriptLine} l */
  const lineText = (l) => {
    if (!l.range || !bytes) return `${JSON.stringify(l.value)}\n`;
    const b = bytes.subarray(l.range[0], l.range[1]);
    return b[b.length - 1] === 0x0a ? b : Buffer.concat([b, Buffer.from("\n")]);
  };
  /** @param {number} from @param {number} to */
  const land = (from, to) => {
    for (let i = from; i < to; i++) appendFileSync(transcript, lineText(lines[i]));
  };
  /** @type {ReplayRequest[]} */
  const requests = [];
  try {
    mkdirSync(path.dirname(transcript), { recursive: true });
    writeFileSync(transcript, `${JSON.stringify(header ?? { type: "session", version: 4, id: sessionId })}\n`);
    let written = 0;
    if (turns.length > 0) {
      land(0, entryOfMessage[turns[0]]);
      written = entryOfMessage[turns[0]];
    }
    const engineConfig = { ...config, stateDir };
    /** @type {HostRuntimeContext} */
    const runtimeContext = llm ? { llm } : {};
    for (let j = 0; j < turns.length; j++) {
      const u = turns[j];
      const engine = createEngine({ logger, config: engineConfig, stateDir, hostStateDir });
      if (written > 0) {
        await engine.bootstrap({ ...params, sessionFile: sessionKey, runtimeContext });
        await engine.maintain({ ...params, sessionFile: sessionKey, runtimeContext });
      }
      // The host hands over its own fresh copies of the history each turn. The messages the
      // engine kept are put back as the session's own objects, so that the requests share
      // them instead of each holding a copy of the history.
      const original = messages.slice(0, u);
      const history = structuredClone(original);
      // The recorded messages as the host's (the engine reads every shape it knows).
      const hostHistory = /** @type {HostMessages} */ (history);
      const r = await engine.assemble({ ...params, messages: hostHistory, tokenBudget: budget, prompt: promptText(messages[u]) });
      /** @type {Map<Message, Message>} */
      const own = new Map(history.map((m, i) => [m, original[i]]));
      requests.push({ turn: u, messages: r.messages.map((m) => own.get(m) ?? m) });
      onRequest?.(j);
      const end = j + 1 < turns.length ? entryOfMessage[turns[j + 1]] : lines.length;
      land(written, end);
      written = end;
      const turnMessages = messages.slice(u, j + 1 < turns.length ? turns[j + 1] : messages.length);
      // The engine reads the advancement key, the session and the messages only; the host's
      // transcript anchors (admission, terminal) are not modelled here.
      const commit = /** @type {Parameters<Engine["commitTurn"]>[0]} */ ({
        ...params,
        advancementKey: lines[entryOfMessage[u]].value.id,
        messages: turnMessages,
      });
      await engine.commitTurn(commit);
      await engine.maintain({ ...params, sessionFile: sessionKey, runtimeContext });
      await engine.dispose();
    }
  } finally {
    liveSessions().map.delete(sessionKey);
    rmSync(root, { recursive: true, force: true });
  }
  return { requests, warnings };
}

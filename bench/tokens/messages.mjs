// Whole conversations as OpenClaw `AgentMessage`s, for the message-level check, and the
// text the model is shown for each message (what the exact side of the check tokenizes).
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { dataFiles, sessionKeys, taubenchTrajectories } from "./corpus.mjs";

const text = (t) => ({ type: "text", text: t });

/** LoCoMo: one conversation per sample; speaker A is the user, speaker B the assistant. */
function locomo(dataDir) {
  const out = [];
  for (const file of dataFiles(dataDir, "locomo", ".json")) {
    let data;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    for (const sample of Array.isArray(data) ? data : [data]) {
      const conv = sample?.conversation;
      if (!conv) continue;
      const messages = [];
      for (const key of sessionKeys(conv)) {
        for (const turn of conv[key]) {
          const role = turn.speaker === conv.speaker_a ? "user" : "assistant";
          messages.push({ role, content: [text(turn.text)] });
        }
      }
      out.push({ name: sample.sample_id, messages });
    }
  }
  return out;
}

/** tau-bench: OpenAI chat messages rewritten as OpenClaw ones (the system prompt is not a message there). */
function taubench(dataDir) {
  return taubenchTrajectories(dataDir).map((t) => {
    const messages = [];
    const names = new Map();
    for (const m of t.traj) {
      if (m.role === "user") messages.push({ role: "user", content: [text(m.content ?? "")] });
      else if (m.role === "assistant") {
        const content = [];
        if (m.content) content.push(text(m.content));
        for (const c of m.tool_calls ?? []) {
          let args;
          try {
            args = JSON.parse(c.function.arguments);
          } catch {
            args = c.function.arguments;
          }
          names.set(c.id, c.function.name);
          content.push({ type: "toolCall", id: c.id, name: c.function.name, arguments: args });
        }
        messages.push({ role: "assistant", content, stopReason: m.tool_calls?.length ? "toolUse" : "stop" });
      } else if (m.role === "tool") {
        messages.push({
          role: "toolResult",
          toolCallId: m.tool_call_id,
          toolName: m.name ?? names.get(m.tool_call_id) ?? "",
          content: [text(m.content ?? "")],
          isError: false,
        });
      }
    }
    return { name: t.name, messages };
  });
}

/** Claude Code transcripts (Anthropic blocks) rewritten as OpenClaw messages. */
function claudeCode(dataDir) {
  const out = [];
  for (const p of dataFiles(dataDir, "claude-code", ".jsonl")) {
    const messages = [];
    for (const line of readFileSync(p, "utf8").split("\n")) {
      let m;
      try {
        m = JSON.parse(line).message;
      } catch {
        continue;
      }
      if (!m || (m.role !== "user" && m.role !== "assistant")) continue;
      if (typeof m.content === "string") {
        messages.push({ role: m.role, content: [text(m.content)] });
        continue;
      }
      const parts = [];
      for (const b of m.content ?? []) {
        if (b.type === "text") parts.push(text(b.text));
        else if (b.type === "thinking") parts.push({ type: "thinking", thinking: b.thinking, thinkingSignature: b.signature ?? "" });
        else if (b.type === "tool_use") parts.push({ type: "toolCall", id: b.id, name: b.name, arguments: b.input });
        else if (b.type === "tool_result") {
          const body =
            typeof b.content === "string"
              ? b.content
              : (b.content ?? [])
                  .filter((x) => x.type === "text")
                  .map((x) => x.text)
                  .join("\n");
          messages.push({ role: "toolResult", toolCallId: b.tool_use_id, toolName: "", content: [text(body)], isError: !!b.is_error });
        }
      }
      if (parts.length) messages.push({ role: m.role, content: parts });
    }
    out.push({ name: p, messages });
  }
  return out;
}

/** The project's built-in OpenClaw session (synthetic, but in the native format). */
function sampleSession(repo) {
  const p = join(repo, "samples", "session.jsonl");
  if (!existsSync(p)) return [];
  const messages = readFileSync(p, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "message" && e.message)
    .map((e) => e.message);
  return [{ name: "samples/session.jsonl", messages }];
}

/** Conversation sources of the message-level check. */
export function conversations({ repo, dataDir }) {
  return [
    { name: "LoCoMo (user/assistant text)", conversations: locomo(dataDir) },
    { name: "tau-bench (text, tool calls, tool results)", conversations: taubench(dataDir) },
    { name: "Claude Code (thinking, tool calls, results)", conversations: claudeCode(dataDir) },
    { name: "samples/session.jsonl (synthetic)", conversations: sampleSession(repo) },
  ];
}

/**
 * The strings of a message that the model reads, as the exact side of the check counts them:
 * text and thinking as written, a tool call as its name plus its compact JSON arguments.
 * Images are returned separately (they have a fixed cost, not a text count).
 */
export function messageTexts(m) {
  const strings = [];
  let images = 0;
  const c = m.content;
  if (typeof c === "string") strings.push(c);
  else if (Array.isArray(c)) {
    for (const p of c) {
      if (p.type === "text") strings.push(p.text ?? "");
      else if (p.type === "thinking") strings.push(p.thinking ?? "");
      else if (p.type === "toolCall") {
        strings.push(p.name ?? "");
        const a = p.arguments ?? null;
        if (a !== null) strings.push(typeof a === "string" ? a : JSON.stringify(a));
      } else if (p.type === "image") images++;
    }
  }
  return { strings, images };
}

#!/usr/bin/env node
// Fake OpenAI-compatible chat-completions server for the contextfold end-to-end test.
//
// Listens on 127.0.0.1 only. Usage:
//   node fake-model.mjs [--port N] [--log FILE]
//   (or FAKE_MODEL_PORT / FAKE_MODEL_LOG; port 0 = pick a free port)
// Prints one JSON line `{"listening":<port>}` on stdout once ready.
//
// Behaviour (deterministic, driven by the conversation it is sent):
// - Every completion first streams `delta.reasoning_content` = "REASONING-<n>" (n = 1-based
//   index of the chat-completions request), so a host that lists the model with
//   `"reasoning": true` stores a thinking block for every assistant message.
// - If the messages after the last assistant/tool message are user messages whose text contains
//   "use the tool" together with "read <path>", it answers with a tool call to the host's built-in
//   `read` tool for that path (or through the `tool_call` wrapper when only that is offered).
// - If the last message is a tool result, or no tool is wanted, it answers with the text
//   "ANSWER-<n>".
// - A request that offers no tools (a plugin's own side call, e.g. a summary or a label) gets
//   "AUX-<n>: ..." or, when it asks for JSON after a {...} template, the template filled in.
// - Every request is appended as one JSON line `{n, t, method, url, body}` to the log file.
import http from "node:http";
import fs from "node:fs";

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const PORT = Number(argValue("--port") ?? process.env.FAKE_MODEL_PORT ?? 0);
const LOG = argValue("--log") ?? process.env.FAKE_MODEL_LOG ?? "fake-model-requests.jsonl";

let completions = 0;
let toolCalls = 0;

function textOf(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : p?.text ?? "")).join("\n");
  return "";
}

function decide(body, n) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const last = msgs[msgs.length - 1];
  const offered = new Set((body.tools ?? []).map((t) => t?.function?.name).filter(Boolean));
  if (last?.role === "user") {
    // the host may send the prompt plus a second user message carrying runtime context
    let i = msgs.length - 1;
    while (i >= 0 && msgs[i].role === "user") i--;
    const pending = msgs.slice(i + 1).map(textOf).join("\n");
    const m = /use the tool\b[^\n]*?\bread\s+(\S+)/i.exec(pending);
    if (m) {
      const path = m[1].replace(/[.,;:!?"')\]]+$/, "");
      const id = `call_fake_${++toolCalls}`;
      if (offered.has("read")) return { tool: { id, name: "read", args: { path } } };
      if (offered.has("tool_call")) return { tool: { id, name: "tool_call", args: { id: "read", args: { path } } } };
    }
  }
  let a = msgs.length - 1;
  while (a >= 0 && msgs[a].role !== "assistant") a--;
  const after = a >= 0 && msgs.slice(a + 1).some((m) => m.role === "tool") ? " after tool" : "";
  if (!offered.size) return { text: auxAnswer(textOf(last), n) };
  return { text: `ANSWER-${n}${after} (saw ${msgs.length} msgs)` };
}

// A tool-free completion (e.g. a plugin's own summary or labelling call). When it asks for
// JSON after a template like {"label": "<...>", "flag": true|false}, fill in the template.
function auxAnswer(prompt, n) {
  const m = /JSON[^{]*(\{[^{}]*\})/.exec(prompt);
  if (m) {
    const filled = m[1]
      .replace(/"<[^">]*>"/g, `"fake label ${n}"`)
      .replace(/\btrue\|false\b/g, "false")
      .replace(/\bfalse\|true\b/g, "false");
    try { return JSON.stringify(JSON.parse(filled)); } catch { /* not a template */ }
  }
  return `AUX-${n}: fake summary of the given text.`;
}

function handleCompletion(body, res, n) {
  const r = decide(body, n);
  const id = `chatcmpl-fake-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? "fake-model";
  const reasoning = `REASONING-${n}`;
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  const toolCall = r.tool && {
    id: r.tool.id,
    type: "function",
    function: { name: r.tool.name, arguments: JSON.stringify(r.tool.args) },
  };
  if (!body.stream) {
    const message = r.tool
      ? { role: "assistant", content: null, reasoning_content: reasoning, tool_calls: [toolCall] }
      : { role: "assistant", content: r.text, reasoning_content: reasoning };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id, object: "chat.completion", created, model,
      choices: [{ index: 0, message, finish_reason: r.tool ? "tool_calls" : "stop" }], usage,
    }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (delta, finish_reason = null, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
  chunk({ role: "assistant", reasoning_content: "" });
  chunk({ reasoning_content: `${reasoning} ` });
  chunk({ reasoning_content: "thinking about the request." });
  if (r.tool) {
    chunk({ tool_calls: [{ index: 0, ...toolCall }] });
    chunk({}, "tool_calls", { usage });
  } else {
    chunk({ content: r.text });
    chunk({}, "stop", { usage });
  }
  res.write("data: [DONE]\n\n");
  res.end();
}

const server = http.createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    let body = {};
    try { body = data ? JSON.parse(data) : {}; } catch { body = { unparsed: data }; }
    const isCompletion = req.method === "POST" && req.url.endsWith("/chat/completions");
    const n = isCompletion ? ++completions : 0;
    fs.appendFileSync(LOG, JSON.stringify({ n, t: Date.now(), method: req.method, url: req.url, body }) + "\n");
    if (req.url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }] }));
      return;
    }
    if (!isCompletion) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    handleCompletion(body, res, n);
  });
});

server.listen(PORT, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ listening: server.address().port }) + "\n");
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => server.close(() => process.exit(0)));

// A scripted fake OpenAI-compatible model, in process, for the end-to-end test of the agent
// tools. Listens on 127.0.0.1 only.
//
// The prompt scripts it: every line `CALL <tool> <json args>` in the pending user message is
// one tool call, made in order (the first when the prompt arrives, the next after each tool
// result); then it answers `ANSWER-<n>`. A tool the request does not offer by name is called
// through the host's `tool_call` wrapper (`{id: "<tool>", args: {...}}`), as the host exposes
// plugin tools by default. In the args, the string `"$STUB_ID"` is replaced by the turn id of
// the first fold stub in this very request, `"$STUB_ID:<tag>"` by that of the stub that
// follows the user message containing <tag> (how a model would read it off
// `[folded … — turn <id> …]`).
//
// Requests are kept in memory (`requests()`), each `{n, body}`, and appended to `logFile` as
// JSON lines when one is given.
import http from "node:http";
import fs from "node:fs";

export const textOf = (m) =>
  typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("\n") : "";

const STUB = /\[folded[^\]]*? — turns? ([^\s,()\]]+)/;

/** The turn id in the first fold stub, or in the one after the user message containing `tag`. */
export function stubIdAfter(messages, tag) {
  const at = tag === undefined ? -1 : messages.findIndex((m) => m.role === "user" && textOf(m).includes(tag));
  if (tag !== undefined && at < 0) return null;
  for (const m of messages.slice(at + 1)) {
    if (tag !== undefined && m.role === "user") break;
    const hit = STUB.exec(textOf(m));
    if (hit) return hit[1];
  }
  return null;
}

function resolve(value, messages) {
  if (value === "$STUB_ID") return stubIdAfter(messages) ?? "stub-not-found";
  if (typeof value === "string" && value.startsWith("$STUB_ID:")) return stubIdAfter(messages, value.slice(9)) ?? "stub-not-found";
  if (Array.isArray(value)) return value.map((v) => resolve(v, messages));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, messages)]));
  return value;
}

/** What to answer: `{tool: {id, name, args}}` or `{text}`. */
export function decide(body, n, counter) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const offered = new Set((body.tools ?? []).map((t) => t?.function?.name).filter(Boolean));
  if (!offered.size) return { text: `AUX-${n}: fake side answer.` };
  // the current turn: everything after the last final answer (an assistant message without
  // tool calls); the host may add user messages of its own after a tool result
  let u = msgs.length - 1;
  while (u >= 0 && !(msgs[u].role === "assistant" && !msgs[u].tool_calls?.length)) u--;
  const turn = msgs.slice(u + 1);
  const prompt = turn
    .filter((m) => m.role === "user")
    .map(textOf)
    .join("\n");
  const results = turn.filter((m) => m.role === "tool").length;
  const calls = [...prompt.matchAll(/^.*?CALL (\w+) (\{.*\})\s*$/gm)].map((m) => ({ tool: m[1], args: m[2] }));
  const next = calls[results];
  if (next) {
    let args;
    try {
      args = resolve(JSON.parse(next.args), msgs);
    } catch {
      return { text: `ANSWER-${n} (bad CALL args ${next.args})` };
    }
    const id = `call_cf_${++counter.calls}`;
    if (offered.has(next.tool)) return { tool: { id, name: next.tool, args } };
    if (offered.has("tool_call")) return { tool: { id, name: "tool_call", args: { id: next.tool, args } } };
    return { text: `ANSWER-${n} (tool ${next.tool} not offered)` };
  }
  return { text: `ANSWER-${n}${results ? " after tool" : ""}` };
}

/**
 * Starts the model.
 * @param {{logFile?: string}} [o]
 * @returns {Promise<{port: number, requests: () => any[], stop: () => Promise<void>}>}
 */
export async function startToolModel({ logFile } = {}) {
  const log = [];
  const counter = { completions: 0, calls: 0 };
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (req.url.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }] }));
        return;
      }
      if (!(req.method === "POST" && req.url.endsWith("/chat/completions"))) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body = {};
      try {
        body = JSON.parse(data || "{}");
      } catch {
        body = { unparsed: data };
      }
      const n = ++counter.completions;
      log.push({ n, body });
      if (logFile) fs.appendFileSync(logFile, JSON.stringify({ n, t: Date.now(), body }) + "\n");
      const r = decide(body, n, counter);
      const id = `chatcmpl-cf-${n}`;
      const created = Math.floor(Date.now() / 1000);
      const model = body.model ?? "fake-model";
      const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
      const call = r.tool && { id: r.tool.id, type: "function", function: { name: r.tool.name, arguments: JSON.stringify(r.tool.args) } };
      if (!body.stream) {
        const message = r.tool ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: r.text };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id,
            object: "chat.completion",
            created,
            model,
            choices: [{ index: 0, message, finish_reason: r.tool ? "tool_calls" : "stop" }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      const chunk = (delta, finish_reason = null, extra = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
        );
      chunk({ role: "assistant", content: "" });
      if (r.tool) {
        chunk({ tool_calls: [{ index: 0, ...call }] });
        chunk({}, "tool_calls", { usage });
      } else {
        chunk({ content: r.text });
        chunk({}, "stop", { usage });
      }
      res.write("data: [DONE]\n\n");
      res.end();
    });
  });
  await /** @type {Promise<void>} */ (new Promise((resolveListen) => server.listen(0, "127.0.0.1", () => resolveListen())));
  return {
    port: /** @type {import("node:net").AddressInfo} */ (server.address()).port,
    requests: () => log.slice(),
    stop: () =>
      new Promise((done) => {
        server.close(() => done());
        server.closeAllConnections?.();
      }),
  };
}

// A fake Anthropic Messages API server, in process, for end-to-end tests that need the host to
// treat the model as Anthropic (e.g. its `cache-ttl` context pruning). Listens on 127.0.0.1 only.
//
// POST /v1/messages (streamed, as the host always asks) answers with the text "ANSWER-<n>"
// (n = 1-based index of the request). Requests are kept in memory (`requests()`, each
// `{n, body}`) and appended to `logFile` as JSON lines when one is given.
import http from "node:http";
import fs from "node:fs";

/**
 * @param {{logFile?: string}} [opts]
 * @returns {Promise<{port: number, requests: () => object[], stop: () => Promise<void>}>}
 */
export async function startFakeAnthropic({ logFile } = {}) {
  const log = [];
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (!(req.method === "POST" && req.url.endsWith("/messages"))) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body = {};
      try {
        body = JSON.parse(data || "{}");
      } catch {
        body = { unparsed: data };
      }
      const n = log.length + 1;
      log.push({ n, body });
      if (logFile) fs.appendFileSync(logFile, JSON.stringify({ n, t: Date.now(), body }) + "\n");
      const text = `ANSWER-${n}`;
      const usage = { input_tokens: 100, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      const event = (type, payload) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
      event("message_start", {
        message: {
          id: `msg_fake_${n}`,
          type: "message",
          role: "assistant",
          model: body.model ?? "fake-model",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      });
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
      event("content_block_stop", { index: 0 });
      event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } });
      event("message_stop", {});
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
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

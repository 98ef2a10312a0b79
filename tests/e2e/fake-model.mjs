#!/usr/bin/env node
// Fake OpenAI-compatible chat-completions server for the contextfold end-to-end test.
//
// Listens on 127.0.0.1 only. Usage:
//   node fake-model.mjs [--port N] [--log FILE] [--long-answers]
//   (or FAKE_MODEL_PORT / FAKE_MODEL_LOG / FAKE_MODEL_LONG_ANSWERS=1; port 0 = pick a free port)
// Prints one JSON line `{"listening":<port>}` on stdout once ready.
//
// Behaviour (deterministic, driven by the conversation it is sent):
// - Every completion first streams `delta.reasoning_content` = "REASONING-<n>" (n = 1-based
//   index of the chat-completions request), so a host that lists the model with
//   `"reasoning": true` stores a thinking block for every assistant message.
// - If the messages after the last assistant/tool message are user messages whose text contains
//   "use the tool" together with "read <path>", it answers with a tool call to the host's built-in
//   `read` tool for that path (or through the `tool_call` wrapper when only that is offered).
// - If those pending user messages contain "use the tool <name> with args {...}" (the JSON
//   object up to the end of the line), it calls that tool with those arguments (directly when
//   offered, else through the `tool_call` wrapper).
// - If the last message is a tool result, or no tool is wanted, it answers with the text
//   "ANSWER-<n>".
// - With --long-answers, a prompt that names one of the built-in topics (weather/climate,
//   sourdough baking, Rust borrow-checker errors) is answered instead with a long text on that
//   topic (~400-500 estimated tokens): "ANSWER-<n> on <topic>." followed by sentences drawn from
//   the topic's pool, rotated by n, and a unique reference word "ref<n>q". Prompts naming no
//   topic, and follow-ups after a tool result, get the usual "ANSWER-<n> ..." text.
// - An agent request whose pending user messages contain "SLOW-<ms>" is answered after <ms>
//   milliseconds (a turn that keeps the host busy, e.g. while its config changes).
// - A request that offers no tools (a plugin's own side call, e.g. a summary or a label) gets
//   "AUX-<n>: ..." or, when it asks for JSON after a {...} template, the template filled in.
// - Every request is appended as one JSON line `{n, t, method, url, body}` to the log file.
//
// Opt-in faults of the side calls, used by llm-faults.test.mjs (off unless --side-faults FILE /
// FAKE_MODEL_SIDE_FAULTS=FILE is given; agent requests, which offer tools, are never affected):
// before answering a side call the server reads FILE, whose trimmed content names the current
// mode, so a test can switch modes between turns without restarting anything:
//   ok         the usual side-call answer (also when FILE is missing, empty or unknown)
//   hang       never answers; the request stays open until the client disconnects
//   error      HTTP 500 with an OpenAI-style error body
//   empty      a completion whose text is empty
//   reasoning  a completion with reasoning_content only, no content
//   garbage    "GARBAGE-<n>" followed by noise: neither the requested JSON nor a summary
// With the switch on, each side call's log line also carries `sideFault: <mode>`, and a hanging
// call the client gives up on is logged as `{n: 0, t, event: "hang-closed", of: <n>, ms: <open
// ms>}`. On SIGTERM/SIGINT hanging calls still open are cut so the server closes at once.
import http from "node:http";
import fs from "node:fs";

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const PORT = Number(argValue("--port") ?? process.env.FAKE_MODEL_PORT ?? 0);
const LOG = argValue("--log") ?? process.env.FAKE_MODEL_LOG ?? "fake-model-requests.jsonl";
const LONG_ANSWERS = process.argv.includes("--long-answers") || process.env.FAKE_MODEL_LONG_ANSWERS === "1";
const SIDE_FAULTS = argValue("--side-faults") ?? process.env.FAKE_MODEL_SIDE_FAULTS;
const FAULT_MODES = new Set(["ok", "hang", "error", "empty", "reasoning", "garbage"]);

/** The side-call mode named by the control file (re-read on every side call). */
function sideFaultMode() {
  let mode = "";
  try {
    mode = fs.readFileSync(SIDE_FAULTS, "utf8").trim();
  } catch {
    /* missing: ok */
  }
  return FAULT_MODES.has(mode) ? mode : "ok";
}

/** Responses of hanging side calls still open (cut at shutdown). */
const hanging = new Set();

// Topics of --long-answers: the keywords that select one, and its pool of sentences. The pools
// share no content words, so a lexical topic segmenter sees three clearly different subjects.
const TOPICS = [
  {
    name: "weather",
    keywords: /\b(weather|climate|forecast|barometric|thunderstorm|monsoon|humidity|jet stream)\b/i,
    sentences: [
      "Barometric pressure falls ahead of an approaching cold front because warm moist air rises and the column above the station weighs less.",
      "Cumulonimbus towers grow when humid air near the ground is heated by sunshine and lifted past the condensation level into unstable layers.",
      "Meteorologists read synoptic charts by following isobars, where tightly packed lines signal strong gradient winds and stormy conditions.",
      "The jet stream steers midlatitude cyclones eastward, and a meandering jet often brings persistent blocking highs with heatwaves or cold snaps.",
      "Relative humidity describes how close the air is to saturation, while the dew point gives the temperature at which fog or dew would form.",
      "Monsoon circulations reverse seasonally because land heats faster than ocean, drawing moist maritime air inland during summer months.",
      "Climate normals average thirty years of observations, so a single hot summer is weather while a shifting normal indicates climate change.",
      "Ensemble forecasts run many perturbed simulations, and the spread among members tells forecasters how confident a prediction can be.",
      "Sea surface temperatures in the tropical Pacific drive El Nino and La Nina, which reshape rainfall patterns across several continents.",
      "Thunderstorm anvils spread at the tropopause where rising parcels lose buoyancy and the cloud tops flatten under the stratosphere.",
      "Radiative cooling on clear calm nights lets frost settle in valleys, because dense chilly air drains downhill and pools near the ground.",
      "Hurricanes draw energy from warm ocean water, releasing latent heat as vapour condenses in the eyewall around a calm central eye.",
      "Greenhouse gases absorb outgoing infrared radiation, trapping heat in the lower atmosphere and raising global mean surface temperatures.",
      "Orographic lift forces air over mountain ranges, producing heavy precipitation on windward slopes and a dry rain shadow on leeward sides.",
      "Weather balloons carry radiosondes that report temperature, humidity and wind profiles, feeding numerical prediction models twice daily.",
      "Drizzle falls from shallow stratus decks, whereas convective showers bring brief intense downpours with gusty outflow and sometimes hail.",
    ],
  },
  {
    name: "sourdough",
    keywords: /\b(sourdough|starter|dough|bread|loaf|levain|bake|baking|crumb)\b/i,
    sentences: [
      "A lively sourdough starter doubles within six hours after feeding, smelling pleasantly tangy with a domed bubbly surface in the jar.",
      "Hydration means water weight divided by flour weight, so seventy five percent hydration produces a slack dough with an open crumb.",
      "Autolyse rests flour and water before adding levain and salt, letting gluten develop passively and making the dough easier to stretch.",
      "Stretch and fold sessions every thirty minutes during bulk fermentation build strength without kneading, trapping gas for a lofty loaf.",
      "Bulk fermentation ends when the dough has grown by roughly half, feels airy and jiggly, and shows bubbles along the container walls.",
      "Shaping creates surface tension with a taut skin, which helps the boule hold its shape and bloom evenly when scored before baking.",
      "Cold retarding in the refrigerator overnight deepens flavour through slow acid production and makes scoring the chilled dough cleaner.",
      "Baking inside a preheated Dutch oven traps steam during the first twenty minutes, keeping the crust supple so the loaf can spring.",
      "A gummy crumb usually means underproofing or slicing too early, since starches keep setting while the bread cools on a wire rack.",
      "Whole wheat and rye flours ferment faster than white flour because their bran and enzymes feed wild yeast and lactobacilli generously.",
      "The ear forms when a shallow angled score lifts during oven spring, revealing a crisp ridge that caramelizes into a dark crunchy edge.",
      "Levain builds let bakers scale starter precisely, mixing a small amount of mature culture with fresh flour and water the night before.",
      "Salt tightens gluten and slows fermentation, so most formulas use about two percent of flour weight added after the autolyse period.",
      "A flat loaf often results from overproofed dough whose gluten network has weakened, letting gas escape when the banneton is inverted.",
      "Rice flour dusted into the banneton prevents sticking better than wheat flour because it absorbs little moisture from the proofing dough.",
      "Crust colour develops through Maillard browning and caramelized sugars, so longer bakes at lower heat yield a thicker blistered crust.",
    ],
  },
  {
    name: "rust borrow checker",
    keywords: /\b(rust|borrow|borrowck|lifetime|lifetimes|E0502|E0499|E0505|rustc)\b/i,
    sentences: [
      "Error E0502 appears when code holds an immutable reference to a vector and then calls push, which needs a mutable borrow simultaneously.",
      "The borrow checker enforces that either many shared references or exactly one mutable reference exist, never both during overlapping scopes.",
      "Non lexical lifetimes let rustc end a borrow at its last use rather than at the closing brace, which accepted many previously rejected programs.",
      "Error E0499 reports two mutable borrows alive together, often caused by storing a mutable reference in a struct field while iterating.",
      "Cloning the value or restructuring the function so the first borrow finishes before the second starts usually resolves these compiler complaints.",
      "Lifetime annotations such as tick a on function signatures describe how returned references relate to input references, without extending anything.",
      "Error E0505 means a value was moved out while still borrowed, for instance passing ownership into a thread while a reference remains in scope.",
      "Interior mutability through RefCell moves borrow checking to runtime, and a violated rule then panics with an already borrowed message.",
      "Splitting a struct into disjoint fields lets the compiler borrow each field separately, avoiding conflicts that a method taking mut self creates.",
      "Iterator adapters like iter_mut hand out unique references one element at a time, so indexing the same slice inside the loop is refused.",
      "Returning a reference to a local variable fails because the owner is dropped at function exit, and rustc suggests returning an owned String instead.",
      "Rc combined with RefCell shares ownership in single threaded graphs, while Arc with Mutex provides the thread safe equivalent for concurrent code.",
      "The entry API on HashMap avoids a double lookup that would otherwise require a shared borrow followed by a mutable insertion borrow.",
      "Two phase borrows allow calls like vec push with vec len as the argument, because the mutable borrow activates only after argument evaluation.",
      "Closures capture variables by reference by default, and the move keyword transfers ownership so the closure can outlive the enclosing stack frame.",
      "Polonius, the next generation borrow checker, reasons about origins and loans with datalog rules and accepts certain conditional return patterns.",
    ],
  },
];

/** The long --long-answers text of request n on a topic. */
function longAnswer(topic, n) {
  const pool = topic.sentences;
  const picked = [];
  for (let i = 0; i < 12; i++) picked.push(pool[(n * 5 + i) % pool.length]);
  const paragraphs = [picked.slice(0, 4), picked.slice(4, 8), picked.slice(8, 12)].map((p) => p.join(" "));
  return `ANSWER-${n} on ${topic.name} (ref${n}q).\n\n${paragraphs.join("\n\n")}`;
}

let completions = 0;
let toolCalls = 0;

function textOf(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("\n");
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
    const pending = msgs
      .slice(i + 1)
      .map(textOf)
      .join("\n");
    const named = /use the tool ([A-Za-z_][\w-]*) with args (\{[^\n]*\})/.exec(pending);
    if (named) {
      let args = null;
      try {
        args = JSON.parse(named[2]);
      } catch {
        /* not JSON: no call */
      }
      const id = `call_fake_${++toolCalls}`;
      if (args && offered.has(named[1])) return { tool: { id, name: named[1], args } };
      if (args && offered.has("tool_call")) return { tool: { id, name: "tool_call", args: { id: named[1], args } } };
    }
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
  if (LONG_ANSWERS && !after && last?.role === "user") {
    let i = msgs.length - 1;
    while (i >= 0 && msgs[i].role === "user") i--;
    const pending = msgs
      .slice(i + 1)
      .map(textOf)
      .join("\n");
    const topic = TOPICS.find((t) => t.keywords.test(pending));
    if (topic) return { text: longAnswer(topic, n) };
  }
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
    try {
      return JSON.stringify(JSON.parse(filled));
    } catch {
      /* not a template */
    }
  }
  return `AUX-${n}: fake summary of the given text.`;
}

/** Answers a side call according to a fault mode other than "ok". */
function handleFault(mode, body, res, n) {
  const id = `chatcmpl-fake-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? "fake-model";
  if (mode === "hang") {
    const opened = Date.now();
    hanging.add(res);
    res.on("close", () => {
      hanging.delete(res);
      fs.appendFileSync(LOG, JSON.stringify({ n: 0, t: Date.now(), event: "hang-closed", of: n, ms: Date.now() - opened }) + "\n");
    });
    return;
  }
  if (mode === "error") {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `fake side-call failure ${n}`, type: "server_error", code: "fake_failure" } }));
    return;
  }
  const text = mode === "garbage" ? `GARBAGE-${n} \u00bf\u00bf ~~~ ]] ## %% @@ -- ^^ ~~~ ]] ## %% @@ || \ufffd\ufffd` : "";
  const reasoning = mode === "reasoning" ? `REASONING-${n} only thinking, no answer.` : undefined;
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  if (!body.stream) {
    const message = { role: "assistant", content: mode === "reasoning" ? null : text, ...(reasoning ? { reasoning_content: reasoning } : {}) };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: "stop" }], usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (delta, finish_reason = null, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
  chunk({ role: "assistant", ...(reasoning ? { reasoning_content: "" } : {}) });
  if (reasoning) chunk({ reasoning_content: reasoning });
  if (text) chunk({ content: text });
  chunk({}, "stop", { usage });
  res.write("data: [DONE]\n\n");
  res.end();
}

/** The delay a pending user message asks for with `SLOW-<ms>` (agent requests only), else 0. */
function slowMs(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  if (!(body.tools ?? []).length || msgs[msgs.length - 1]?.role !== "user") return 0;
  let i = msgs.length - 1;
  while (i >= 0 && msgs[i].role === "user") i--;
  const m = /\bSLOW-(\d{1,6})\b/.exec(
    msgs
      .slice(i + 1)
      .map(textOf)
      .join("\n"),
  );
  return m ? Number(m[1]) : 0;
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
    try {
      body = data ? JSON.parse(data) : {};
    } catch {
      body = { unparsed: data };
    }
    const isCompletion = req.method === "POST" && req.url.endsWith("/chat/completions");
    const n = isCompletion ? ++completions : 0;
    const isSide = isCompletion && !(Array.isArray(body.tools) && body.tools.some((t) => t?.function?.name));
    const fault = SIDE_FAULTS && isSide ? sideFaultMode() : undefined;
    fs.appendFileSync(LOG, JSON.stringify({ n, t: Date.now(), method: req.method, url: req.url, body, ...(fault ? { sideFault: fault } : {}) }) + "\n");
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
    if (fault && fault !== "ok") return handleFault(fault, body, res, n);
    const delay = slowMs(body);
    if (delay > 0) setTimeout(() => handleCompletion(body, res, n), delay);
    else handleCompletion(body, res, n);
  });
});

server.listen(PORT, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ listening: /** @type {import("node:net").AddressInfo} */ (server.address()).port }) + "\n");
});
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => {
    server.close(() => process.exit(0));
    for (const res of hanging) res.destroy(); // a hanging call would keep the server open
    server.closeIdleConnections?.();
  });
}

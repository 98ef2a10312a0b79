#!/usr/bin/env node
// contextfold command line: what the model would see for a session, without a gateway.
import { readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import path from "node:path";
import { loadCore, applySteps, formatLogLine, formatRequestLine, changed } from "./core/node.js";
import { readMessages, assembleRequest, InputError, FORMATS } from "./core/readers.js";
import { describeMessage } from "./core/describe.js";
import { splitConfig } from "./core/config.js";
import { PRICE_NAMES } from "./core/pricing.js";
import { replayTimeline, replayTurns, replaySummary, tokenCounter, REPLAY_METHODS } from "./core/replay.js";

const USAGE = `usage: contextfold <command> [options]

commands:
  clean <file | ->               clean completed turns (thinking, finished tool output)
  assemble <file | ->            fold the session to a budget: what the model would see, and why
  recover <session.jsonl> <id>   the original transcript entries of a turn, byte for byte
  topics <file | ->              the session's topics and their turns
  index <file | ->               the session index: turns, tokens, tools, entry ids
  replay <file | ->              send the session again turn by turn through the plugin's engine:
                                 tokens per request, prompt-cache reuse, cost next to
                                 pass-through and a recency window

options:
  --format F      input format: ${FORMATS.join(" | ")} (default: auto)
  --config FILE   JSON file with engine options (the plugin's config keys)
  --budget N      token budget for assemble and replay (default: the config's maxTokens)
  --prompt TEXT   the upcoming user message (assemble brings back topics it refers to)
  --page N        page of a recovered turn, from 1 (recover; 50 entries per page)
  --turns K       replay only the last K user turns (default: all)
  --price P       replay: price with one provider's cache rates: ${PRICE_NAMES.join(" | ")} (default: all)
  --json          machine-readable output on stdout
  -h, --help      this help

Logs and progress go to stderr. Exit codes: 0 ok, 1 bad input, 2 bad usage.`;

class UsageError extends Error {}

/** @import { ReadInput, TranscriptEntry } from "./core/readers.js" */
/** @import { PriceName } from "./core/pricing.js" */
/** @import { PrefixBreak } from "./core/cache.js" */
/** @import { ReplayMethod, ReplaySummary } from "./core/replay.js" */
/**
 * The parsed command line.
 * @typedef {{_: string[], format: string, json: boolean, help?: boolean, config?: string, budget?: number, prompt?: string, page?: number, turns?: number, price?: PriceName}} Args
 */
/**
 * A read session: the input's messages, the transcript entries for the core's index
 * (OpenClaw), its name, and with `keepBytes` the input's bytes.
 * @typedef {Omit<ReadInput, "entries"> & {entries?: TranscriptEntry[], session: string, name: string, buf?: Buffer}} Session
 */

const VALUE_OPTS = new Set(["--format", "--config", "--budget", "--prompt", "--page", "--turns", "--price"]);

/**
 * @param {string[]} argv
 * @returns {Args}
 */
function parseArgs(argv) {
  /** @type {Record<string, any> & {_: string[]}} */
  const args = { _: [], format: "auto", json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") args.json = true;
    else if (a === "-h" || a === "--help") args.help = true;
    else if (VALUE_OPTS.has(a)) {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      args[a.slice(2)] = argv[++i];
    } else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else args._.push(a);
  }
  for (const k of ["budget", "page"]) {
    if (args[k] !== undefined && !/^\d+$/.test(args[k])) throw new UsageError(`--${k} must be a non-negative integer`);
    if (args[k] !== undefined) args[k] = Number(args[k]);
  }
  if (args.turns !== undefined) {
    if (!/^\d+$/.test(args.turns) || Number(args.turns) < 1) throw new UsageError("--turns must be a positive integer");
    args.turns = Number(args.turns);
  }
  if (args.price !== undefined && !PRICE_NAMES.includes(args.price)) throw new UsageError(`--price must be one of ${PRICE_NAMES.join(", ")}`);
  return /** @type {Args} */ (args);
}

/** @param {string} file */
function readInput(file) {
  try {
    return file === "-" ? readFileSync(0) : readFileSync(file);
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${err.message}`);
  }
}

/**
 * A JSON config file: the plugin's config keys.
 * @param {string | undefined} file
 */
function pluginConfigFromFile(file) {
  if (!file) return {};
  let cfg;
  try {
    cfg = JSON.parse(readInput(file).toString("utf8"));
  } catch (err) {
    throw new InputError(`${file}: ${err.message}`);
  }
  if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) throw new InputError(`${file}: expected a JSON object of config keys`);
  return cfg;
}

/**
 * The core's part of a JSON config file.
 * @param {string | undefined} file
 */
function configFromFile(file) {
  return splitConfig(pluginConfigFromFile(file)).core;
}

/** @param {string} msg */
function progress(msg) {
  if (process.stderr.isTTY || process.env.CONTEXTFOLD_PROGRESS) process.stderr.write(`… ${msg}\n`);
}

/**
 * Reads a session: messages (active branch), transcript entries (for ids), session name; with
 * `keepBytes` also the input's bytes (recover). Otherwise they are not held, so a huge input
 * is in memory once less while the core works.
 * @param {Args} args
 * @returns {Promise<Session>}
 */
async function loadSession(args, { keepBytes = false } = {}) {
  const file = args._[1];
  if (!file) throw new UsageError(`${args._[0]} needs a session file (or - for stdin)`);
  const name = file === "-" ? "stdin" : file;
  const buf = readInput(file);
  progress(`read ${buf.length} bytes`);
  const r = readMessages(buf, { format: args.format, name, isUtf8, core: await loadCore() });
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  // The core indexes every transcript entry itself (same branch rule as the reader).
  const entries = r.format === "openclaw" ? r.transcriptEntries : undefined;
  const session = r.sessionId ?? (file === "-" ? "stdin" : path.basename(file).replace(/\.[^.]+$/, ""));
  return { ...r, entries, session, name, ...(keepBytes ? { buf } : {}) };
}

/**
 * Runs a core call; its error is the input's (exit code 1).
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function coreCall(fn) {
  try {
    return fn();
  } catch (err) {
    throw new InputError(err.message);
  }
}

/** @param {string} text */
function out(text) {
  process.stdout.write(text);
  if (!text.endsWith("\n")) process.stdout.write("\n");
}

/** @param {Args} args */
async function cmdClean(args) {
  const s = await loadSession(args);
  const core = await loadCore();
  const result = coreCall(() => core.clean(s.messages, configFromFile(args.config)));
  const msgs = applySteps(s.messages, result.steps);
  if (result.fallback) process.stderr.write(`warning: ${result.fallback}\n`);
  const st = result.stats;
  process.stderr.write(
    (changed(st) ? formatLogLine(s.session, st) : `[contextfold] session=${s.session} nothing to clean (${st.messagesBefore} msgs, ${st.tokensBefore} tok)`) +
      "\n",
  );
  if (args.json) return out(JSON.stringify({ messages: msgs, stats: st }, null, 2));
  const kept = new Set(result.steps.map((x) => x.source));
  const lines = [`before: ${st.messagesBefore} messages, ~${st.tokensBefore} tokens`];
  for (const [i, m] of s.messages.entries()) lines.push(`  ${kept.has(i) ? " " : "-"} ${String(i).padStart(3)} ${describeMessage(m)}`);
  lines.push(`after (what the model sees): ${st.messagesAfter} messages, ~${st.tokensAfter} tokens (${pct(st.tokensBefore, st.tokensAfter)}% saved)`);
  for (const [i, m] of msgs.entries()) lines.push(`    ${String(i).padStart(3)} ${describeMessage(m)}`);
  out(lines.join("\n"));
}

/**
 * @param {number} before
 * @param {number} after
 */
function pct(before, after) {
  return before ? Math.round((100 * (before - after)) / before) : 0;
}

/** @param {Args} args */
async function cmdAssemble(args) {
  const s = await loadSession(args);
  const core = await loadCore();
  progress(`assembling ${s.messages.length} messages`);
  const r = coreCall(() => core.assembleOnce(assembleRequest(s, { prompt: args.prompt, budget: args.budget, config: configFromFile(args.config) })));
  const msgs = applySteps(s.messages, r.steps);
  if (r.fallback) process.stderr.write(`warning: ${r.fallback}\n`);
  const st = r.stats;
  process.stderr.write(formatRequestLine(s.session, st) + "\n");
  if (args.json) {
    const turns = r.turns.map(({ id, topic, decision, reason, tokensBefore, tokensAfter }) => ({ id, topic, decision, reason, tokensBefore, tokensAfter }));
    return out(JSON.stringify({ messages: msgs, estimatedTokens: r.estimatedTokens, turns, stats: st }, null, 2));
  }
  const lines = [`turns (${r.turns.length}): decision, tokens before → after, topic, reason`];
  for (const t of r.turns) {
    lines.push(
      `  ${t.id.padEnd(18)} ${t.decision.padEnd(10)} ${String(t.tokensBefore).padStart(6)} → ${String(t.tokensAfter).padEnd(6)} ${t.topic ? `[${t.topic}] ` : ""}${t.reason}`,
    );
  }
  lines.push(
    `what the model sees: ${msgs.length} messages, ~${r.estimatedTokens} of ${st.budget} tokens (${pct(st.clean.tokensBefore, r.estimatedTokens)}% saved)`,
  );
  for (const [i, m] of msgs.entries()) lines.push(`  ${String(i).padStart(4)} ${describeMessage(m)}`);
  out(lines.join("\n"));
}

/**
 * @param {Session} s
 * @param {Args} args
 */
async function indexOf(s, args) {
  if (!s.entries) throw new InputError(`${s.name}: ${args._[0]} needs an OpenClaw session JSONL (transcript entries with ids)`);
  const core = await loadCore();
  const live = coreCall(() => core.newSession(configFromFile(args.config)));
  progress(`indexing ${s.entries.length} entries`);
  coreCall(() => live.rebuild(/** @type {TranscriptEntry[]} */ (s.entries)));
  return live;
}

/** @param {Args} args */
async function cmdIndex(args) {
  const s = await loadSession(args);
  const live = await indexOf(s, args);
  const index = live.index();
  if (args.json) return out(JSON.stringify(index, null, 2));
  const lines = [`${index.turns.length} turns, ${index.entries} entries on the active branch${index.skipped ? `, ${index.skipped} skipped` : ""}`];
  for (const t of index.turns) {
    lines.push(
      `  ${t.id.padEnd(18)} ${String(t.tokens.total).padStart(6)} tok  ${t.entries.length} entries  ${t.tools.length ? `[${t.tools.join(", ")}] ` : ""}${JSON.stringify(t.userPreview)}${t.compacted ? " (compacted by the host)" : ""}`,
    );
  }
  out(lines.join("\n"));
}

/** @param {Args} args */
async function cmdTopics(args) {
  const s = await loadSession(args);
  const live = await indexOf(s, args);
  const { topics } = live.topics();
  const ids = live.index().turns.map((t) => t.id);
  const rows = topics.map((t) => ({ ...t, firstTurnId: ids[t.firstTurn], lastTurnId: ids[t.lastTurn], turns: t.lastTurn - t.firstTurn + 1 }));
  if (args.json) return out(JSON.stringify({ topics: rows }, null, 2));
  out(
    [
      `${rows.length} topics`,
      ...rows.map((t) => `  #${t.id} ${t.label.padEnd(36)} turns ${t.firstTurn}–${t.lastTurn} (${t.turns}; ${t.firstTurnId} … ${t.lastTurnId})`),
    ].join("\n"),
  );
}

const PAGE = 50;

/** @param {Args} args */
async function cmdRecover(args) {
  if (args.page !== undefined && args.page < 1) throw new UsageError("--page counts from 1");
  const s = await loadSession(args, { keepBytes: true });
  const id = args._[2];
  if (!id) throw new UsageError("recover needs a turn id (see `contextfold index`)");
  const live = await indexOf(s, args);
  const turn = live.index().turns.find((t) => t.id === id);
  if (!turn) throw new InputError(`${s.name}: no turn ${JSON.stringify(id)} on the active branch`);
  const page = args.page ?? 1;
  const pages = Math.max(1, Math.ceil(turn.entries.length / PAGE));
  if (page > pages) throw new InputError(`${s.name}: turn ${id} has ${pages} page(s) of ${PAGE} entries; --page ${page} is past the last`);
  const refs = turn.entries.slice((page - 1) * PAGE, page * PAGE);
  // The exact bytes of each line (a line that is not valid UTF-8 stays as it was).
  const buf = /** @type {Buffer} */ (s.buf);
  const raw = refs.map((r) => buf.subarray(.../** @type {[number, number]} */ (r.range)));
  if (args.json) {
    const entries = raw.map((b) => JSON.parse(b.toString("utf8")));
    const bytes = Object.fromEntries(raw.flatMap((b, i) => (isUtf8(b) ? [] : [[i, b.toString("base64")]])));
    return out(JSON.stringify({ turnId: id, page, pages, entries, ...(Object.keys(bytes).length ? { bytes } : {}) }, null, 2));
  }
  process.stderr.write(`turn ${id}: ${turn.entries.length} entries, page ${page} of ${pages}\n`);
  const body = Buffer.concat(raw);
  process.stdout.write(body.length && body[body.length - 1] !== 0x0a ? Buffer.concat([body, Buffer.from("\n")]) : body);
}

/**
 * What `replay` prints: the session, how long the replay took, and its measures.
 * @typedef {ReplaySummary & {session: string, messages: number, seconds: number, tokens: "estimated"}} ReplayReport
 */

/** @param {Args} args */
async function cmdReplay(args) {
  const s = await loadSession(args, { keepBytes: true });
  const core = await loadCore();
  const { replayThroughAdapter } = await import("./openclaw/replay.js");
  // The plugin's config as the host would pass it (its own state dir comes from the replay).
  const config = { ...pluginConfigFromFile(args.config) };
  delete config.stateDir;
  const coreConfig = splitConfig(config).core;
  // A key the core refuses would make every assemble fall back to the host's messages: refuse it here.
  coreCall(() => core.newSession(coreConfig).free());
  // As for assemble, a budget of 0 means the config's.
  // maxTokens is a number: the core refuses a config where it is not (checked just above).
  const budget = /** @type {number} */ (args.budget || coreConfig.maxTokens || core.defaultConfig().maxTokens);
  const timeline = coreCall(() => replayTimeline(core, s, s.buf, s.name));
  const turns = replayTurns(timeline.messages, args.turns);
  if (turns.length === 0) throw new InputError(`${s.name}: no user turn with history before it to replay`);
  progress(`replaying ${turns.length} turns through the engine`);
  const started = performance.now();
  const step = Math.max(1, Math.round(turns.length / 10));
  const { requests, warnings } = await replayThroughAdapter(timeline, {
    bytes: s.buf,
    turns,
    config,
    budget,
    onRequest: (j) => (j + 1) % step === 0 && progress(`${j + 1} of ${turns.length} requests`),
  });
  const seconds = (performance.now() - started) / 1000;
  for (const w of new Set(warnings)) process.stderr.write(`warning: ${w}\n`);
  const tokensOf = tokenCounter(core);
  /** @type {ReplayReport} */
  const summary = {
    session: s.session,
    messages: timeline.messages.length,
    seconds,
    tokens: "estimated",
    ...replaySummary({
      messages: timeline.messages,
      turns,
      requests: requests.map((r) => r.messages),
      tokensOf,
      budget,
      ...(args.price ? { prices: [args.price] } : {}),
    }),
  };
  if (args.json) return out(JSON.stringify({ requests, summary }, null, 2));
  out(replayText(summary));
}

const num = (/** @type {number} */ n) => Math.round(n).toLocaleString("en");
const usd = (/** @type {number} */ x) => (x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(3)}`);
const times = (/** @type {number | null} */ x) => (x == null ? "–" : `${x.toFixed(2)}×`);

/**
 * The human summary of a replay.
 * @param {ReplayReport} r
 */
function replayText(r) {
  const rows = /** @type {[ReplayMethod, ReplaySummary["methods"][ReplayMethod]][]} */ (Object.entries(r.methods));
  const label = (/** @type {ReplayMethod} */ k) => REPLAY_METHODS[k] ?? k;
  const pad = (/** @type {unknown} */ t, /** @type {number} */ n) => String(t).padEnd(n);
  const lines = [
    `replay of ${r.session}: ${r.requests} requests (user messages ${r.turns.first}–${r.turns.last} of ${r.messages}), budget ${num(r.budget)} tokens, ${r.seconds.toFixed(1)} s`,
    "",
    `  ${pad("", 16)}${pad("tokens per request", 22)}${pad("over", 8)}${pad("prefix", 8)}prefix`,
    `  ${pad("", 16)}${pad("mean", 11)}${pad("max", 11)}${pad("budget", 8)}${pad("reuse", 8)}breaks`,
  ];
  for (const [k, m] of rows) {
    lines.push(
      `  ${pad(label(k), 16)}${pad(num(m.tokens.mean), 11)}${pad(num(m.tokens.max), 11)}${pad(m.overBudget, 8)}${pad(m.meanReuse == null ? "–" : m.meanReuse.toFixed(2), 8)}${m.breaks}`,
    );
  }
  const prices = Object.entries(r.prices);
  lines.push("", "cost of these requests, USD (× pass-through, × recency window):");
  lines.push(`  ${pad("", 16)}${prices.map(([k]) => pad(k, 28)).join("")}`.trimEnd());
  for (const [k, m] of rows) {
    lines.push(
      `  ${pad(label(k), 16)}${prices.map(([p]) => pad(`${usd(m.cost[p].usd)} (${times(m.cost[p].vsPassThrough)}, ${times(m.cost[p].vsRecency)})`, 28)).join("")}`.trimEnd(),
    );
  }
  const engine = r.methods.contextfold;
  if (engine.breaks > 0) {
    lines.push("", "contextfold's prefix breaks, by cause:");
    for (const [why, n] of Object.entries(engine.breakReasons).sort((a, b) => b[1] - a[1]))
      lines.push(`  ${String(n).padStart(5)}  ${why}: ${r.breakReasons[why] ?? ""}`);
    lines.push("first breaks (user message: first message that differs, was → now):");
    for (const q of engine.perRequest.filter((x) => x.break).slice(0, 5)) {
      const b = /** @type {PrefixBreak} */ (q.break); // the requests filtered have one
      const where = b.shown === b.index ? `message ${b.index}` : `message ${b.index} (the folded turn's ask, shortened), message ${b.shown}`;
      lines.push(`  ${String(q.turn).padStart(5)}: ${where}, ${b.reason}: ${b.previous ?? "(none)"} → ${b.current ?? "(none)"}`);
    }
  } else {
    lines.push("", "contextfold's requests never break the prefix: each one starts with the whole previous one.");
  }
  for (const k of /** @type {const} */ (["passThrough", "recency"])) {
    const m = r.methods[k];
    if (m.breaks > 0)
      lines.push(
        `${label(k)}: ${m.breaks} breaks (${Object.entries(m.breakReasons)
          .map(([why, n]) => `${why} ${n}`)
          .join(", ")})`,
      );
  }
  lines.push("", "prices, USD per million tokens:");
  for (const [k, p] of prices) {
    const write = p.cacheWrite == null ? "" : `, cache write ${p.cacheWrite.toFixed(2)}`;
    lines.push(`  ${pad(k, 10)} ${p.model}: input ${p.input.toFixed(2)}${write}, cache read ${p.cacheRead.toFixed(3)}; ${p.ruleText}`);
  }
  lines.push(
    "Tokens are the engine's estimates of the messages it decides (the system prompt, tools and answers are the same for every method and not counted).",
  );
  return lines.join("\n");
}

/** @type {Record<string, (args: Args) => Promise<void>>} */
const COMMANDS = { clean: cmdClean, assemble: cmdAssemble, recover: cmdRecover, topics: cmdTopics, index: cmdIndex, replay: cmdReplay };

/** @param {string[]} argv */
async function main(argv) {
  const args = parseArgs(argv);
  const cmd = args._[0];
  if (args.help || !cmd) {
    out(USAGE);
    return args.help ? 0 : 2;
  }
  const run = COMMANDS[cmd];
  if (!run) throw new UsageError(`unknown command ${cmd}`);
  await run(args);
  return 0;
}

// exitCode, not exit(): stdout to a pipe is written asynchronously, and exiting at once would
// cut a large output short.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`contextfold: ${err.message}\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`contextfold: ${err instanceof InputError ? err.message : (err.stack ?? err)}\n`);
    process.exitCode = 1;
  },
);

#!/usr/bin/env node
// contextfold command line: what the model would see for a session, without a gateway.
import { readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import path from "node:path";
import { loadCore, applySteps, formatLogLine, formatRequestLine, changed } from "./core/node.js";
import { readMessages, assembleRequest, InputError, FORMATS } from "./core/readers.js";
import { describeMessage } from "./core/describe.js";
import { splitConfig } from "./core/config.js";

const USAGE = `usage: contextfold <command> [options]

commands:
  clean <file | ->               clean completed turns (thinking, finished tool output)
  assemble <file | ->            fold the session to a budget: what the model would see, and why
  recover <session.jsonl> <id>   the original transcript entries of a turn, byte for byte
  topics <file | ->              the session's topics and their turns
  index <file | ->               the session index: turns, tokens, tools, entry ids

options:
  --format F      input format: ${FORMATS.join(" | ")} (default: auto)
  --config FILE   JSON file with engine options (the plugin's config keys)
  --budget N      token budget for assemble (default: the config's maxTokens)
  --prompt TEXT   the upcoming user message (assemble brings back topics it refers to)
  --page N        page of a recovered turn, from 1 (recover; 50 entries per page)
  --json          machine-readable output on stdout
  -h, --help      this help

Logs and progress go to stderr. Exit codes: 0 ok, 1 bad input, 2 bad usage.`;

class UsageError extends Error {}

const VALUE_OPTS = new Set(["--format", "--config", "--budget", "--prompt", "--page"]);

function parseArgs(argv) {
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
  return args;
}

function readInput(file) {
  try {
    return file === "-" ? readFileSync(0) : readFileSync(file);
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${err.message}`);
  }
}

/** The core's part of a JSON config file (the plugin's config keys). */
function configFromFile(file) {
  if (!file) return {};
  let cfg;
  try {
    cfg = JSON.parse(readInput(file).toString("utf8"));
  } catch (err) {
    throw new InputError(`${file}: ${err.message}`);
  }
  if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) throw new InputError(`${file}: expected a JSON object of config keys`);
  return splitConfig(cfg).core;
}

function progress(msg) {
  if (process.stderr.isTTY || process.env.CONTEXTFOLD_PROGRESS) process.stderr.write(`… ${msg}\n`);
}

/**
 * Reads a session: messages (active branch), transcript entries (for ids), session name; with
 * `keepBytes` also the input's bytes (recover). Otherwise they are not held, so a huge input
 * is in memory once less while the core works.
 */
function loadSession(args, { keepBytes = false } = {}) {
  const file = args._[1];
  if (!file) throw new UsageError(`${args._[0]} needs a session file (or - for stdin)`);
  const name = file === "-" ? "stdin" : file;
  const buf = readInput(file);
  progress(`read ${buf.length} bytes`);
  const r = readMessages(buf, { format: args.format, name, isUtf8 });
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  // The core indexes every transcript entry itself (same branch rule as the reader).
  const entries = r.format === "openclaw" ? r.transcriptEntries : undefined;
  const session = r.sessionId ?? (file === "-" ? "stdin" : path.basename(file).replace(/\.[^.]+$/, ""));
  return { ...r, entries, session, name, ...(keepBytes ? { buf } : {}) };
}

function coreCall(fn) {
  try {
    return fn();
  } catch (err) {
    throw new InputError(err.message);
  }
}

function out(text) {
  process.stdout.write(text);
  if (!text.endsWith("\n")) process.stdout.write("\n");
}

async function cmdClean(args) {
  const s = loadSession(args);
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
  s.messages.forEach((m, i) => lines.push(`  ${kept.has(i) ? " " : "-"} ${String(i).padStart(3)} ${describeMessage(m)}`));
  lines.push(`after (what the model sees): ${st.messagesAfter} messages, ~${st.tokensAfter} tokens (${pct(st.tokensBefore, st.tokensAfter)}% saved)`);
  msgs.forEach((m, i) => lines.push(`    ${String(i).padStart(3)} ${describeMessage(m)}`));
  out(lines.join("\n"));
}

function pct(before, after) {
  return before ? Math.round((100 * (before - after)) / before) : 0;
}

async function cmdAssemble(args) {
  const s = loadSession(args);
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
  msgs.forEach((m, i) => lines.push(`  ${String(i).padStart(4)} ${describeMessage(m)}`));
  out(lines.join("\n"));
}

async function indexOf(s, args) {
  if (!s.entries) throw new InputError(`${s.name}: ${args._[0]} needs an OpenClaw session JSONL (transcript entries with ids)`);
  const core = await loadCore();
  const live = coreCall(() => core.newSession(configFromFile(args.config)));
  progress(`indexing ${s.entries.length} entries`);
  coreCall(() => live.rebuild(s.entries));
  return live;
}

async function cmdIndex(args) {
  const s = loadSession(args);
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

async function cmdTopics(args) {
  const s = loadSession(args);
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

async function cmdRecover(args) {
  if (args.page !== undefined && args.page < 1) throw new UsageError("--page counts from 1");
  const s = loadSession(args, { keepBytes: true });
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
  const raw = refs.map((r) => s.buf.subarray(r.range[0], r.range[1]));
  if (args.json) {
    const entries = raw.map((b) => JSON.parse(b.toString("utf8")));
    const bytes = Object.fromEntries(raw.flatMap((b, i) => (isUtf8(b) ? [] : [[i, b.toString("base64")]])));
    return out(JSON.stringify({ turnId: id, page, pages, entries, ...(Object.keys(bytes).length ? { bytes } : {}) }, null, 2));
  }
  process.stderr.write(`turn ${id}: ${turn.entries.length} entries, page ${page} of ${pages}\n`);
  const body = Buffer.concat(raw);
  process.stdout.write(body.length && body[body.length - 1] !== 0x0a ? Buffer.concat([body, Buffer.from("\n")]) : body);
}

const COMMANDS = { clean: cmdClean, assemble: cmdAssemble, recover: cmdRecover, topics: cmdTopics, index: cmdIndex };

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

#!/usr/bin/env node
// contextfold command line: what the model would see for a session, without a gateway.
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadCore, applySteps, formatLogLine, changed } from "./core/node.js";
import { readMessages, InputError, FORMATS } from "./core/readers.js";
import { describeMessage } from "./core/describe.js";

const USAGE = `usage: contextfold clean <session.jsonl | messages.json | -> [options]

  Cleans completed turns (thinking blocks, finished tool output) the way the engine does
  before every model request, and shows what the model would see.

options:
  --format F      input format: ${FORMATS.join(" | ")} (default: auto)
  --config FILE   JSON file with engine options (the plugin's config keys)
  --json          print {messages, stats} as JSON on stdout
  -h, --help      this help

The log line goes to stderr. Exit codes: 0 ok, 1 bad input, 2 bad usage.`;

function parseArgs(argv) {
  const args = { _: [], format: "auto", json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") args.json = true;
    else if (a === "-h" || a === "--help") args.help = true;
    else if (a === "--format" || a === "--config") {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      args[a.slice(2)] = argv[++i];
    } else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else args._.push(a);
  }
  return args;
}

class UsageError extends Error {}

function readInput(file) {
  try {
    return file === "-" ? readFileSync(0, "utf8") : readFileSync(file, "utf8");
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${err.message}`);
  }
}

function loadConfig(file) {
  if (!file) return {};
  let cfg;
  try {
    cfg = JSON.parse(readInput(file));
  } catch (err) {
    throw new InputError(`${file}: ${err.message}`);
  }
  const { stateDir: _ignored, ...core } = cfg ?? {};
  return core;
}

async function cmdClean(args) {
  const file = args._[1];
  if (!file) throw new UsageError("clean needs a session file (or - for stdin)");
  const name = file === "-" ? "stdin" : file;
  const { messages, warnings, sessionId } = readMessages(readInput(file), { format: args.format, name });
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const core = await loadCore();
  let result;
  try {
    result = core.clean(messages, loadConfig(args.config));
  } catch (err) {
    throw new InputError(err.message);
  }
  const out = applySteps(messages, result.steps);
  const session = sessionId ?? (file === "-" ? "stdin" : path.basename(file).replace(/\.[^.]+$/, ""));
  if (result.fallback) process.stderr.write(`warning: ${result.fallback}\n`);
  process.stderr.write((changed(result.stats) ? formatLogLine(session, result.stats) : `[contextfold] session=${session} nothing to clean (${result.stats.messagesBefore} msgs, ${result.stats.tokensBefore} tok)`) + "\n");
  if (args.json) {
    process.stdout.write(JSON.stringify({ messages: out, stats: result.stats }, null, 2) + "\n");
    return;
  }
  const s = result.stats;
  const kept = new Set(result.steps.map((st) => st.source));
  const lines = [`before: ${s.messagesBefore} messages, ~${s.tokensBefore} tokens`];
  messages.forEach((m, i) => lines.push(`  ${kept.has(i) ? " " : "-"} ${String(i).padStart(3)} ${describeMessage(m)}`));
  const pct = s.tokensBefore ? Math.round((100 * (s.tokensBefore - s.tokensAfter)) / s.tokensBefore) : 0;
  lines.push(`after (what the model sees): ${s.messagesAfter} messages, ~${s.tokensAfter} tokens (${pct}% saved)`);
  out.forEach((m, i) => lines.push(`    ${String(i).padStart(3)} ${describeMessage(m)}`));
  process.stdout.write(lines.join("\n") + "\n");
}

async function main(argv) {
  const args = parseArgs(argv);
  const cmd = args._[0];
  if (args.help || !cmd) {
    process.stdout.write(USAGE + "\n");
    return args.help ? 0 : 2;
  }
  if (cmd === "clean") await cmdClean(args);
  else throw new UsageError(`unknown command ${cmd}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`contextfold: ${err.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`contextfold: ${err instanceof InputError ? err.message : err.stack ?? err}\n`);
    process.exit(1);
  },
);

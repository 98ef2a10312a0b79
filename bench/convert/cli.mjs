#!/usr/bin/env node
// Converts the evaluation datasets into OpenClaw sessions for the benchmarks.
//
//   node bench/convert/cli.mjs locomo      <locomo.json>      <outDir> [--variant chat|agentic|multitopic|all]
//                                          [--style chat|agentic] [--group-size N] [--groups a+b+c,d+e]
//   node bench/convert/cli.mjs taubench    <trajectories.json> <outDir> [--model NAME]
//   node bench/convert/cli.mjs claude-code <file.jsonl|dir>    <outDir> [--compaction entry|message] [--stop-at-compaction]
//
// Writes `<name>.jsonl` (the session) and a sidecar per session (`.questions.json`,
// `.query.json`, or `.meta.json` + `.messages.json`), plus `<dataset>[.<variant>].summary.json`.
// Prints one line per session and the totals. Same input, same bytes out.

import { readFileSync, writeFileSync, mkdirSync, statSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { convertLocomo, VARIANTS, DEFAULT_GROUP_SIZE } from "./locomo.mjs";
import { convertTaubench, summarizeTaubench } from "./taubench.mjs";
import { convertClaudeCode } from "./claude-code.mjs";

const USAGE = `usage: node bench/convert/cli.mjs <locomo|taubench|claude-code> <input> <outDir> [options]
  locomo       --variant chat|agentic|multitopic|all (default chat)
               --style chat|agentic (multitopic only, default chat)
               --group-size N (multitopic, default ${DEFAULT_GROUP_SIZE}; 0 = all conversations in one session)
               --groups conv-26+conv-30,conv-41+conv-42 (multitopic, explicit groups)
  taubench     --model NAME (default: from the file name, e.g. gpt-4o)
  claude-code  --compaction entry|message (default entry) --stop-at-compaction`;

function parseArgs(argv) {
  const positional = [];
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-h" || a === "--help") opts.help = true;
    else if (a === "--stop-at-compaction") opts.stopAtCompaction = true;
    else if (a.startsWith("--")) {
      const [k, inline] = a.slice(2).split("=", 2);
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`option --${k} needs a value`);
      opts[k.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = v;
    } else positional.push(a);
  }
  return { positional, opts };
}

const json = (v) => JSON.stringify(v, null, 1) + "\n";

function write(outDir, file, text) {
  writeFileSync(join(outDir, file), text);
  return Buffer.byteLength(text);
}

function fmtBytes(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(1)} kB`;
}

function runLocomo(input, outDir, opts) {
  const samples = JSON.parse(readFileSync(input, "utf8"));
  const variants = opts.variant === "all" ? VARIANTS : [opts.variant ?? "chat"];
  for (const variant of variants) {
    const groups = opts.groups ? opts.groups.split(",").map((g) => g.split("+").filter(Boolean)) : undefined;
    const results = convertLocomo(samples, { variant, style: opts.style, groupSize: opts.groupSize != null ? Number(opts.groupSize) : undefined, groups });
    const summary = {
      dataset: "locomo",
      input: basename(input),
      variant,
      style: results[0]?.sidecar.style,
      sessions: [],
      totals: {
        messages: 0,
        turns: 0,
        bytes: 0,
        textChars: 0,
        questions: 0,
        byCategory: {},
        scorable: 0,
        noEvidence: 0,
        answerInEvidence: 0,
        evidence: { rawEntries: 0, malformed: 0, unparseable: 0, dangling: 0, dropped: 0 },
        switches: 0,
      },
    };
    const t = summary.totals;
    for (const r of results) {
      write(outDir, `${r.name}.jsonl`, r.jsonl);
      write(outDir, `${r.name}.questions.json`, json(r.sidecar));
      const s = r.sidecar.stats;
      summary.sessions.push({ name: r.name, conversations: r.sidecar.conversations.map((c) => c.sampleId), ...s, evidence: { ...s.evidence } });
      t.messages += s.messages;
      t.turns += s.turns;
      t.bytes += s.bytes;
      t.textChars += s.textChars;
      t.questions += s.questions.total;
      for (const [c, n] of Object.entries(s.questions.byCategory)) t.byCategory[c] = (t.byCategory[c] ?? 0) + n;
      t.scorable += s.questions.scorable;
      t.noEvidence += s.questions.noEvidence;
      t.answerInEvidence += s.questions.answerInEvidence;
      for (const k of Object.keys(t.evidence)) t.evidence[k] += s.evidence[k];
      t.switches += s.switches ?? 0;
      console.log(
        `${r.name}.jsonl  ${s.messages} messages (${s.turns} turns, ${s.synthetic} synthetic)  ${fmtBytes(s.bytes)}  ${s.questions.total} questions${s.switches != null ? `  ${s.switches} switches` : ""}`,
      );
    }
    write(outDir, `locomo.${variant}.summary.json`, json(summary));
    console.log(
      `locomo ${variant}: ${results.length} sessions, ${t.messages} messages, ${fmtBytes(t.bytes)}, ${t.questions} questions ${JSON.stringify(t.byCategory)}, evidence malformed ${t.evidence.malformed} / dropped ${t.evidence.dropped}`,
    );
  }
}

function runTaubench(input, outDir, opts) {
  const items = JSON.parse(readFileSync(input, "utf8"));
  const source = basename(input).replace(/\.json$/, "");
  const results = convertTaubench(items, { source, model: opts.model });
  for (const r of results) {
    write(outDir, `${r.name}.jsonl`, r.jsonl);
    write(outDir, `${r.name}.query.json`, json(r.sidecar));
    const s = r.sidecar;
    console.log(
      `${r.name}.jsonl  ${s.stats.messages} messages  ${fmtBytes(s.stats.bytes)}  query ${s.queryIndex ?? (s.flags.noGoldWriteAction ? "- (no gold write action)" : "- (gold write never called)")}  gold values in prefix ${s.goldArgValues.length}/${s.goldArgValuesDetail.length}`,
    );
  }
  const summary = {
    dataset: "taubench",
    input: basename(input),
    ...summarizeTaubench(results),
    sessions: results.map((r) => ({
      name: r.name,
      queryIndex: r.sidecar.queryIndex,
      messages: r.sidecar.stats.messages,
      bytes: r.sidecar.stats.bytes,
      goldArgValues: r.sidecar.goldArgValues.length,
      flags: r.sidecar.flags,
    })),
  };
  write(outDir, `taubench.${source}.summary.json`, json(summary));
  const { sessions, ...head } = summary;
  console.log(`taubench: ${JSON.stringify(head)}`);
}

function runClaudeCode(input, outDir, opts) {
  const files = statSync(input).isDirectory()
    ? readdirSync(input)
        .filter((f) => f.endsWith(".jsonl"))
        .sort()
        .map((f) => join(input, f))
    : [input];
  const summary = { dataset: "claude-code", sessions: [] };
  for (const file of files) {
    const name = `claude-code.${basename(file).replace(/\.jsonl$/, "")}`;
    const r = convertClaudeCode(readFileSync(file, "utf8"), { name, compaction: opts.compaction ?? "entry", acrossCompaction: !opts.stopAtCompaction });
    write(outDir, `${r.name}.jsonl`, r.jsonl);
    write(outDir, `${r.name}.messages.json`, json(r.anthropic));
    write(outDir, `${r.name}.meta.json`, json(r.meta));
    const m = r.meta;
    summary.sessions.push({
      name,
      anthropicMessages: m.anthropicMessages,
      messages: m.messages,
      bytes: m.bytes,
      toolUse: m.counts.toolUse,
      toolResult: m.counts.toolResult,
      pairs: m.pairing.pairs,
      violations: m.pairing.violations.length,
      compactions: m.compactions.length,
    });
    console.log(
      `${name}.jsonl  ${m.messages} messages (from ${m.anthropicMessages} transcript messages)  ${fmtBytes(m.bytes)}  tool_use ${m.counts.toolUse} / tool_result ${m.counts.toolResult} / pairs ${m.pairing.pairs}  thinking ${m.counts.thinking}  compactions ${m.compactions.length}`,
    );
  }
  write(outDir, "claude-code.summary.json", json(summary));
}

function main() {
  const { positional, opts } = parseArgs(process.argv.slice(2));
  if (opts.help || positional.length !== 3) {
    console.error(USAGE);
    process.exit(opts.help ? 0 : 2);
  }
  const [dataset, input, outDir] = positional;
  mkdirSync(outDir, { recursive: true });
  if (dataset === "locomo") runLocomo(input, outDir, opts);
  else if (dataset === "taubench") runTaubench(input, outDir, opts);
  else if (dataset === "claude-code") runClaudeCode(input, outDir, opts);
  else {
    console.error(`unknown dataset "${dataset}"\n${USAGE}`);
    process.exit(2);
  }
}

try {
  main();
} catch (err) {
  console.error(`convert: ${err.message}`);
  process.exit(1);
}

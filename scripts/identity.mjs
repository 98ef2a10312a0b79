#!/usr/bin/env node
// Behaviour check: what `contextfold clean --json` and `contextfold assemble --json` print for
// every session the project can make (samples/, the converted ../shared/data sessions, the
// Claude Code transcripts as they are), at every budget of BUDGETS and once with a prompt,
// compared with the SHA-256 of each output recorded in tests/identity/outputs.json.
//
//   node scripts/identity.mjs            check (exit 1 and list the outputs that differ)
//   node scripts/identity.mjs --write    record the current outputs
//   node scripts/identity.mjs --only clean    check one command's outputs
//
// Needs the built package (scripts/build.sh) and ../shared/data (or CONTEXTFOLD_DATA); a
// missing data folder is an error, not a skip.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "pkg-template/js/cli.js");
const record = path.join(root, "tests/identity/outputs.json");
const data = path.resolve(process.env.CONTEXTFOLD_DATA ?? path.join(root, "../shared/data"));
const BUDGETS = [1000, 2000, 4000, 8000, 16000, 32000];

const args = process.argv.slice(2);
const write = args.includes("--write");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;

if (!existsSync(cli)) fail(`${cli} is missing: run bash scripts/build.sh first`);
if (!existsSync(path.join(data, "locomo/locomo-dev.json"))) fail(`no data at ${data} (set CONTEXTFOLD_DATA)`);

function fail(msg) {
  process.stderr.write(`identity: ${msg}\n`);
  process.exit(1);
}

function run(file, argv) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file, ...argv], { maxBuffer: 1 << 30, cwd: root }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(file)} ${argv.join(" ")}: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** The sessions: name → [file, ...options the CLI needs to read it]. */
async function sessions(tmp) {
  const convert = path.join(root, "bench/convert/cli.mjs");
  await run(convert, ["locomo", path.join(data, "locomo/locomo-dev.json"), tmp, "--variant", "all"]);
  await run(convert, ["taubench", path.join(data, "taubench/gpt-4o-airline-dev.json"), tmp]);
  await run(convert, ["claude-code", path.join(data, "claude-code"), tmp]);
  const out = new Map();
  for (const f of readdirSync(path.join(root, "samples"))
    .filter((f) => f.endsWith(".jsonl"))
    .sort()) {
    out.set(`samples/${f}`, [path.join(root, "samples", f)]);
  }
  for (const f of readdirSync(path.join(data, "claude-code"))
    .filter((f) => f.endsWith(".jsonl"))
    .sort()) {
    out.set(`data/claude-code/${f}`, [path.join(data, "claude-code", f), "--format", "claude-code"]);
  }
  for (const f of readdirSync(tmp)
    .filter((f) => f.endsWith(".jsonl"))
    .sort())
    out.set(`converted/${f}`, [path.join(tmp, f)]);
  return out;
}

/** The first words of the session's first user message: a prompt about its oldest topic. */
function promptOf(file) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes('"user"')) continue;
    try {
      const e = JSON.parse(line);
      const m = e.message ?? e;
      if (m.role !== "user") continue;
      const c = typeof m.content === "string" ? m.content : (m.content ?? []).find((p) => p.type === "text")?.text;
      if (c) return c.slice(0, 80);
    } catch {}
  }
  return "what did we decide?";
}

function jobs(name, [file, ...opts]) {
  const list = [];
  if (!only || only === "clean") list.push([`${name} clean`, ["clean", file, "--json"]]);
  if (!only || only === "assemble") {
    list.push([`${name} assemble`, ["assemble", file, "--json"]]);
    for (const b of BUDGETS) list.push([`${name} assemble --budget ${b}`, ["assemble", file, "--json", "--budget", String(b)]]);
    list.push([`${name} assemble --budget 4000 --prompt`, ["assemble", file, "--json", "--budget", "4000", "--prompt", promptOf(file)]]);
  }
  return list.map(([key, argv]) => [key, [...argv, ...opts]]);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "contextfold-identity-"));
try {
  const all = [...(await sessions(tmp))].flatMap(([name, input]) => jobs(name, input));
  const hashes = {};
  let next = 0;
  const worker = async () => {
    while (next < all.length) {
      const [key, argv] = all[next++];
      hashes[key] = createHash("sha256")
        .update(await run(cli, argv))
        .digest("hex");
    }
  };
  await Promise.all(Array.from({ length: Math.max(2, os.availableParallelism()) }, worker));
  const sorted = Object.fromEntries(
    Object.keys(hashes)
      .sort()
      .map((k) => [k, hashes[k]]),
  );
  if (write) {
    const old = existsSync(record) ? JSON.parse(readFileSync(record, "utf8")) : {};
    mkdirSync(path.dirname(record), { recursive: true });
    writeFileSync(record, JSON.stringify({ ...old, ...sorted }, null, 1) + "\n");
    process.stdout.write(`identity: recorded ${all.length} outputs in ${path.relative(root, record)}\n`);
  } else {
    const want = JSON.parse(readFileSync(record, "utf8"));
    const differ = Object.keys(sorted).filter((k) => want[k] !== sorted[k]);
    for (const k of differ) process.stdout.write(`differs: ${k}${want[k] ? "" : " (not recorded)"}\n`);
    process.stdout.write(`identity: ${all.length - differ.length} of ${all.length} outputs as recorded\n`);
    if (differ.length) process.exitCode = 1;
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// Converts the evaluation datasets into OpenClaw sessions (through bench/convert) and lists
// what each benchmark runs on. `--fast` takes a fixed subset.
import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync, statSync } from "node:fs";
import { join, basename } from "node:path";
import { convertLocomo, readConversation, renderLine } from "../convert/locomo.mjs";
import { convertTaubench } from "../convert/taubench.mjs";
import { convertClaudeCode } from "../convert/claude-code.mjs";
import { REPO, log, sampleOf } from "./common.mjs";

/** Budgets (tokens) per dataset variant (EVALUATION.md §1–2). */
export const BUDGETS = {
  full: { chat: [2000, 4000, 8000, 16000], agentic: [2000, 4000, 8000, 16000], multitopic: [8000, 16000, 32000], taubench: [500, 1000, 1500] },
  fast: { chat: [4000, 8000], agentic: [4000, 8000], multitopic: [16000], taubench: [1000] },
};

/** Budgets of the invariant sweep for the sessions that are not LoCoMo. */
export const SWEEP_BUDGETS = { taubench: [500, 1000, 1500], claudeCode: [1000, 2000, 4000], sample: [500, 1000, 2000] };

/** The LoCoMo conversations and tau-bench trajectories of the `--fast` subset. */
export const FAST = { conversations: ["conv-26", "conv-30"], taubench: 10, seed: 7 };

const json = (v) => JSON.stringify(v, null, 1) + "\n";

/**
 * Converts everything into `<outDir>/sessions/` and returns the manifest (also written there).
 */
export function prepare({ dataDir, outDir, fast }) {
  const dir = join(outDir, "sessions");
  mkdirSync(dir, { recursive: true });
  const write = (file, text) => writeFileSync(join(dir, file), text);
  const manifest = {
    dataDir,
    sessionsDir: dir,
    fast: !!fast,
    locomo: { chat: [], agentic: [], multitopic: [] },
    taubench: [],
    claudeCode: [],
    sample: null,
    lines: "locomo.lines.json",
  };

  // LoCoMo: every file in locomo/ (the dev file here; the full set elsewhere)
  const locomoDir = join(dataDir, "locomo");
  let samples = [];
  if (existsSync(locomoDir)) {
    for (const f of readdirSync(locomoDir)
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      const data = JSON.parse(readFileSync(join(locomoDir, f), "utf8"));
      samples.push(...(Array.isArray(data) ? data : [data]));
    }
  }
  if (fast) samples = samples.filter((s) => FAST.conversations.includes(s.sample_id));
  if (samples.length) {
    // The rendered text of every dialog line, for the "evidence line survives" test.
    const lines = {};
    for (const s of samples) {
      const c = readConversation(s);
      lines[c.sampleId] = {};
      for (const session of c.sessions) for (const t of session.turns) lines[c.sampleId][t.diaId] = renderLine(t);
    }
    write(manifest.lines, JSON.stringify(lines) + "\n");
    for (const variant of /** @type {const} */ (["chat", "agentic", "multitopic"])) {
      const results = convertLocomo(samples, { variant });
      for (const r of results) {
        write(`${r.name}.jsonl`, r.jsonl);
        write(`${r.name}.questions.json`, json(r.sidecar));
        manifest.locomo[variant].push(r.name);
      }
      log(`locomo ${variant}: ${results.length} sessions`);
    }
  } else log(`no LoCoMo data under ${locomoDir}; its benchmarks are skipped`);

  // tau-bench
  const tauDir = join(dataDir, "taubench");
  if (existsSync(tauDir)) {
    const all = [];
    for (const f of readdirSync(tauDir)
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      const items = JSON.parse(readFileSync(join(tauDir, f), "utf8"));
      all.push(...convertTaubench(items, { source: basename(f, ".json") }));
    }
    let picked = all;
    if (fast)
      picked = sampleOf(
        all.filter((r) => r.sidecar.queryIndex != null),
        FAST.taubench,
        FAST.seed,
      );
    for (const r of picked) {
      write(`${r.name}.jsonl`, r.jsonl);
      write(`${r.name}.query.json`, json(r.sidecar));
      manifest.taubench.push(r.name);
    }
    log(`taubench: ${picked.length} trajectories`);
  } else log(`no tau-bench data under ${tauDir}; its benchmarks are skipped`);

  // Claude Code transcripts
  const ccDir = join(dataDir, "claude-code");
  if (existsSync(ccDir) && statSync(ccDir).isDirectory()) {
    for (const f of readdirSync(ccDir)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()) {
      const name = `claude-code.${basename(f, ".jsonl")}`;
      const r = convertClaudeCode(readFileSync(join(ccDir, f), "utf8"), { name });
      write(`${name}.jsonl`, r.jsonl);
      write(`${name}.messages.json`, json(r.anthropic));
      manifest.claudeCode.push(name);
    }
    log(`claude-code: ${manifest.claudeCode.length} transcripts`);
  }

  // The project's own sample session
  const sample = join(REPO, "samples", "session.jsonl");
  if (existsSync(sample)) manifest.sample = sample;

  writeFileSync(join(dir, "manifest.json"), json(manifest));
  return manifest;
}

/** Path of a converted session file. */
export const sessionPath = (manifest, name, ext = ".jsonl") => join(manifest.sessionsDir, `${name}${ext}`);

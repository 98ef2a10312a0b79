// Shared helpers for the tests of the built package (pkg-template/ after scripts/build.sh).
import { existsSync, mkdirSync, symlinkSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const PKG = path.join(ROOT, "pkg-template");
export const SAMPLE = path.join(ROOT, "samples", "session.jsonl");

if (!existsSync(path.join(PKG, "wasm", "contextfold_bg.wasm"))) {
  throw new Error("pkg-template/ is not built: run `bash scripts/build.sh` first");
}

/** Makes `openclaw` resolvable from the package, as the host does when it installs a plugin. */
export function linkHost() {
  const host = path.join(ROOT, "tests", "node_modules", "openclaw");
  if (!existsSync(host)) return false;
  const link = path.join(PKG, "node_modules", "openclaw");
  if (!existsSync(link)) {
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(host, link, "dir");
  }
  return true;
}

/** Runs the packaged CLI. */
export function cli(args, input) {
  const r = spawnSync(process.execPath, [path.join(PKG, "js", "cli.js"), ...args], {
    input,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** A small OpenClaw-format conversation: two completed turns with thinking and tools. */
export function conversation() {
  const call = { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } };
  return [
    { role: "user", content: [{ type: "text", text: "read a.txt" }], timestamp: 1 },
    {
      role: "assistant",
      content: [{ type: "thinking", thinking: "I will read it", thinkingSignature: "sig" }, call],
      provider: "deepseek",
      stopReason: "toolUse",
      timestamp: 2,
    },
    { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "A".repeat(4000) }], isError: false, timestamp: 3 },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "done reading" },
        { type: "text", text: "a.txt is all As" },
      ],
      provider: "deepseek",
      stopReason: "stop",
      timestamp: 4,
      __openclaw: { runId: "r1" },
    },
    { role: "user", content: "thanks", timestamp: 5 },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "reply" },
        { type: "text", text: "you're welcome" },
      ],
      provider: "deepseek",
      stopReason: "stop",
      timestamp: 6,
    },
  ];
}

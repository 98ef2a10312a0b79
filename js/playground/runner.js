// Where the engine runs: in a worker, so a large session does not freeze the page, or on
// the page itself when workers are unavailable. Both answer with the core's result less
// the messages; the page applies the steps to its own copy of the input (js/core/core.js
// `applySteps`), exactly as the CLI does.
import { loadCore, readSession, run, replay } from "./engine.js";

/** @import { Core } from "../core/core.js" */
/** @import { PlaygroundSession, ReplayReport, RunResult, RunSettings } from "./engine.js" */
/** What a runner answers for a run: the core's result less the messages. @typedef {Omit<RunResult, "messages">} RunOutput */
/** @typedef {WorkerRunner | PageRunner} Runner */

/**
 * Starts the engine; resolves once the wasm core is loaded.
 * @param {URL} wasmDir
 * @returns {Promise<Runner>}
 */
export async function createRunner(wasmDir) {
  if (typeof Worker === "function") {
    const w = new WorkerRunner(wasmDir);
    try {
      await w.init();
      return w;
    } catch {
      w.close();
    }
  }
  const p = new PageRunner(wasmDir);
  await p.init();
  return p;
}

class WorkerRunner {
  /** @param {URL} wasmDir */
  constructor(wasmDir) {
    /** @type {"worker"} */
    this.kind = "worker";
    this.wasmDir = wasmDir;
    this.seq = 0;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (err: Error) => void}>} */
    this.pending = new Map();
    /** @type {Error | null} */
    this.failed = null;
    /** @type {string | undefined} */
    this.version = undefined;
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "contextfold-engine" });
    this.worker.onmessage = (e) => {
      const p = this.pending.get(e.data?.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      if (e.data.ok) p.resolve(e.data.value);
      else p.reject(new Error(e.data.error));
    };
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.failed = new Error(e.message || "the engine worker stopped");
      for (const p of this.pending.values()) p.reject(this.failed);
      this.pending.clear();
    };
  }

  /**
   * Sends one request to the worker; resolves with its answer.
   * @param {{type: string, [k: string]: unknown}} msg
   * @param {Transferable[]} [transfer]
   * @returns {Promise<any>}
   */
  call(msg, transfer = []) {
    if (this.failed) return Promise.reject(this.failed);
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id }, transfer);
    });
  }

  async init() {
    const v = await this.call({ type: "init", wasmDir: String(this.wasmDir) });
    this.version = v.version;
  }

  /**
   * Hands the worker its own copy of the input bytes (the page keeps the original).
   * @param {Uint8Array} bytes
   * @param {string} name
   * @param {string} format
   */
  setInput(bytes, name, format) {
    const copy = bytes.slice();
    return this.call({ type: "input", bytes: copy, name, format }, [copy.buffer]);
  }

  /**
   * @param {RunSettings} settings
   * @returns {Promise<RunOutput>}
   */
  run(settings) {
    return this.call({ type: "run", settings });
  }

  /**
   * @param {RunSettings} settings
   * @returns {Promise<ReplayReport>}
   */
  replay(settings) {
    return this.call({ type: "replay", settings });
  }

  close() {
    this.worker.terminate();
  }
}

class PageRunner {
  /** @param {URL} wasmDir */
  constructor(wasmDir) {
    /** @type {"page"} */
    this.kind = "page";
    this.wasmDir = wasmDir;
    /** @type {PlaygroundSession | null} */
    this.session = null;
    /** @type {Core | undefined} */
    this.core = undefined;
    /** @type {string | undefined} */
    this.version = undefined;
  }

  async init() {
    this.core = await loadCore(this.wasmDir);
    this.version = this.core.version;
  }

  /**
   * @param {Uint8Array} bytes
   * @param {string} name
   * @param {string} format
   */
  async setInput(bytes, name, format) {
    this.session = null;
    this.session = readSession(bytes, { name, format, core: /** @type {Core} */ (this.core) });
  }

  /**
   * @param {RunSettings} settings
   * @returns {Promise<RunOutput>}
   */
  async run(settings) {
    if (!this.session) throw new Error("no input");
    let core = /** @type {Core} */ (this.core);
    if (core.poisoned) this.core = core = await loadCore(this.wasmDir);
    /** @type {Partial<RunResult>} */
    const r = run(core, this.session, settings);
    delete r.messages;
    return /** @type {RunOutput} */ (r);
  }

  /**
   * @param {RunSettings} settings
   * @returns {Promise<ReplayReport>}
   */
  async replay(settings) {
    if (!this.session) throw new Error("no input");
    let core = /** @type {Core} */ (this.core);
    if (core.poisoned) this.core = core = await loadCore(this.wasmDir);
    return replay(core, this.session, settings);
  }

  close() {}
}

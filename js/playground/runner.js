// Where the engine runs: in a worker, so a large session does not freeze the page, or on
// the page itself when workers are unavailable. Both answer with the core's result less
// the messages; the page applies the steps to its own copy of the input (js/core/core.js
// `applySteps`), exactly as the CLI does.
import { loadCore, readSession, run, replay } from "./engine.js";

/** Starts the engine; resolves once the wasm core is loaded. */
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
  constructor(wasmDir) {
    this.kind = "worker";
    this.wasmDir = wasmDir;
    this.seq = 0;
    this.pending = new Map();
    this.failed = null;
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

  /** Hands the worker its own copy of the input bytes (the page keeps the original). */
  setInput(bytes, name, format) {
    const copy = bytes.slice();
    return this.call({ type: "input", bytes: copy, name, format }, [copy.buffer]);
  }

  run(settings) {
    return this.call({ type: "run", settings });
  }

  replay(settings) {
    return this.call({ type: "replay", settings });
  }

  close() {
    this.worker.terminate();
  }
}

class PageRunner {
  constructor(wasmDir) {
    this.kind = "page";
    this.wasmDir = wasmDir;
    this.session = null;
  }

  async init() {
    this.core = await loadCore(this.wasmDir);
    this.version = this.core.version;
  }

  async setInput(bytes, name, format) {
    this.session = null;
    this.session = readSession(bytes, { name, format });
  }

  async run(settings) {
    if (!this.session) throw new Error("no input");
    if (this.core.poisoned) this.core = await loadCore(this.wasmDir);
    const r = run(this.core, this.session, settings);
    delete r.messages;
    return r;
  }

  async replay(settings) {
    if (!this.session) throw new Error("no input");
    if (this.core.poisoned) this.core = await loadCore(this.wasmDir);
    return replay(this.core, this.session, settings);
  }

  close() {}
}

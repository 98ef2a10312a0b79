// Node entry: loads the wasm core from the package's wasm/ folder. The module is compiled
// once per process; an instance that crashed is replaced by a fresh one on the next load.
import { readFileSync, existsSync } from "node:fs";
import { wrapGlue } from "./core.js";

export { applySteps, formatLogLine, formatRequestLine, worthLogging, changed, roughTokens } from "./core.js";

// Inside the installed package wasm/ sits beside js/; in the source tree the build writes it
// to pkg-template/wasm/.
const WASM_DIRS = [new URL("../../wasm/", import.meta.url), new URL("../../pkg-template/wasm/", import.meta.url)];

// Shared by every copy of this module in the process (a host may load a plugin module more
// than once): one compiled module, one healthy instance.
const SHARED = Symbol.for("contextfold.core");
/** @type {any} */ (globalThis)[SHARED] ??= { compiled: undefined, current: undefined, instances: 0 };
/** @type {{compiled: WebAssembly.Module | undefined, current: import("./core.js").Core | undefined, instances: number}} */
const shared = /** @type {any} */ (globalThis)[SHARED];

function wasmDir() {
  const dir = WASM_DIRS.find((d) => existsSync(new URL("contextfold_bg.wasm", d)));
  if (!dir) throw new Error("contextfold: wasm core not found; run `bash scripts/build.sh` first");
  return dir;
}

/** Returns a healthy core instance, creating one if needed. */
export async function loadCore() {
  if (shared.current && !shared.current.poisoned) return shared.current;
  const dir = wasmDir();
  shared.compiled ??= new WebAssembly.Module(readFileSync(new URL("contextfold_bg.wasm", dir)));
  // A new module URL gives a new glue module, hence a fresh wasm instance and memory.
  const url = new URL("contextfold.js", dir);
  if (shared.instances++ > 0) url.search = `instance=${shared.instances}`;
  const glue = await import(url.href);
  const exports = glue.initSync({ module: shared.compiled });
  shared.current = wrapGlue(glue);
  /** Bytes of the instance's linear memory (it grows with the largest request and never shrinks). */
  shared.current.memoryBytes = () => exports.memory.buffer.byteLength;
  return shared.current;
}

// Browser entry of the library (`import { init, assemble } from "contextfold/browser"`, also
// what the "browser" export condition of "contextfold" picks): the wasm core is fetched from
// the package's wasm/ folder next to this file, or taken from what `init` is given (a URL, a
// Response, the module's bytes or a compiled WebAssembly.Module). It is compiled once; an
// instance that crashed is replaced by a fresh one on the next call. Everything else is
// js/lib/api.js.
import { wrapGlue } from "../core/core.js";
import { createApi } from "./api.js";

export { InputError } from "../core/readers.js";

const WASM_DIR = new URL("../../wasm/", import.meta.url);

/** @type {Promise<WebAssembly.Module> | undefined} */
let compiled;
/** @type {import("../core/core.js").Core | undefined} */
let current;
let instances = 0;

/**
 * Compiles the wasm core once; later calls return the same module. Optional: the first call
 * of the API fetches the package's own wasm when `init` was not called.
 * @param {string | URL | Response | BufferSource | WebAssembly.Module} [source]
 * @returns {Promise<void>}
 */
export async function init(source) {
  compiled ??= compile(source ?? new URL("contextfold_bg.wasm", WASM_DIR)).catch((err) => {
    compiled = undefined; // the next call tries again
    throw err;
  });
  await compiled;
}

/** @param {string | URL | Response | BufferSource | WebAssembly.Module} source */
async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === "string" || source instanceof URL) source = await fetch(source);
  if (source instanceof Response) {
    if (!source.ok) throw new Error(`contextfold: fetching the wasm core failed (${source.status} ${source.url})`);
    source = await source.arrayBuffer();
  }
  return WebAssembly.compile(/** @type {BufferSource} */ (source));
}

/** A healthy core instance (a new glue module per instance: each holds one instance). */
async function getCore() {
  if (current && !current.poisoned) return current;
  await init();
  const url = new URL("contextfold.js", WASM_DIR);
  if (instances++ > 0) url.search = `instance=${instances}`;
  const glue = await import(url.href);
  await glue.default({ module_or_path: await compiled });
  current = wrapGlue(glue);
  return current;
}

export const { clean, assemble, recover, estimateTokens, openSession } = createApi(getCore);

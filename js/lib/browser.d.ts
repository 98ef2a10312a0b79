// Types of the browser entry (js/lib/browser.js): `import { init, assemble } from "contextfold/browser"`.
import type { Api } from "./types.js";

export * from "./types.js";

/**
 * Compiles the wasm core once (optional: the first call fetches the package's own
 * `wasm/contextfold_bg.wasm` when `init` was not called). Takes the module's URL, a fetch
 * Response, its bytes, or a compiled module.
 */
export declare function init(source?: string | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;

export declare const clean: Api["clean"];
export declare const assemble: Api["assemble"];
export declare const recover: Api["recover"];
export declare const estimateTokens: Api["estimateTokens"];
export declare const openSession: Api["openSession"];

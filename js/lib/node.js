// Node entry of the library (`import { assemble } from "contextfold"`): the wasm core is loaded
// from the package's wasm/ folder, compiled once per process, and replaced by a fresh instance
// after a crash (js/core/node.js). Everything else is js/lib/api.js.
import { loadCore } from "../core/node.js";
import { createApi } from "./api.js";

export { InputError } from "../core/readers.js";

export const { clean, assemble, recover, estimateTokens, openSession } = createApi(loadCore);

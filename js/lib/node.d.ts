// Types of the Node entry (js/lib/node.js): `import { assemble } from "contextfold"`.
import type { Api } from "./types.js";

export * from "./types.js";

export declare const clean: Api["clean"];
export declare const assemble: Api["assemble"];
export declare const recover: Api["recover"];
export declare const estimateTokens: Api["estimateTokens"];
export declare const openSession: Api["openSession"];

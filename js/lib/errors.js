// Which errors are the caller's to fix: everything the core or the readers refuse about an
// input or an option becomes an InputError carrying their message; a trap (a bug in the core,
// after which its instance is replaced) stays what it is. One place for the rule, used by the
// one-shot calls and the live session.
import { InputError } from "../core/readers.js";

/**
 * Runs `fn`, converting what it throws as above.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
export function callerErrors(fn) {
  try {
    return fn();
  } catch (err) {
    if (err instanceof WebAssembly.RuntimeError || err instanceof InputError) throw err;
    throw new InputError(/** @type {Error} */ (err)?.message ?? String(err));
  }
}

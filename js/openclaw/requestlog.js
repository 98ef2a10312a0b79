// One log line per model request. The host assembles more than once per model request: its
// first assemble of a turn plans the history, and the tool loop assembles that output again
// right before each model call; only the last plan before a call is what the model gets.
// This module decides when a plan's line is written: a plan of the host's history is held
// until it is known whether the host plans it again before sending it (then the later plan's
// line is the request's) or sends it as it is (then the held line is written when the turn
// moves on). It formats nothing (js/core/core.js does) and keeps one held line per live session.

/** @typedef {{info: (msg: string) => void}} Logger */
/** @typedef {{heldLine?: string | null}} Holder  a live session, as far as its held line goes */

/**
 * A plan of the host's history: its line waits (the host may plan the request again).
 * @param {Holder} s
 * @param {Logger} logger
 * @param {string | null | undefined} line
 */
export function holdLine(s, logger, line) {
  flushLine(s, logger);
  s.heldLine = line ?? null;
}

/**
 * A plan made right before a model call: its line is the request's; a held one is dropped.
 * @param {Holder} s
 * @param {Logger} logger
 * @param {string | null | undefined} line
 */
export function requestLine(s, logger, line) {
  s.heldLine = null;
  if (line) logger.info(line);
}

/**
 * The held plan went to the model as it was (the turn moved on): its line is written now.
 * @param {Holder | null | undefined} s
 * @param {Logger} logger
 */
export function flushLine(s, logger) {
  const line = s?.heldLine;
  if (!line) return;
  /** @type {Holder} */ (s).heldLine = null;
  logger.info(line);
}

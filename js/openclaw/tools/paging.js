// How much of a result one call returns: lists are paged (page / pageSize ≤ 200), text is
// cut at 64 KB with an offset to continue, and `details` that would exceed the cap keep only
// their scalar fields. It never decides what a result contains.
import { ToolError } from "./errors.js";

export const MAX_PAGE_SIZE = 200;
export const MAX_TEXT_BYTES = 64 * 1024;

/**
 * A page of a list with its place in it.
 * @template T
 * @typedef {{items: T[], page: number, pages: number, total: number, pageSize: number}} Page
 */

/**
 * Page `page` (1-based) of `items`, `size` a page; a page past the last one is the caller's error.
 * @template T
 * @param {T[]} items
 * @returns {Page<T>}
 */
export function pageOf(items, page = 1, size = 20) {
  const pages = Math.max(1, Math.ceil(items.length / size));
  if (page > pages && items.length > 0) throw new ToolError(`page ${page} is past the last page (${pages})`);
  return { items: items.slice((page - 1) * size, page * size), page, pages, total: items.length, pageSize: size };
}

/** The page's place in the list, with how to ask for the next page. */
export const pageLine = (/** @type {Page<unknown>} */ p, /** @type {string} */ what) =>
  p.pages > 1 ? `page ${p.page} of ${p.pages} (${p.total} ${what}; pass page=${p.page + 1} for more)` : `${p.total} ${what}`;

/**
 * Cuts `text` to the byte cap, starting at character `offset`.
 * @param {string} text
 * @returns {{text: string, nextOffset: number | null}}
 */
export function capText(text, offset = 0) {
  const rest = offset > 0 ? text.slice(offset) : text;
  const buf = Buffer.from(rest, "utf8");
  if (buf.length <= MAX_TEXT_BYTES) return { text: rest, nextOffset: null };
  const note = "\n[… cut at 64 KB; call again with offset=";
  let cut = buf.subarray(0, MAX_TEXT_BYTES - 200).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  const nextOffset = offset + cut.length;
  return { text: `${cut}${note}${nextOffset} to continue]`, nextOffset };
}

/**
 * Keeps `details` small: a result that would exceed the cap keeps only its scalar fields.
 * @param {any} d
 */
export function boundDetails(d) {
  try {
    if (Buffer.byteLength(JSON.stringify(d ?? null), "utf8") <= MAX_TEXT_BYTES) return d ?? null;
  } catch {
    // not serializable: fall through
  }
  /** @type {Record<string, unknown>} */
  const small = {};
  for (const [k, v] of Object.entries(d ?? {})) if (v === null || typeof v !== "object") small[k] = v;
  return { ...small, truncated: true };
}

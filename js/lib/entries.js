// The transcript entries of a bare message list: what the library's live session indexes, so
// that its turn ids are the ones the core gives the same messages in a one-shot `assemble`
// (crate/src/session/ `synthetic_entries`): a user prompt's id is its content hash as the
// planner shows it (`h` + the index's key of the message), every other message's is
// `m<position>`, and an id already taken gets `-<position>`. Only the core computes content
// keys; it tells them through a throwaway index of the messages in which each one follows an
// empty assistant message, so that every user prompt opens a turn whatever came before it.
// tests/js/library.test.mjs compares the two paths, repeated prompts included.
// Never keeps state: the caller holds the ids taken so far.

/** @import { Message } from "../core/types.js" */
/** @import { Core } from "../core/core.js" */
/** @import { TranscriptEntry } from "../core/readers.js" */

const SPACER = Object.freeze({ role: "assistant", content: [] });

/**
 * Entries for `messages`, which sit at positions `offset`, `offset + 1`, … of the caller's
 * history, chained after the entry `parentId`.
 * @param {Core} core       a core instance (js/core/core.js `wrapGlue`)
 * @param {readonly Message[]} messages
 * @param {{offset?: number, parentId?: string | null, taken?: Set<string>}} [at]
 *   `taken`: ids given so far (updated in place)
 * @returns {{id: string, parentId: string | null, type: "message", message: Message}[]}
 */
export function messageEntries(core, messages, { offset = 0, parentId = null, taken = new Set() } = {}) {
  /** @type {TranscriptEntry[]} */
  const probe = [];
  /** @type {string | null} */
  let prev = null;
  messages.forEach((message, i) => {
    probe.push({ id: `s${i}`, parentId: prev, type: "message", message: SPACER });
    probe.push({ id: `p${i}`, parentId: `s${i}`, type: "message", message });
    prev = `p${i}`;
  });
  /** @type {Map<string, string>} */
  const keys = new Map();
  if (probe.length > 0) {
    const scratch = core.newSession({});
    try {
      scratch.rebuild(probe);
      for (const t of scratch.index().turns) keys.set(t.entries[0].id, t.key);
    } finally {
      scratch.free();
    }
  }
  let parent = parentId;
  return messages.map((message, i) => {
    const at = offset + i;
    const key = keys.get(`p${i}`);
    let id = key === undefined ? `m${at}` : `h${key}`;
    if (taken.has(id)) id = `${id}-${at}`;
    taken.add(id);
    const e = { id, parentId: parent, type: /** @type {const} */ ("message"), message };
    parent = id;
    return e;
  });
}

// The input: a file chosen or dropped anywhere on the page, pasted text, or a built-in
// sample, in the format chosen (or detected). The page reads it for the views and hands the
// bytes to the engine; nothing leaves the page.
import { readSession } from "./engine.js";
import { encodeUtf8 } from "./entries.js";
import { state } from "./state.js";
import { rerun } from "./run.js";
import { $, field, fieldOf } from "./view.js";
import { render } from "./views/index.js";

/** @import { Runner } from "./runner.js" */
/** @import { Core } from "../core/core.js" */

/** The built-in samples (served next to the page). */
export const SAMPLES = ["session.jsonl", "multitopic.jsonl"];
/** @type {Record<string, string>} */
const PROMPT_HINTS = {
  "session.jsonl": "e.g. Did the rounding fix in ledger.rs touch the tests?",
  "multitopic.jsonl": "e.g. Back to the sourdough: how long should the levain rest before I mix the dough?",
};

/** The buttons of the built-in samples. */
export const sampleButtons = () => /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll(".sample"));

/** Reads the input on the page (for the views) and hands it to the engine. */
function readInput() {
  if (!state.input) return;
  state.inputGen++;
  state.result = null;
  try {
    state.session = readSession(state.input.bytes, { name: state.input.name, format: state.format, core: /** @type {Core} */ (state.core) });
    state.readError = null;
  } catch (err) {
    state.session = null;
    state.readError = String(err?.message ?? err);
    return;
  }
  /** @type {Runner} */ (state.runner).setInput(state.input.bytes, state.input.name, state.format).catch((err) => {
    state.runError = String(err?.message ?? err);
  });
}

/** Makes `bytes` the input (a sample when `sample` names one) and runs the engine on it. */
/**
 * @param {Uint8Array} bytes
 * @param {string} name
 * @param {{sample?: string | null}} [o]
 */
export function loadBytes(bytes, name, { sample = null } = {}) {
  state.input = { bytes, name };
  state.sampleName = sample;
  state.expanded.clear();
  field("prompt").placeholder = PROMPT_HINTS[sample ?? ""] ?? "Optional. A topic it refers to is brought back.";
  for (const b of sampleButtons()) b.setAttribute("aria-pressed", String(b.dataset.sample === sample));
  readInput();
  rerun();
}

/** Loads a file the user chose or dropped; a file that cannot be read is named in the status. */
/** @param {File | undefined} file */
async function loadFile(file) {
  if (!file) return;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    loadBytes(bytes, file.name);
  } catch (err) {
    state.readError = `cannot read ${file.name}: ${err?.message ?? err}`;
    render();
  }
}

/**
 * Loads a built-in sample (once its bytes are fetched).
 * @param {string | undefined} name
 */
export function loadSample(name) {
  if (name === undefined) return;
  const bytes = state.samples.get(name);
  if (bytes) loadBytes(bytes, name, { sample: name });
}

/** Listens to the file picker, the sample buttons, the format, the paste box and drops. */
export function wireInput() {
  $("file").addEventListener("change", (e) => {
    loadFile(fieldOf(e).files?.[0]);
    fieldOf(e).value = "";
  });
  for (const b of sampleButtons()) b.addEventListener("click", () => loadSample(b.dataset.sample));
  $("format").addEventListener("change", (e) => {
    state.format = fieldOf(e).value;
    readInput();
    rerun();
  });
  $("paste-use").addEventListener("click", () => {
    const text = field("paste-text").value;
    if (text.trim()) loadBytes(encodeUtf8(text), "pasted.json");
  });

  // Dropping a file anywhere on the page.
  const overlay = $("drop-overlay");
  let depth = 0;
  const hasFiles = (/** @type {DragEvent} */ e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  window.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  window.addEventListener("dragover", (e) => {
    if (hasFiles(e)) e.preventDefault();
  });
  window.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  window.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    loadFile(e.dataTransfer?.files?.[0]);
  });
}

/** The bytes at `url` (same origin), or an error naming the path and the HTTP status. */
/** @param {URL} url */
export async function fetchBytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

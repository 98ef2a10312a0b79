// The lines around the views: which input is loaded (format, messages, warnings), what went
// wrong (a read error, settings the engine or the page refused, a fallback) and the
// `contextfold assemble` command with the config file that gives the same result.
import { state, configDiff } from "../state.js";
import { $, h } from "../view.js";

/** The source line: which input is loaded, its format, messages, session and warnings. */
export function renderSource() {
  const s = state.session;
  const el = $("source");
  if (!state.runner) return;
  if (!s) {
    el.replaceChildren(state.input ? h("span", {}, state.input.name) : "No session loaded");
    return;
  }
  el.replaceChildren(
    ...[
      h("span", { class: "src-name", title: s.name }, s.name),
      h("span", { class: "src-meta" }, `${s.format} · ${s.messages.length} messages · session ${s.session}`),
      s.warnings.length
        ? h("span", { class: "src-warn", title: s.warnings.join("\n") }, `${s.warnings.length} warning${s.warnings.length > 1 ? "s" : ""}`)
        : null,
    ].filter((x) => x !== null),
  );
}

/** The status messages: read errors, refused settings, a fallback, the input's warnings. */
export function renderStatus() {
  const el = $("status");
  /** @type {[string, string][]} */
  const msgs = [];
  if (state.readError) msgs.push(["error", `Cannot read the input: ${state.readError}`]);
  if (state.runError) msgs.push(["error", `The engine refused these settings: ${state.runError}`]);
  for (const why of state.invalid.values()) msgs.push(["error", `${why}; the last valid value is used.`]);
  if (state.result?.fallback) msgs.push(["warn", `The engine fell back: ${state.result.fallback}`]);
  if (state.session?.warnings.length) for (const w of state.session.warnings) msgs.push(["warn", w]);
  el.hidden = msgs.length === 0;
  el.replaceChildren(...msgs.map(([k, t]) => h("p", { class: `status-${k}` }, t)));
}

/** @param {string} s */
function shellQuote(s) {
  return /^[\w./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The `contextfold assemble` command (and config file) that gives the same result. */
export function renderRepro() {
  const el = $("repro-cmd");
  const name = state.input?.name ?? "session.jsonl";
  const diff = configDiff();
  const parts = ["contextfold assemble", shellQuote(name), "--json"];
  if (state.format !== "auto") parts.push("--format", state.format);
  if (state.budget) parts.push("--budget", String(state.budget));
  if (state.prompt) parts.push("--prompt", shellQuote(state.prompt));
  const hasCfg = Object.keys(diff).length > 0;
  if (hasCfg) parts.push("--config config.json");
  el.textContent = parts.join(" ") + (hasCfg ? `\n\n# config.json\n${JSON.stringify(diff, null, 2)}` : "");
}

// The playground page: input, settings, and the three views (assembled context, turn
// timeline, totals). Everything runs here; the input never leaves the page.
//
// This file starts the page and wires it: state.js holds what the page knows, controls.js
// and input.js change it, run.js runs the engine, views/ draws the result. It also gives
// tests a hook (`window.__contextfold`) to drive the page without the UI.
import { createRunner } from "./runner.js";
import { loadCore } from "./engine.js";
import { encodeUtf8 } from "./entries.js";
import { state, coreKeys, configDiff, settings } from "./state.js";
import { buildControls, syncControls, wireControls } from "./controls.js";
import { SAMPLES, fetchBytes, loadBytes, loadSample, sampleButtons, wireInput } from "./input.js";
import { rerun, whenIdle } from "./run.js";
import { $, field, h, fmt } from "./view.js";
import { mountReplay } from "./replay.js";

/** @import { Runner } from "./runner.js" */
/** @import { ReplayView } from "./replay.js" */

const ROOT = new URL("../../", import.meta.url);

async function boot() {
  wireInput();
  wireControls();
  state.replayView = mountReplay($("replay"), {
    // A key means an input was read, which the page does only with the runner loaded (input.js).
    run: () => /** @type {Runner} */ (state.runner).replay(settings()),
    key: () => (state.session ? `${state.inputGen} ${JSON.stringify({ budget: state.budget, config: configDiff() })}` : null),
  });
  // Everything the page needs is fetched now, so it keeps working offline.
  const [manifest, core, runner, ...samples] = await Promise.all([
    fetchBytes(new URL("openclaw.plugin.json", ROOT)).then((b) => JSON.parse(new TextDecoder().decode(b))),
    loadCore(new URL("wasm/", ROOT)),
    createRunner(new URL("wasm/", ROOT)),
    ...SAMPLES.map((n) => fetchBytes(new URL(`samples/${n}`, ROOT)).catch(() => null)),
  ]);
  for (const [i, n] of SAMPLES.entries()) if (samples[i]) state.samples.set(n, samples[i]);
  for (const b of sampleButtons()) b.disabled = !state.samples.has(b.dataset.sample ?? "");
  state.runner = runner;
  state.core = core;
  state.schema = manifest.configSchema?.properties ?? {};
  state.hints = manifest.uiHints ?? {};
  const defaults = core.defaultConfig();
  for (const k of coreKeys()) if (defaults[k] !== undefined) state.defaults[k] = defaults[k];
  state.config = { ...state.defaults };
  buildControls();
  field("budget").placeholder = `maxTokens (${fmt(state.defaults.maxTokens)})`;
  syncControls();
  document.documentElement.dataset.engine = runner.version;
  document.documentElement.dataset.runner = runner.kind;
  loadSample(SAMPLES[0]);
  await whenIdle();
  document.documentElement.dataset.ready = "true";
}

const ready = boot().catch((err) => {
  const el = $("status");
  el.hidden = false;
  el.replaceChildren(
    h("p", { class: "status-error" }, `The engine could not start: ${err?.message ?? err}. Serve this folder over http (bash scripts/playground.sh).`),
  );
  $("source").textContent = "Engine not loaded";
  document.documentElement.dataset.ready = "error";
});

function publicResult() {
  const r = state.result;
  if (!r) return null;
  return JSON.parse(
    JSON.stringify({
      ...r,
      name: state.session?.name,
      session: state.session?.session,
      format: state.session?.format,
      warnings: state.session?.warnings ?? [],
    }),
  );
}

// The page's test hook: drive it without the UI and read what it computed. The setters
// resolve to the result once the engine has run with the new setting.
// Its type is in types/playground-hook.d.ts.
window.__contextfold = {
  ready,
  get lastResult() {
    return publicResult();
  },
  get error() {
    return state.readError ?? state.runError ?? null;
  },
  idle: () => whenIdle().then(publicResult),
  /** Replays the loaded session with the current settings; resolves to the replay's summary. */
  // The view is mounted as the page boots, before this hook is set.
  replay: () => /** @type {ReplayView} */ (state.replayView).replay(),
  /**
   * @param {string} text
   * @param {string} [name]
   * @param {string} [format]
   */
  setInput(text, name = "input.jsonl", format) {
    if (format) {
      state.format = format;
      field("format").value = format;
    }
    loadBytes(encodeUtf8(String(text)), name);
    return whenIdle().then(publicResult);
  },
  setConfig(obj = {}) {
    state.config = { ...state.defaults, ...obj };
    syncControls();
    rerun();
    return whenIdle().then(publicResult);
  },
  /** @param {number | string | null | undefined} n */
  setBudget(n) {
    state.budget = n == null || n === "" ? null : Number(n);
    field("budget").value = state.budget == null ? "" : String(state.budget);
    rerun();
    return whenIdle().then(publicResult);
  },
  /** @param {string | null | undefined} t */
  setPrompt(t) {
    state.prompt = String(t ?? "");
    field("prompt").value = state.prompt;
    rerun();
    return whenIdle().then(publicResult);
  },
};

// When the engine runs: on the next frame after a change, one run at a time (a change made
// meanwhile runs once more when the current run is back), and who waits for it to be idle.
// The result goes into the state and the views are drawn; a result for an input that has been
// replaced since is dropped.
import { applySteps } from "../core/core.js";
import { state, settings } from "./state.js";
import { $ } from "./view.js";
import { render } from "./views/index.js";

let pending = 0;
/** Re-runs on the next frame (many input events in one frame make one run). */
export function schedule() {
  if (pending) return;
  pending = requestAnimationFrame(() => {
    pending = 0;
    rerun();
  });
}

/** @type {((value: void) => void)[]} */
const idleWaiters = [];
/**
 * Resolves once no run is scheduled, running or due.
 * @returns {Promise<void>}
 */
export function whenIdle() {
  if (!pending && !state.running && !state.dirty) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push(resolve));
}
/** Resolves the waiters of whenIdle when nothing is scheduled, running or due. */
function notifyIdle() {
  if (pending || state.running || state.dirty) return;
  for (const r of idleWaiters.splice(0)) r();
}

/**
 * Runs the engine with the current settings. One run at a time: a change made meanwhile
 * marks the state dirty and runs once more when the current run is back.
 */
export function rerun() {
  if (pending) {
    cancelAnimationFrame(pending);
    pending = 0;
  }
  if (!state.runner) return;
  if (!state.session) {
    state.result = null;
    render();
    notifyIdle();
    return;
  }
  if (state.running) {
    state.dirty = true;
    return;
  }
  state.running = true;
  state.dirty = false;
  const gen = state.inputGen;
  const session = state.session;
  const busy = setTimeout(() => setBusy(true), 150);
  state.runner
    .run(settings())
    .then(
      (r) => {
        if (gen !== state.inputGen) return;
        state.result = { ...r, messages: applySteps(session.messages, r.steps) };
        state.runError = null;
      },
      (err) => {
        if (gen !== state.inputGen) return;
        state.runError = String(err?.message ?? err);
      },
    )
    .finally(() => {
      clearTimeout(busy);
      state.running = false;
      if (gen === state.inputGen) render();
      if (state.dirty || gen !== state.inputGen) {
        state.dirty = false;
        rerun();
        return;
      }
      setBusy(false);
      notifyIdle();
    });
}

/** @param {boolean} on */
function setBusy(on) {
  $("busy").hidden = !on;
  $("context").setAttribute("aria-busy", String(on));
}

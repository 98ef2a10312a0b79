// The task kinds a worker (or the main thread) can run.
import { runCell, sessionInfo, dropCaches } from "./locomo.mjs";
import { runTrajectory } from "./taubench.mjs";
import { sweepSession } from "./invariants.mjs";
import { replay } from "./cache.mjs";
import { engine } from "./common.mjs";

const KINDS = { locomo: runCell, locomoInfo: (m, t) => sessionInfo(m, t.session), taubench: runTrajectory, sweep: sweepSession, replay: (_m, t) => replay(t) };

export async function runTask(manifest, task) {
  const fn = KINDS[task.kind];
  if (!fn) throw new Error(`unknown task kind ${task.kind}`);
  try {
    return await fn(manifest, task);
  } catch (err) {
    // A trap poisons the wasm instance: drop everything built on it; the next task reloads.
    const { core } = await engine();
    if (core.poisoned) dropCaches();
    throw err;
  }
}

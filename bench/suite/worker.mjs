// A benchmark worker thread: runs tasks sent by pool.mjs, one at a time, and posts results
// back. Each thread has its own wasm core and its own caches of loaded sessions.
import { parentPort, workerData } from "node:worker_threads";
import { runTask } from "./tasks.mjs";
import { useEngine } from "./common.mjs";

const { manifest } = workerData;
if (manifest.engineDir) useEngine(manifest.engineDir);
parentPort.on("message", async ({ id, task }) => {
  try {
    parentPort.postMessage({ id, result: await runTask(manifest, task) });
  } catch (err) {
    parentPort.postMessage({ id, error: `${err?.name ?? "Error"}: ${err?.message ?? err}` });
  }
});

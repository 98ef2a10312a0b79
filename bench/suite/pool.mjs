// A small pool of worker threads. Results come back in task order whatever the scheduling,
// so the raw results are the same for any number of workers.
import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";

export const defaultJobs = () => Math.max(1, Math.min(4, availableParallelism()));

/**
 * Runs `tasks` on `jobs` threads. `onDone(done, total, task, result)` reports progress.
 * @param {any[]} tasks
 * @param {{jobs?: number, manifest: any, onDone?: (done: number, total: number, task: any, result: any) => void}} o
 * A task that throws yields `{error}` in its slot.
 */
export function runPool(tasks, { jobs = defaultJobs(), manifest, onDone = () => {} }) {
  return new Promise((resolve, reject) => {
    const results = new Array(tasks.length);
    let next = 0;
    let done = 0;
    if (tasks.length === 0) return resolve(results);
    const workers = [];
    const feed = (w) => {
      if (next >= tasks.length) return;
      const id = next++;
      w.postMessage({ id, task: tasks[id] });
    };
    const n = Math.min(jobs, tasks.length);
    for (let i = 0; i < n; i++) {
      const w = new Worker(new URL("./worker.mjs", import.meta.url), { workerData: { manifest } });
      w.on("message", ({ id, result, error }) => {
        results[id] = error ? { error } : result;
        done++;
        onDone(done, tasks.length, tasks[id], results[id]);
        if (done === tasks.length) {
          for (const x of workers) x.terminate();
          resolve(results);
        } else feed(w);
      });
      w.on("error", (err) => {
        for (const x of workers) x.terminate();
        reject(err);
      });
      workers.push(w);
      feed(w);
    }
  });
}

#!/usr/bin/env node
// A tiny static file server for the built playground (pkg-template/playground/).
// usage: node js/playground/serve.mjs [folder] [--host 127.0.0.1] [--port 8377]
// Serves GET and HEAD only, never outside the folder, with the MIME types the page needs
// (application/wasm for the core, text/javascript for modules).
import http from "node:http";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".jsonl": "application/x-ndjson; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

/**
 * Starts serving `root`. Resolves to the listening server; its address is
 * `server.address()` (pass port 0 for a free port).
 */
export function serve(root, { host = "127.0.0.1", port = 8377 } = {}) {
  const base = path.resolve(root);
  const server = http.createServer(async (req, res) => {
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache", ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed\n", { allow: "GET, HEAD" });
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    } catch {
      return send(400, "bad request\n");
    }
    if (rel.includes("\0")) return send(400, "bad request\n");
    let file = path.resolve(base, "." + rel);
    if (file !== base && !file.startsWith(base + path.sep)) return send(403, "forbidden\n");
    try {
      let st = await fs.stat(file);
      if (st.isDirectory()) {
        if (!rel.endsWith("/")) return send(301, "", { location: rel + "/" });
        file = path.join(file, "index.html");
        st = await fs.stat(file);
      }
      const body = await fs.readFile(file);
      send(200, body, {
        "content-type": MIME[path.extname(file).toLowerCase()] ?? "application/octet-stream",
        "content-length": String(body.length),
        "x-content-type-options": "nosniff",
        "cross-origin-opener-policy": "same-origin",
      });
    } catch (err) {
      if (err?.code === "ENOENT" || err?.code === "ENOTDIR") return send(404, "not found\n");
      send(500, "server error\n");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function parseArgs(argv) {
  const o = { root: null, host: "127.0.0.1", port: 8377 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--host") o.host = argv[++i];
    else if (a === "--port") o.port = Number(argv[++i]);
    else if (a === "-h" || a === "--help") o.help = true;
    else o.root = a;
  }
  return o;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const o = parseArgs(process.argv.slice(2));
  if (o.help) {
    process.stdout.write("usage: node js/playground/serve.mjs [folder] [--host 127.0.0.1] [--port 8377]\n");
    process.exit(0);
  }
  const root = o.root ?? fileURLToPath(new URL("../../pkg-template/playground/", import.meta.url));
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) {
    process.stderr.write(`serve: bad --port\n`);
    process.exit(2);
  }
  try {
    await fs.access(path.join(root, "index.html"));
  } catch {
    process.stderr.write(`serve: ${root} has no index.html; run \`bash scripts/build-playground.sh\` first\n`);
    process.exit(1);
  }
  serve(root, o).then(
    (server) => {
      const { address, port } = server.address();
      process.stderr.write(`contextfold playground: http://${address}:${port}/  (serving ${root}; Ctrl-C to stop)\n`);
    },
    (err) => {
      process.stderr.write(`serve: ${err.message}\n`);
      process.exit(1);
    },
  );
}

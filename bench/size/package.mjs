// The release tarball's size, for the benchmark report: what `npm pack` of the built
// pkg-template/ would write (scripts/pack.sh writes the same tarball to dist/), measured with
// `npm pack --dry-run --json` so that regenerating the report always shows the current build.
// Reads only; writes nothing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * The tarball's figures, or null when pkg-template/ is not built (or npm fails).
 * @param {string} pkgDir
 * @returns {{filename: string, packed: number, unpacked: number, files: number, wasm: number, playground: number} | null}
 */
export function packageFigures(pkgDir) {
  if (!existsSync(join(pkgDir, "wasm", "contextfold_bg.wasm"))) return null;
  try {
    const [p] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--loglevel=error"], { cwd: pkgDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    );
    const bytes = (pred) => p.files.filter((f) => pred(f.path)).reduce((n, f) => n + f.size, 0);
    return {
      filename: p.filename,
      packed: p.size,
      unpacked: p.unpackedSize,
      files: p.entryCount,
      wasm: bytes((f) => f === "wasm/contextfold_bg.wasm"),
      playground: bytes((f) => f.startsWith("playground/")),
    };
  } catch {
    return null;
  }
}

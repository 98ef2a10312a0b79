// session_index_build, session_index_query and session_index_read_raw: the session's index
// (turns, entries, tokens, tools) and a turn's stored transcript lines exactly as stored. They
// read the transcript and never write it.
import { ToolError } from "./errors.js";
import { capText, pageLine, pageOf } from "./paging.js";
import { OFFSET, PAGE, TURN_ID, obj, pageSize } from "./schema.js";
import { breakdownTotals, findTurn, indexOf, pinnedTurnIds, pinsOf, protectedCount, rawLines, syncNote } from "./session.js";
import { fmt } from "./render.js";

/** @import { ToolDef } from "./session.js" */
/** @import { IndexTurn } from "../../core/types.js" */

/**
 * session_index_build, session_index_query and session_index_read_raw.
 * @returns {ToolDef[]}
 */
export function sessionIndexTools() {
  return [
    {
      name: "session_index_build",
      description:
        "Build or refresh this session's index from its transcript: reads only new entries (a rewrite of the transcript is detected and rebuilt); rebuild: true re-reads everything.",
      parameters: obj({ rebuild: { type: "boolean", description: "Rebuild from the whole transcript (default false)." } }),
      async run({ s }, p) {
        await s.session();
        if (!s.transcript) throw new ToolError("no transcript found for this session (nothing to index)");
        if (p.rebuild) s.cursor = undefined;
        const u = await s.sync();
        const index = await indexOf(s);
        const text = `${p.rebuild ? "rebuilt" : "refreshed"} the index from the ${s.transcript.kind} transcript: ${index.turns.length} turns (${u?.newTurns ?? 0} new), ${index.entries} entries on the active branch${index.skipped ? `, ${index.skipped} skipped` : ""}`;
        return {
          text,
          details: {
            source: s.transcript.kind,
            turns: index.turns.length,
            newTurns: u?.newTurns ?? 0,
            entries: index.entries,
            skipped: index.skipped,
            tip: index.tip,
          },
        };
      },
    },
    {
      name: "session_index_query",
      description:
        "Query this session's index. query: stats (turns, entries, tokens by role and part type, tools used), largest (turns by size), candidates (compression candidates: large turns not recent, pinned, folded or summarized yet — good targets for context_summarize / context_prune), turns (every turn in order). Paged.",
      parameters: obj(
        {
          query: { type: "string", enum: ["stats", "largest", "candidates", "turns"], description: "What to list." },
          page: PAGE,
          pageSize: pageSize(20),
        },
        ["query"],
      ),
      async run({ s, core }, p) {
        const note = await syncNote(s);
        const index = await indexOf(s);
        const row = (/** @type {IndexTurn} */ t) => ({
          id: t.id,
          tokens: t.tokens.total,
          tools: t.tools,
          entries: t.entries.length,
          user: t.userPreview,
          assistant: t.assistantPreview,
          compacted: t.compacted || undefined,
        });
        const line = (/** @type {ReturnType<typeof row>} */ x) =>
          `${x.id}  ~${fmt(x.tokens)} tok  ${x.entries} entries${x.tools.length ? `  [${x.tools.join(", ")}]` : ""}  ${JSON.stringify(x.user)}${x.compacted ? "  (compacted by the host)" : ""}`;
        if (p.query === "stats") {
          const totals = breakdownTotals(index);
          /** @type {Record<string, number>} */
          const tools = {};
          for (const t of index.turns) for (const x of t.tools) tools[x] = (tools[x] ?? 0) + 1;
          const details = {
            turns: index.turns.length,
            entries: index.entries,
            preamble: index.preamble.length,
            skipped: index.skipped,
            compactedTurns: index.turns.filter((t) => t.compacted).length,
            tokens: totals,
            tools,
            firstAt: index.turns[0]?.startedAt ?? null,
            lastAt: index.turns.at(-1)?.endedAt ?? null,
          };
          const text = [
            `${details.turns} turns, ${details.entries} entries (${details.preamble} before the first prompt, ${details.skipped} skipped, ${details.compactedTurns} turns compacted by the host)`,
            `tokens ~${fmt(totals.total)}: user ${fmt(totals.user)}, assistant ${fmt(totals.assistant)}, tool results ${fmt(totals.toolResult)}, other ${fmt(totals.other)}; text ${fmt(totals.text)}, thinking ${fmt(totals.thinking)}, tool calls ${fmt(totals.toolCall)}, images ${fmt(totals.image)}`,
            `tools: ${
              Object.entries(tools)
                .sort((a, b) => b[1] - a[1])
                .map(([k, v]) => `${k}×${v}`)
                .join(", ") || "none"
            }`,
            note,
          ]
            .filter(Boolean)
            .join("\n");
          return { text, details };
        }
        let list = index.turns;
        if (p.query === "largest") list = [...list].sort((a, b) => b.tokens.total - a.tokens.total);
        if (p.query === "candidates") {
          const pins = pinsOf(s);
          const folded = new Set(s.state.folded ?? []);
          const from = index.turns.length - Math.max(1, protectedCount(core, s));
          const old = index.turns.slice(0, from).filter((t) => !t.compacted && !folded.has(t.id) && !s.summaries[t.id]);
          const pinned = await pinnedTurnIds(core, s, pins, old);
          list = old.filter((t) => !pinned.has(t.id)).sort((a, b) => b.tokens.total - a.tokens.total);
        }
        const pg = pageOf(list.map(row), p.page ?? 1, p.pageSize ?? 20);
        const text = [`${p.query}: ${pageLine(pg, "turns")}`, ...pg.items.map(line), note].filter(Boolean).join("\n");
        return { text: capText(text).text, details: { query: p.query, page: pg.page, pages: pg.pages, total: pg.total, turns: pg.items } };
      },
    },
    {
      name: "session_index_read_raw",
      description:
        "The original transcript entries of a turn as raw JSON lines, exactly as stored (JSONL bytes, or the host's stored events). Paged by lines; a page cut at 64 KB continues with offset.",
      parameters: obj({ turnId: TURN_ID, page: PAGE, pageSize: pageSize(50), offset: OFFSET }, ["turnId"]),
      async run({ s }, p) {
        await syncNote(s);
        const index = await indexOf(s);
        const t = findTurn(index, p.turnId);
        const raw = await rawLines(s, t);
        const pg = pageOf(raw.lines, p.page ?? 1, p.pageSize ?? 50);
        const body = pg.items.join("\n");
        const cut = capText(body, p.offset ?? 0);
        const bytes = Buffer.byteLength(body, "utf8");
        return {
          text: cut.text,
          details: {
            turnId: t.id,
            source: raw.source,
            entryIds: raw.ids.slice((pg.page - 1) * pg.pageSize, pg.page * pg.pageSize),
            page: pg.page,
            pages: pg.pages,
            lines: pg.total,
            bytes,
            nextOffset: cut.nextOffset,
          },
        };
      },
    },
  ];
}

// Runs inside the temporary project the packaging test installs the tarball into (copied
// there; it resolves "contextfold" from that project's node_modules like any user's code).
// Usage: node library-run.mjs <conversations.json> → prints, per format, what the library
// returned, for tests/package/package.test.mjs to check.
import { readFileSync } from "node:fs";
import { clean, assemble, recover, estimateTokens, openSession, InputError } from "contextfold";

const conversations = JSON.parse(readFileSync(process.argv[2], "utf8"));
const OPTIONS = { preserveRecentMessages: 1, budget: 400 };
const out = {};

/** @import { Format, Message } from "contextfold" */
for (const [format, messages] of /** @type {[Format, Message[]][]} */ (Object.entries(conversations))) {
  const r = {};
  r.clean = await clean(messages);
  r.cleanNamed = await clean(messages, { format });
  r.estimate = await estimateTokens(messages);
  r.assemble = await assemble(messages, OPTIONS);
  const folded = r.assemble.turns.find((t) => t.decision === "stubbed" || t.decision === "summarized");
  r.recovered = folded ? await recover(messages, folded.id) : null;
  const other = format === "openai" ? "anthropic" : "openai";
  r.wrongFormat = await clean(messages, { format: other }).then(
    () => null,
    (e) => ({ name: e.name, isInputError: e instanceof InputError, message: e.message }),
  );
  r.badOption = await assemble(messages, { maxTokens: 10 }).then(
    () => null,
    (e) => ({ isInputError: e instanceof InputError, message: e.message }),
  );
  // A live session, fed the history turn by turn as an agent loop would.
  const session = await openSession({ preserveRecentMessages: 1 });
  const prompt = (m) => m.role === "user" && !(Array.isArray(m.content) && m.content.some((p) => p.type === "tool_result"));
  const userAt = messages.flatMap((m, i) => (prompt(m) ? [i] : []));
  r.sessionSteps = userAt.map((i) => {
    const step = session.assemble(messages.slice(0, i + 1), { budget: OPTIONS.budget });
    return {
      upTo: i + 1,
      messages: step.messages.length,
      estimatedTokens: step.estimatedTokens,
      folded: step.turns.filter((t) => t.decision === "stubbed" || t.decision === "summarized").map((t) => t.id),
    };
  });
  const last = session.assemble(messages, { budget: OPTIONS.budget });
  const lastFolded = last.turns.find((t) => t.decision === "stubbed" || t.decision === "summarized");
  r.sessionRecovered = lastFolded ? session.recover(lastFolded.id) : null;
  r.sessionTopics = session.topics();
  r.sessionFormat = last.format;
  session[Symbol.dispose]();
  try {
    session.assemble(messages);
    r.afterDispose = null;
  } catch (e) {
    r.afterDispose = e.message;
  }
  // A fresh session's first request equals the one-shot assemble.
  const fresh = await openSession({ preserveRecentMessages: 1 });
  r.freshFirst = fresh.assemble(messages, { budget: OPTIONS.budget });
  fresh.free();
  out[format] = r;
}

process.stdout.write(JSON.stringify(out));

// How the tools write messages and numbers for a reader: one message as complete text
// (every part, nothing summarized), numbers with thousands separators.

/**
 * A readable, complete rendering of one message.
 * @param {any} m a message of any shape
 * @param {number} n its number in the listing (1-based)
 */
export function renderMessage(m, n) {
  const role = m?.role ?? "?";
  const head = `--- [${n}] ${role}${m?.toolName ? ` (${m.toolName})` : ""}${m?.isError ? " error" : ""}${m?.customType ? ` ${m.customType}` : ""} ---`;
  const body = [];
  const parts = Array.isArray(m?.content) ? m.content : m?.content == null ? [] : [{ type: "text", text: String(m.content) }];
  for (const p of parts) {
    switch (p?.type) {
      case "text":
        body.push(p.text ?? "");
        break;
      case "thinking":
        body.push(`[thinking] ${p.redacted ? "(redacted)" : (p.thinking ?? "")}`);
        break;
      case "redacted_thinking":
        body.push("[thinking] (redacted)");
        break;
      case "toolCall":
      case "tool_use":
        body.push(`[tool call ${p.name} id=${p.id}] ${JSON.stringify(p.arguments ?? p.input ?? {})}`);
        break;
      case "tool_result":
        body.push(`[tool result for ${p.tool_use_id}] ${typeof p.content === "string" ? p.content : JSON.stringify(p.content)}`);
        break;
      case "image":
        body.push(`[image ${p.mimeType ?? p.source?.media_type ?? ""}, ${String(p.data ?? p.source?.data ?? "").length} base64 characters]`);
        break;
      default:
        body.push(JSON.stringify(p));
    }
  }
  if (m?.reasoning_content) body.push(`[reasoning] ${m.reasoning_content}`);
  for (const c of m?.tool_calls ?? []) body.push(`[tool call ${c?.function?.name} id=${c?.id}] ${c?.function?.arguments ?? ""}`);
  if (typeof m?.summary === "string") body.push(m.summary);
  if (typeof m?.command === "string") body.push(`$ ${m.command}\n${m.output ?? ""}`);
  return `${head}\n${body.join("\n")}`;
}

/** A number with thousands separators (en-US); anything else as a string. */
export const fmt = (/** @type {unknown} */ n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));

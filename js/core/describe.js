// One-line, human-readable descriptions of messages for the CLI and logs.

const PREVIEW = 60;

/** @param {any} p a message part */
function partLabel(p) {
  switch (p?.type) {
    case "text":
      return null;
    case "thinking":
      return p.redacted ? "thinking(redacted)" : "thinking";
    case "redacted_thinking":
      return "thinking(redacted)";
    case "toolCall":
    case "tool_use":
      return `call:${p.name ?? "?"}`;
    case "tool_result":
      return "result";
    case "image":
      return "image";
    default:
      return p?.type ?? "?";
  }
}

/**
 * @param {any} m
 * @returns {string}
 */
function textOf(m) {
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content))
    return m.content
      .filter((/** @type {any} */ p) => p?.type === "text")
      .map((/** @type {any} */ p) => p.text)
      .join(" ");
  return m.summary ?? m.command ?? "";
}

/**
 * `role [parts] "preview…"`
 * @param {any} m a message of any shape
 */
export function describeMessage(m) {
  const role = m?.role ?? "?";
  const parts = Array.isArray(m?.content) ? m.content.map(partLabel).filter(Boolean) : [];
  for (const c of m?.tool_calls ?? []) parts.push(`call:${c?.function?.name ?? "?"}`);
  if (m?.reasoning_content) parts.push("reasoning_content");
  let text = textOf(m ?? {})
    .replace(/\s+/g, " ")
    .trim();
  if (text.length > PREVIEW) text = text.slice(0, PREVIEW - 1) + "…";
  const tag = role === "toolResult" ? `toolResult(${m.toolName ?? "?"})` : role;
  return `${tag.padEnd(12)} ${parts.length ? `[${parts.join(", ")}] ` : ""}${text ? JSON.stringify(text) : ""}`.trimEnd();
}

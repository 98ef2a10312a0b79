// The two ways a tool fails: a ToolError says what the caller sent wrong and what to send
// instead (the message goes to the agent as it is); anything else is a failure of the tool,
// reported by its first line.

export class ToolError extends Error {}

/**
 * The first line of an error's message.
 * @param {any} err
 */
export function oneLine(err) {
  return String(err?.message ?? err).split("\n")[0];
}

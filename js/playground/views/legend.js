// What the colours and chips mean: the five decisions with their help text, and one hue per
// topic (in order of first appearance, spread by the golden angle).

/** @type {import("../../core/types.js").Decision[]} */
export const DECISIONS = ["kept", "cleaned", "truncated", "summarized", "stubbed"];
/** @type {Record<string, string>} */
export const DECISION_HELP = {
  kept: "sent as it was",
  cleaned: "completed-turn cleaning: thinking and finished tool output removed",
  truncated: "a huge tool result cut to head and tail",
  summarized: "replaced by its summary",
  stubbed: "folded to a one-line stub",
};

/** @type {Map<string, number>} */
let hueMap = new Map();

/**
 * Starts a new colouring: the topics get hues in the order given.
 * @param {string[]} topics
 */
export function resetHues(topics) {
  hueMap = new Map();
  for (const t of topics) hueOf(t);
}

/**
 * The hue of a topic (a fixed blue for turns without one).
 * @param {string | null | undefined} topic
 * @returns {number}
 */
export function hueOf(topic) {
  if (!topic) return 220;
  if (!hueMap.has(topic)) hueMap.set(topic, Math.round((210 + hueMap.size * 137.508) % 360));
  return /** @type {number} */ (hueMap.get(topic));
}

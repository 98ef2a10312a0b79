// The same conversation in the three message shapes the library reads: a first turn with
// thinking (or reasoning_content), a tool call and its result; six question-and-answer turns
// on other subjects; and the live user message. Long enough that a small budget folds turns.

const SUBJECTS = [
  ["sourdough", "Feed the levain twice a day; it peaks four to six hours after a feed at 24 °C, and the dough wants 75 % hydration."],
  ["dolomites", "The Alta Via 1 runs from Lago di Braies to Belluno in ten to twelve days, with huts every four to six hours."],
  ["espresso", "Grind finer when the shot runs under 25 seconds; 18 g in, 36 g out, at 93 °C is the usual start."],
  ["bicycles", "A chain wears out after 3,000 to 5,000 km; check it with a gauge at 0.5 % stretch before it eats the cassette."],
  ["tomatoes", "Pinch the side shoots of cordon tomatoes weekly and water at the root; blossom end rot means uneven watering."],
  ["telescopes", "A 200 mm Dobsonian shows Saturn's rings and the Cassini division on a steady night at 150x."],
];

const pad = (text, n = 6) => Array.from({ length: n }, (_, i) => `${text} (${i + 1})`).join(" ");

/** OpenAI chat messages. */
export function openai() {
  return [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: "What is in notes.txt?" },
    {
      role: "assistant",
      content: null,
      reasoning_content: "The user wants the file; I will read it.",
      tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "N".repeat(3000) },
    { role: "assistant", content: "notes.txt holds 3,000 letters N.", reasoning_content: "It is all N." },
    ...SUBJECTS.flatMap(([s, a]) => [
      { role: "user", content: `Tell me about ${s}.` },
      { role: "assistant", content: pad(a), reasoning_content: `Thinking about ${s}.` },
    ]),
    { role: "user", content: "And how long is the Alta Via 1?" },
  ];
}

/** Anthropic Messages API messages. */
export function anthropic() {
  return [
    { role: "user", content: "What is in notes.txt?" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user wants the file; I will read it.", signature: "sig-1" },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "notes.txt" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "N".repeat(3000) }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "It is all N.", signature: "sig-2" },
        { type: "text", text: "notes.txt holds 3,000 letters N." },
      ],
    },
    ...SUBJECTS.flatMap(([s, a], i) => [
      { role: "user", content: `Tell me about ${s}.` },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: `Thinking about ${s}.`, signature: `sig-s${i}` },
          { type: "text", text: pad(a) },
        ],
      },
    ]),
    { role: "user", content: "And how long is the Alta Via 1?" },
  ];
}

/** OpenClaw AgentMessages. */
export function openclaw() {
  let t = 1_764_000_000_000;
  const at = () => (t += 1000);
  const asst = (content, extra = {}) => ({
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude",
    stopReason: "stop",
    timestamp: at(),
    ...extra,
  });
  return [
    { role: "user", content: "What is in notes.txt?", timestamp: at() },
    asst(
      [
        { type: "thinking", thinking: "The user wants the file; I will read it.", thinkingSignature: "sig-1" },
        { type: "toolCall", id: "call_1", name: "read_file", arguments: { path: "notes.txt" } },
      ],
      { stopReason: "toolUse" },
    ),
    { role: "toolResult", toolCallId: "call_1", toolName: "read_file", content: [{ type: "text", text: "N".repeat(3000) }], isError: false, timestamp: at() },
    asst([
      { type: "thinking", thinking: "It is all N.", thinkingSignature: "sig-2" },
      { type: "text", text: "notes.txt holds 3,000 letters N." },
    ]),
    ...SUBJECTS.flatMap(([s, a], i) => [
      { role: "user", content: [{ type: "text", text: `Tell me about ${s}.` }], timestamp: at() },
      asst([
        { type: "thinking", thinking: `Thinking about ${s}.`, thinkingSignature: `sig-s${i}` },
        { type: "text", text: pad(a) },
      ]),
    ]),
    { role: "user", content: [{ type: "text", text: "And how long is the Alta Via 1?" }], timestamp: at() },
  ];
}

export const CONVERSATIONS = { openai, anthropic, openclaw };

// Types of the contextfold library, shared by the Node entry (node.d.ts) and the browser
// entry (browser.d.ts). Written by hand next to js/lib/*.js; the engine options mirror the
// plugin manifest's configSchema (tests/js/library.test.mjs compares the keys).
/// <reference lib="esnext.disposable" />

// ---------------------------------------------------------------------------------------------
// Messages: the three wire shapes the engine reads. Fields it does not know pass through
// untouched, hence the index signatures.

/** A part of an OpenAI chat message's content. */
export type OpenAIContentPart =
  | { type: "text"; text: string; [field: string]: unknown }
  | { type: "image_url"; image_url: { url: string; detail?: string }; [field: string]: unknown }
  | { type: string; [field: string]: unknown };

/** An OpenAI chat completions message. */
export interface OpenAIMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool" | (string & {});
  content?: string | OpenAIContentPart[] | null;
  /** Assistant tool calls. */
  tool_calls?: { id: string; type?: "function"; function: { name: string; arguments: string } }[];
  /** The call a `tool` message answers. */
  tool_call_id?: string;
  /** Reasoning text of OpenAI-compatible providers (DeepSeek, Kimi, …). */
  reasoning_content?: string | null;
  name?: string;
  [field: string]: unknown;
}

/** A block of an Anthropic message's content. */
export type AnthropicBlock =
  | { type: "text"; text: string; [field: string]: unknown }
  | { type: "thinking"; thinking: string; signature?: string; [field: string]: unknown }
  | { type: "redacted_thinking"; data: string; [field: string]: unknown }
  | { type: "tool_use"; id: string; name: string; input: unknown; [field: string]: unknown }
  | { type: "tool_result"; tool_use_id: string; content?: string | AnthropicBlock[]; is_error?: boolean; [field: string]: unknown }
  | { type: "image"; source: unknown; [field: string]: unknown }
  | { type: string; [field: string]: unknown };

/** An Anthropic Messages API message (the request's `system` stays outside the array). */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
  [field: string]: unknown;
}

/** A content part of an OpenClaw AgentMessage. */
export type AgentContentPart =
  | { type: "text"; text: string; textSignature?: string; [field: string]: unknown }
  | { type: "thinking"; thinking: string; thinkingSignature?: string; redacted?: boolean; [field: string]: unknown }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown>; [field: string]: unknown }
  | { type: "image"; data: string; mimeType: string; [field: string]: unknown };

/** An OpenClaw AgentMessage (what the host hands a context engine). */
export type AgentMessage =
  | { role: "user"; content: string | AgentContentPart[]; timestamp: number; [field: string]: unknown }
  | { role: "assistant"; content: AgentContentPart[]; timestamp: number; provider?: string; model?: string; api?: string; stopReason?: string; [field: string]: unknown }
  | { role: "toolResult"; toolCallId: string; toolName: string; content: AgentContentPart[]; isError: boolean; timestamp: number; [field: string]: unknown }
  | { role: "custom"; customType: string; content: string | AgentContentPart[]; display: boolean; timestamp: number; [field: string]: unknown }
  | { role: "compactionSummary"; summary: string; tokensBefore: number; timestamp: number | string; [field: string]: unknown }
  | { role: "branchSummary"; summary: string; fromId: string; timestamp: number; [field: string]: unknown }
  | { role: "bashExecution"; command: string; output: string; timestamp: number; [field: string]: unknown };

/** Any message the engine reads. */
export type Message = OpenAIMessage | AnthropicMessage | AgentMessage;

/**
 * What the one-shot calls take: an array of messages, or a transcript or request body as
 * text or bytes (an OpenClaw session JSONL, a Claude Code transcript, a JSON array of
 * messages, an OpenAI or Anthropic request body), read as `contextfold <command> <file>` reads
 * a file.
 */
export type Input<M extends Message = Message> = readonly M[] | string | Uint8Array;

/**
 * The shape of the input. For an array: `"auto"` (detected), `"openai"`, `"anthropic"` or
 * `"openclaw"` (checked: a message of another shape is an InputError naming it), or
 * `"messages"` (any shape, not checked). For text or bytes also `"claude-code"`, and then
 * `"openai"` / `"anthropic"` mean a request body.
 */
export type Format = "auto" | "openai" | "anthropic" | "openclaw" | "messages" | "claude-code";

/** The shape found: one of the three, or `"messages"` when no message tells them apart. */
export type DetectedFormat = "openai" | "anthropic" | "openclaw" | "messages" | "claude-code";

// ---------------------------------------------------------------------------------------------
// Options: the plugin's config keys (plugins.entries.contextfold.config), camelCase.

/** The engine options: the plugin's config keys and defaults. */
export interface EngineOptions {
  /** `"fold"`: clean completed turns, then fold old turns to fit the budget. `"clean"`: only clean completed turns. Default `"fold"`. */
  mode?: "fold" | "clean";
  /** Remove thinking blocks from assistant messages of completed turns. Default true. */
  cleanThinking?: boolean;
  /** Clear the top-level reasoning_content field (OpenAI-compatible format) of completed turns. Default true. */
  clearReasoningContent?: boolean;
  /** Mode clean: drop completed tool results of completed turns, together with the tool calls they answer. Default true. (Mode fold keeps them while the budget allows and masks them under pressure.) */
  dropToolResults?: boolean;
  /** Mode clean: drop assistant messages of completed turns that only carried tool calls. Default true. */
  dropToolCallMessages?: boolean;
  /** Leave this many completed turns before the current one uncleaned (0–10000). Default 0. */
  keepRecentTurns?: number;
  /** Token budget when the call passes none (≥ 256). Default 128000. */
  maxTokens?: number;
  /** The high-water mark: share of the budget above which the request is planned anew, in (0, 1]; below it a request only appends. Default 0.8. */
  summarizeThreshold?: number;
  /** Never fold or prune system messages and the preamble (compaction summaries). Default true. */
  preserveSystemMessages?: boolean;
  /** Number of most recent turns never folded (0–10000). Default 5. */
  preserveRecentMessages?: number;
  /** Adjacent-turn similarity below which a topic boundary is placed (0–1). Default 0.05. */
  embeddingSimilarityThreshold?: number;
  /** Shortest topic, in turns (1–1000). Default 2. */
  minTurnsPerTopic?: number;
  /** Tool results longer than this (characters, ≥ 200) are cut to head + tail under budget pressure. Default 40000. */
  toolResultTruncateChars?: number;
  /** Largest turns queued for a summary per request (0–100). Default 3. */
  maxCompactionsPerCycle?: number;
  /** Similarity between the upcoming prompt and a folded topic above which that topic is brought back (0–1). Default 0.2. */
  promptRelevanceThreshold?: number;
  /** Stub turns of other topics even when the budget would fit them. Default false. */
  foldOtherTopics?: boolean;
  /** Share of the budget a new plan folds down to (the low-water mark, (0, 1], at most summarizeThreshold). Default 0.6. */
  foldTarget?: number;
  /** The plugin's state folder. No effect in the library, which keeps no files. */
  stateDir?: string;
  /** The plugin's summary model. No effect in the library, which calls no LLM. */
  summaryModel?: string;
  /** The plugin's background LLM summaries. No effect in the library (summaries are extractive). */
  autoSummarize?: boolean;
  /** The plugin's LLM topic labels. No effect in the library (topics are lexical). */
  enableLlmConfirmation?: boolean;
  /** The plugin's LLM timeout. No effect in the library. */
  llmTimeoutMs?: number;
  /** The plugin's LLM call budget. No effect in the library. */
  llmMaxCallsPerSession?: number;
  /** The plugin's LLM token budget. No effect in the library. */
  llmMaxTokensPerSession?: number;
}

export interface CleanOptions extends EngineOptions {
  format?: Format;
  /**
   * The upcoming prompt is not in the messages (as OpenClaw passes a history), so every
   * message belongs to a finished turn. Default false: the last user message is the live turn.
   */
  historyComplete?: boolean;
}

export interface AssembleRequest {
  /** The upcoming user message: topics it refers to come back, and every turn in the messages is finished. */
  prompt?: string;
  /** The token budget (default: `maxTokens`). */
  budget?: number;
}

export interface AssembleOptions extends EngineOptions, AssembleRequest {
  format?: Format;
}

export interface SessionOptions extends EngineOptions {
  /** The shape every history given to the session must have (default `"auto"`: any, detected per call). */
  format?: "auto" | "openai" | "anthropic" | "openclaw" | "messages";
}

// ---------------------------------------------------------------------------------------------
// Results.

/** The cleaner's totals (the plugin's log line shows the first eight). */
export interface CleanStats {
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Top-level reasoning_content fields cleared. */
  cleanedRC: number;
  /** Thinking blocks removed. */
  cleanedThink: number;
  /** Completed tool results dropped. */
  dropTool: number;
  /** Assistant messages dropped that only carried tool calls. */
  dropAsstTC: number;
  droppedCalls: number;
  droppedEmpty: number;
  mergedText: number;
  /** Position of the first message of the live turn (left as it is). */
  frontier: number;
}

export interface AssembleStats {
  budget: number;
  turns: number;
  kept: number;
  cleaned: number;
  truncated: number;
  summarized: number;
  stubbed: number;
  clean: CleanStats;
  /** The protected recent turns alone exceed the budget. */
  overBudget: boolean;
}

/** Why one turn was sent as it was. */
export interface TurnExplanation {
  /** The turn's id (its user message's transcript entry id, or content hash `h…`): what `recover` takes. */
  id: string;
  /** The label of the turn's topic. */
  topic: string;
  decision: "kept" | "cleaned" | "truncated" | "summarized" | "stubbed";
  reason: string;
  tokensBefore: number;
  tokensAfter: number;
  /** One of the recent turns that are never folded. */
  protected: boolean;
  /** Positions `[start, end)` of the turn's messages in the input array. */
  range: [number, number];
}

interface Notes {
  /** The input's shape. */
  format: DetectedFormat;
  /** Set when the validity gate refused a plan and a safer one was sent instead. */
  fallback?: string;
  /** What reading a transcript skipped or repaired (a truncated last line, …). */
  warnings?: string[];
}

export interface CleanResult<M extends Message = Message> extends Notes {
  /** What to send: the caller's own objects where unchanged, cleaned copies otherwise. */
  messages: M[];
  stats: CleanStats;
}

export interface AssembleResult<M extends Message = Message> extends Notes {
  /** What to send: the caller's own objects where unchanged; stubs, summaries and cleaned copies otherwise. */
  messages: M[];
  estimatedTokens: number;
  turns: TurnExplanation[];
  stats: AssembleStats;
}

export interface RecoverResult<M extends Message = Message> {
  turnId: string;
  /** The turn's original messages, as they are in the input. */
  messages: M[];
  /** For a transcript input: each message's line exactly as in the input, newline included (bytes for a byte input). */
  lines?: string[] | Uint8Array[];
}

export interface Topic {
  id: number;
  label: string;
  turnIds: string[];
}

/**
 * A live session for a caller that assembles every turn of one conversation: each call
 * indexes only what was added to the history since the last one, and fold decisions made for
 * the budget stick. Its methods are synchronous; it lives in memory until `free()` (or the end
 * of a `using` block).
 */
export interface Session {
  /** The shape every history must have (`"auto"`: any). */
  readonly format: string;
  /** Plans the request for the whole history `messages`. */
  assemble<M extends Message>(messages: readonly M[], request?: AssembleRequest): AssembleResult<M>;
  /** The original messages of a turn of the last assembled history. */
  recover(turnId: string): RecoverResult;
  /** The topics of the history so far. */
  topics(): Topic[];
  /** Releases the session's memory in the engine; it cannot be used afterwards. */
  free(): void;
  [Symbol.dispose](): void;
}

/** Bad input or options: the message says what and where. */
export declare class InputError extends Error {
  name: "InputError";
}

/** The API both entries export. */
export interface Api {
  /** Cleans completed turns (thinking, finished tool output); the live turn stays as it is. */
  clean<M extends Message>(input: Input<M>, options?: CleanOptions): Promise<CleanResult<M>>;
  /** Cleans and folds old turns to fit the budget: what the model should see, and why. */
  assemble<M extends Message>(input: Input<M>, options?: AssembleOptions): Promise<AssembleResult<M>>;
  /** The original messages (and transcript lines) of a turn, by the id `assemble` gives it. */
  recover<M extends Message>(input: Input<M>, turnId: string, options?: { format?: Format }): Promise<RecoverResult<M>>;
  /** The engine's token estimate of the messages (what budgets are enforced on). */
  estimateTokens(input: Input, options?: { format?: Format }): Promise<number>;
  /** Opens a live session. */
  openSession(options?: SessionOptions): Promise<Session>;
}

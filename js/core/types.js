// The shapes of what the wasm core returns, as JS sees them (camelCase), for the type check
// of the JS layer. Types only: this module exports no values. The core's generated
// declarations (pkg-template/wasm/contextfold.d.ts) are meant to describe the same shapes;
// once they do, these typedefs can point at them.

/**
 * A message as the host sends it (OpenClaw AgentMessage, OpenAI chat or Anthropic). The
 * engine reads the fields it knows and passes every other field through.
 * @typedef {Record<string, any>} Message
 */

/**
 * The cleaner's counts for one request.
 * @typedef {object} CleanStats
 * @property {number} messagesBefore
 * @property {number} messagesAfter
 * @property {number} tokensBefore
 * @property {number} tokensAfter
 * @property {number} cleanedRC     top-level reasoning_content fields cleared
 * @property {number} cleanedThink  thinking blocks removed
 * @property {number} dropTool      completed tool results dropped
 * @property {number} dropAsstTC    assistant messages that only carried tool calls, dropped
 * @property {number} droppedCalls
 * @property {number} droppedEmpty
 * @property {number} mergedText
 * @property {number} frontier      index of the first message of the live turn
 */

/**
 * A plan step: keep input message `source`, or use `message` in its place (`source` then
 * names the input message it replaces, when there is one).
 * @typedef {{source: number, message?: undefined} | {source?: number, message: Message}} Step
 */

/**
 * `clean()`: the plan and the counts; `fallback` says why the host's messages were kept.
 * @typedef {object} CleanResult
 * @property {Step[]} steps
 * @property {CleanStats} stats
 * @property {string} [fallback]
 */

/** @typedef {"kept" | "cleaned" | "truncated" | "summarized" | "stubbed"} Decision */

/**
 * Why one turn was sent as it was.
 * @typedef {object} TurnExplanation
 * @property {string} id
 * @property {string} topic
 * @property {Decision} decision
 * @property {string} reason
 * @property {number} tokensBefore
 * @property {number} tokensAfter
 * @property {boolean} protected
 * @property {[number, number]} range  the turn's input messages, [first, end)
 */

/**
 * The budgeted assemble's figures.
 * @typedef {object} AssembleStats
 * @property {number} budget
 * @property {number} turns
 * @property {number} kept
 * @property {number} cleaned
 * @property {number} truncated
 * @property {number} summarized
 * @property {number} stubbed
 * @property {CleanStats} clean
 * @property {boolean} overBudget  the protected turns alone exceed the budget
 */

/**
 * `assembleOnce()` and a live session's `assemble()`.
 * @typedef {object} AssembleResult
 * @property {Step[]} steps
 * @property {number} estimatedTokens
 * @property {TurnExplanation[]} turns
 * @property {AssembleStats} stats
 * @property {string[]} summarize  turn ids worth a background summary
 * @property {string[]} folded     turn ids the budget folded (sticky from now on)
 * @property {string} [fallback]
 */

/**
 * A live session's `assemble()`: the turns this plan folded that no earlier plan of the
 * session had instead of them all (the whole sticky set is the session's `folded()`).
 * @typedef {Omit<AssembleResult, "folded"> & {newlyFolded: string[]}} LiveAssembleResult
 */

/**
 * Tokens of a turn by role and by part type.
 * @typedef {object} TokenBreakdown
 * @property {number} total
 * @property {number} user
 * @property {number} assistant
 * @property {number} toolResult
 * @property {number} other
 * @property {number} text
 * @property {number} thinking
 * @property {number} toolCall
 * @property {number} image
 */

/**
 * A transcript entry of an indexed turn: its byte range in a JSONL transcript, or its
 * sequence number in the host's store.
 * @typedef {object} EntryRef
 * @property {string} id
 * @property {string} role
 * @property {[number, number]} [range]
 * @property {number} [seq]
 */

/**
 * One turn of the session index.
 * @typedef {object} IndexTurn
 * @property {string} id   the transcript entry id of its user message (a content hash when there is none)
 * @property {string} key  its content key
 * @property {EntryRef[]} entries
 * @property {TokenBreakdown} tokens
 * @property {string[]} tools
 * @property {string} userPreview
 * @property {string} assistantPreview
 * @property {unknown} [startedAt]
 * @property {unknown} [endedAt]
 * @property {boolean} compacted  compacted by the host
 * @property {string} topicUser
 * @property {string} topicAssistant
 */

/**
 * The session index: the transcript's active branch as turns.
 * @typedef {object} SessionIndex
 * @property {number} version
 * @property {string | null} tip
 * @property {number} entries
 * @property {EntryRef[]} preamble
 * @property {IndexTurn[]} turns
 * @property {string} [firstKeptEntryId]
 * @property {number} skipped
 */

/**
 * What an index update did.
 * @typedef {object} IndexUpdate
 * @property {number} turns
 * @property {number} newTurns
 * @property {"branchSwitch" | "unknownParent"} [rewrite]
 */

/**
 * A topic: a run of turns about one thing.
 * @typedef {object} Topic
 * @property {number} id
 * @property {number} firstTurn
 * @property {number} lastTurn
 * @property {string} label
 * @property {string[]} terms
 */

/**
 * @typedef {object} Topics
 * @property {Topic[]} topics
 * @property {number[]} topicOfTurn
 */

/**
 * Pins: turns, tools and phrases that stay in full.
 * @typedef {object} Pins
 * @property {string[]} turnIds
 * @property {string[]} tools
 * @property {string[]} patterns
 */

/** @typedef {"fifo" | "sliding-window" | "importance"} Strategy */

/**
 * @typedef {object} PrunedUnit
 * @property {string[]} turnIds
 * @property {[number, number]} range
 * @property {number} tokens
 * @property {number} [score]
 */

/**
 * `prune()`: the turns chosen and what they cost.
 * @typedef {object} PruneResult
 * @property {Strategy} strategy
 * @property {PrunedUnit[]} pruned
 * @property {string[]} turnIds
 * @property {number[]} messages
 * @property {Step[]} steps
 * @property {number} messagesBefore
 * @property {number} messagesAfter
 * @property {number} tokensBefore
 * @property {number} tokensAfter
 * @property {boolean} targetMet
 * @property {{protected: number, pinned: number, excluded: number, gate: number}} skipped
 */

export {};

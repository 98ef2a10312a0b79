// What a replayed request costs with each provider's prompt cache: the price presets
// (USD per million input tokens) and the rule each provider bills cached input by. Pure.
//
// Rates as published in 2026 (each provider's pricing page; check it before relying on the
// figures, they change):
//   anthropic  Claude Sonnet 5: input $2.00, 5-minute cache write $2.50 (1.25× input),
//              cache read $0.20 (0.1×)                  platform.claude.com, models/sonnet-5
//   openai     GPT-5.5: input $5.00, cached input $0.50 (0.1×); cache writes cost nothing
//              extra before the GPT-5.6 family          developers.openai.com, pricing and prompt caching
//   deepseek   deepseek-flash (DeepSeek-V4.1-Flash), peak hours: cache miss $0.30, cache hit
//              $0.006 (0.02×); off-peak rates are half of both
//                                                       api-docs.deepseek.com, quick_start/pricing
//
// The rules:
//   breakpoint (Anthropic)  caching is explicit: the client marks a breakpoint at the end of
//       the messages, and the provider writes the whole prefix up to it into the cache. A
//       later request reads it only if it repeats that prefix exactly, so a request is read
//       from the cache as far as the previous request's end when it starts with the whole
//       previous request, and not at all otherwise; everything else up to its own
//       breakpoint is written (at the write rate).
//   prefix (OpenAI, DeepSeek)  caching is automatic: the longest prefix this request shares
//       with the previous one is billed at the cache-read rate, the rest at the input rate;
//       writing costs nothing extra.
// Only the messages the engine decides are priced: the system prompt and tool schemas come
// before them in a real request and are the same for every method (they also put every
// request over the providers' minimum cacheable length, 1,024 tokens and more, so that
// minimum is not modelled), and the answer is the same too. Requests are taken to come
// within the cache's lifetime (5 minutes and more) of each other.

/** @typedef {"breakpoint" | "prefix"} CacheRule */
/**
 * A provider's rates (USD per million tokens; `cacheWrite` null: writes cost the input rate).
 * @typedef {{provider: string, model: string, input: number, cacheWrite: number | null, cacheRead: number, rule: CacheRule}} PricePreset
 */
/** Tokens read from the cache, written to it, billed as plain input. @typedef {{read: number, written: number, input: number}} BilledTokens */
/** @typedef {keyof typeof PRICE_PRESETS} PriceName */

/** The presets, by the name `--price` takes. Rates in USD per million tokens. */
export const PRICE_PRESETS = Object.freeze({
  anthropic: Object.freeze({ provider: "Anthropic", model: "Claude Sonnet 5", input: 2.0, cacheWrite: 2.5, cacheRead: 0.2, rule: "breakpoint" }),
  openai: Object.freeze({ provider: "OpenAI", model: "GPT-5.5", input: 5.0, cacheWrite: null, cacheRead: 0.5, rule: "prefix" }),
  deepseek: Object.freeze({
    provider: "DeepSeek",
    model: "deepseek-flash (DeepSeek-V4.1-Flash), peak hours",
    input: 0.3,
    cacheWrite: null,
    cacheRead: 0.006,
    rule: "prefix",
  }),
});

/** The preset names (`Object.keys` types them as strings). */
export const PRICE_NAMES = Object.freeze(/** @type {PriceName[]} */ (Object.keys(PRICE_PRESETS)));

/** What each rule says, for reports. */
export const PRICE_RULES = Object.freeze({
  breakpoint:
    "explicit breakpoint at the end of the messages: the previous request's prefix is read only when repeated whole; the rest up to the breakpoint is written",
  prefix: "automatic: the prefix shared with the previous request is read from the cache, the rest is billed as input; writes cost nothing extra",
});

/**
 * How one request's tokens are billed under a rule, from its comparison with the previous
 * request (`compareRequests` in cache.js).
 * @param {CacheRule} rule
 * @param {{tokens: number, previousTokens: number, commonTokens: number, appendOnly: boolean}} row
 * @returns {BilledTokens} tokens read from the cache, written to it, billed as plain input
 */
export function billedTokens(rule, row) {
  if (rule === "breakpoint") {
    const read = row.appendOnly ? row.previousTokens : 0;
    return { read, written: row.tokens - read, input: 0 };
  }
  if (rule === "prefix") return { read: row.commonTokens, written: 0, input: row.tokens - row.commonTokens };
  throw new Error(`unknown cache rule ${rule}`);
}

/**
 * USD of billed tokens at a preset's rates.
 * @param {PricePreset} preset
 * @param {BilledTokens} billed
 */
export function costOf(preset, { read, written, input }) {
  return (input * preset.input + written * (preset.cacheWrite ?? preset.input) + read * preset.cacheRead) / 1e6;
}

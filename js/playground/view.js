// How the playground shows messages: every message shape the engine accepts (OpenClaw,
// OpenAI, Anthropic) as a role and a list of parts; and the page's small DOM and number
// helpers. Pure DOM building, no state.

/**
 * What an element can hold: nodes, text, numbers, and lists of them (null, undefined and
 * false are left out).
 * @typedef {Node | string | number | boolean | null | undefined | Child[]} Child
 */
/** One part of a message as the page shows it. @typedef {{type: string, title?: string, text: string}} Part */

/**
 * The page element with this id (index.html has every id the code asks for).
 * @param {string} id
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * A form field of the page (an input, select or textarea) by id: its value, checked state
 * and placeholder.
 * @param {string} id
 */
export const field = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * The form field an input or change event came from.
 * @param {Event} e
 */
export const fieldOf = (e) => /** @type {HTMLInputElement} */ (e.target);

/** A number with thousands separators. */
export const fmt = (/** @type {unknown} */ n) => Number(n).toLocaleString("en");
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 2 });
/** Exact below 100,000, compact above (1.31M): for the cards. */
export const short = (/** @type {number} */ n) => (Math.abs(n) < 100000 ? fmt(n) : compact.format(n));

/**
 * Creates an element: `h("div", {class: "x", onclick}, child, "text", …)`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "hidden") el.hidden = Boolean(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const c of /** @type {any[]} */ (children).flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** @type {Record<string, string>} */
const ROLE_LABELS = {
  toolResult: "tool result",
  tool: "tool result",
  compactionSummary: "compaction summary",
  branchSummary: "branch summary",
  bashExecution: "shell",
};

/**
 * The role a message is shown under.
 * @param {any} m
 * @returns {string}
 */
export function roleOf(m) {
  return typeof m?.role === "string" ? m.role : "unknown";
}

/** @param {unknown} v */
function json(v) {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  try {
    return JSON.stringify(v ?? {}, null, 2);
  } catch {
    return String(v);
  }
}

/**
 * @param {unknown} content
 * @returns {string}
 */
function textOfBlocks(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((/** @type {any} */ b) => (b?.type === "text" ? b.text : b?.type === "image" ? "[image]" : json(b))).join("\n");
  return content == null ? "" : json(content);
}

/**
 * The parts of a message, in order: `{type, title?, text}` where `type` is one of
 * text | thinking | reasoning | toolCall | toolResult | image | data.
 * @param {any} m
 * @returns {Part[]}
 */
export function partsOf(m) {
  /** @type {Part[]} */
  const parts = [];
  if (!m || typeof m !== "object") return [{ type: "data", text: json(m) }];
  if (typeof m.reasoning_content === "string" && m.reasoning_content) parts.push({ type: "reasoning", title: "reasoning_content", text: m.reasoning_content });
  const c = m.content;
  if (typeof c === "string") parts.push({ type: "text", text: c });
  else if (Array.isArray(c)) {
    for (const p of c) {
      switch (p?.type) {
        case "text":
          parts.push({ type: "text", text: String(p.text ?? "") });
          break;
        case "thinking":
          parts.push({ type: "thinking", title: p.redacted ? "thinking (redacted)" : "thinking", text: String(p.thinking ?? "") });
          break;
        case "redacted_thinking":
          parts.push({ type: "thinking", title: "thinking (redacted)", text: "" });
          break;
        case "toolCall":
          parts.push({ type: "toolCall", title: `call ${p.name ?? "?"}`, text: json(p.arguments) });
          break;
        case "tool_use":
          parts.push({ type: "toolCall", title: `call ${p.name ?? "?"}`, text: json(p.input) });
          break;
        case "tool_result":
          parts.push({ type: "toolResult", title: `result${p.is_error ? " (error)" : ""}`, text: textOfBlocks(p.content) });
          break;
        case "image":
          parts.push({ type: "image", title: "image", text: p.mimeType ?? p.source?.media_type ?? "" });
          break;
        default:
          parts.push({ type: "data", title: String(p?.type ?? "part"), text: json(p) });
      }
    }
  }
  for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    parts.push({ type: "toolCall", title: `call ${tc?.function?.name ?? "?"}`, text: json(tc?.function?.arguments) });
  }
  if (m.role === "compactionSummary" || m.role === "branchSummary") {
    if (typeof m.summary === "string") parts.push({ type: "text", text: m.summary });
  } else if (m.role === "bashExecution") {
    parts.push({ type: "toolCall", title: "command", text: String(m.command ?? "") });
    if (m.output != null) parts.push({ type: "toolResult", title: "output", text: String(m.output) });
  } else if (c === undefined && parts.length === 0) {
    parts.push({ type: "data", title: "message", text: json(m) });
  }
  return parts;
}

/**
 * A one-word name of a message for headers: `tool result · read`.
 * @param {any} m
 */
function roleLabel(m) {
  const role = roleOf(m);
  const base = ROLE_LABELS[role] ?? role;
  const tool = m?.toolName ?? m?.name;
  return (role === "toolResult" || role === "tool") && tool ? `${base} · ${tool}` : base;
}

/**
 * Renders one message as an article.
 * @param {any} m
 * @param {{cls?: string, index?: number, meta?: Node[], badges?: {text: string, kind: string, title?: string}[], footer?: Node | null}} o
 */
export function renderMessage(m, o = {}) {
  const role = roleOf(m);
  const parts = partsOf(m);
  const badges = (o.badges ?? []).map((b) => h("span", { class: `badge badge-${b.kind}`, title: b.title }, b.text));
  const head = h(
    "header",
    { class: "msg-head" },
    o.index !== undefined ? h("span", { class: "msg-index" }, `#${o.index}`) : null,
    h("span", { class: `role role-${role}` }, roleLabel(m)),
    m?.isError === true ? h("span", { class: "badge badge-error" }, "error") : null,
    badges,
    h("span", { class: "msg-meta" }, o.meta ?? []),
  );
  const body = parts.map((p) => renderPart(p));
  return h("article", { class: `msg msg-${role} ${o.cls ?? ""}`.trim(), dataset: { role } }, head, body, o.footer ?? null);
}

/** @param {Part} p */
function renderPart(p) {
  if (p.type === "thinking" || p.type === "reasoning") {
    return h(
      "details",
      { class: `part part-${p.type}`, dataset: { type: p.type } },
      h("summary", {}, p.title, p.text ? h("span", { class: "part-size" }, ` · ${p.text.length.toLocaleString("en")} chars`) : null),
      h("div", { class: "part-body" }, p.text),
    );
  }
  if (p.type === "text") return h("div", { class: "part part-text", dataset: { type: "text" } }, h("div", { class: "part-body" }, p.text));
  return h(
    "div",
    { class: `part part-${p.type}`, dataset: { type: p.type } },
    h("div", { class: "part-title" }, p.title ?? p.type),
    p.text ? h("pre", { class: "part-body" }, p.text) : null,
  );
}

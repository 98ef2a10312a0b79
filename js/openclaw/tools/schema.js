// Argument checking: the JSON Schema subset the tools' parameters use (types, enums, lengths,
// ranges, required and unknown keys), and the parameter schemas several tools share. It only
// says what is wrong with a value; it never coerces or fills in defaults.
import { MAX_PAGE_SIZE } from "./paging.js";

/**
 * A JSON Schema, as far as the tools use it.
 * @typedef {{type?: string, properties?: Record<string, JsonSchema>, required?: string[], additionalProperties?: boolean, enum?: unknown[], minLength?: number, maxLength?: number, minimum?: number, maximum?: number, exclusiveMinimum?: number, minItems?: number, maxItems?: number, items?: JsonSchema, description?: string, default?: unknown}} JsonSchema
 */

/** @param {unknown} v */
function typeName(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * Returns an error message, or null when `value` fits `schema`.
 * @param {JsonSchema} schema
 * @param {any} value
 * @param {string} where the value's name in the message (`arguments`, `arguments.page`, …)
 * @returns {string | null}
 */
export function checkSchema(schema, value, where) {
  const t = schema.type;
  if (t === "object") {
    if (typeName(value) !== "object") return `${where} must be an object, got ${typeName(value)}`;
    const props = schema.properties ?? {};
    for (const k of Object.keys(value)) {
      if (!(k in props) && schema.additionalProperties === false) {
        const allowed = Object.keys(props);
        return `unknown ${where === "arguments" ? "argument" : "key"} "${k}" in ${where}; allowed: ${allowed.length ? allowed.join(", ") : "none"}`;
      }
    }
    for (const k of schema.required ?? []) if (value[k] === undefined) return `${where}.${k} is required`;
    for (const [k, sub] of Object.entries(props)) {
      if (value[k] === undefined) continue;
      const e = checkSchema(sub, value[k], `${where}.${k}`);
      if (e) return e;
    }
    return null;
  }
  if (t === "string") {
    if (typeof value !== "string") return `${where} must be a string, got ${typeName(value)}`;
    if (schema.enum && !schema.enum.includes(value))
      return `${where} must be one of ${schema.enum.map((x) => JSON.stringify(x)).join(", ")}, got ${JSON.stringify(value)}`;
    if (schema.minLength !== undefined && value.length < schema.minLength) return `${where} must have at least ${schema.minLength} character(s)`;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${where} must have at most ${schema.maxLength} characters`;
    return null;
  }
  if (t === "integer" || t === "number") {
    if (typeof value !== "number" || !Number.isFinite(value)) return `${where} must be a ${t}, got ${typeName(value)}`;
    if (t === "integer" && !Number.isInteger(value)) return `${where} must be an integer, got ${value}`;
    if (schema.minimum !== undefined && value < schema.minimum) return `${where} must be ≥ ${schema.minimum}, got ${value}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${where} must be ≤ ${schema.maximum}, got ${value}`;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return `${where} must be > ${schema.exclusiveMinimum}, got ${value}`;
    return null;
  }
  if (t === "boolean") return typeof value === "boolean" ? null : `${where} must be true or false, got ${typeName(value)}`;
  if (t === "array") {
    if (!Array.isArray(value)) return `${where} must be an array, got ${typeName(value)}`;
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${where} must have at least ${schema.minItems} item(s)`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${where} must have at most ${schema.maxItems} items`;
    if (schema.items) {
      for (let i = 0; i < value.length; i++) {
        const e = checkSchema(schema.items, value[i], `${where}[${i}]`);
        if (e) return e;
      }
    }
    return null;
  }
  return null;
}

// ------------------------------------------------------------------------------------------
// shared parameter schemas

export const STRATEGIES = ["fifo", "sliding-window", "importance"];
export const PAGE = { type: "integer", minimum: 1, maximum: 100000, description: "Page number, 1-based (default 1)." };
export const pageSize = (/** @type {number} */ dflt) => ({
  type: "integer",
  minimum: 1,
  maximum: MAX_PAGE_SIZE,
  description: `Items per page, at most ${MAX_PAGE_SIZE} (default ${dflt}).`,
});
export const TURN_ID = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  description: "A turn id of this session, as shown in stubs (`[folded … — turn <id>]`), explanations, topics or session_index_query.",
};
export const OFFSET = {
  type: "integer",
  minimum: 0,
  maximum: 1_000_000_000,
  description: "Character offset into this page's text, to continue a result that was cut at 64 KB (default 0).",
};
/**
 * The schema of an arguments object: these properties, no others, `required` ones required.
 * @param {Record<string, JsonSchema>} properties
 * @param {string[]} [required]
 * @returns {JsonSchema}
 */
export const obj = (properties, required = []) => ({ type: "object", additionalProperties: false, properties, ...(required.length ? { required } : {}) });

//! The boundary's documents: every request the core reads and every result it writes, as serde
//! types (JSON keys in camelCase), and their TypeScript, written next to them.
//!
//! Requests are the user's input: unknown keys are refused (`deny_unknown_fields`), and a
//! document that does not parse is refused with the path of the bad field and what was
//! expected ([`parse`]). Documents the JS layer stores and hands back (transcript entries, the
//! index, pins) are read leniently: missing optional keys take their defaults, unknown keys are
//! ignored. Results are written with serde_json ([`to_json`]).
//!
//! The values inside requests and results that the core's lower layers take or produce (plan
//! steps, cleaner and planner counts, turn explanations, topics, the index, transcript entries,
//! pins, and prune's request and result, decided in `fold`) derive serde where they are
//! defined; the TypeScript here describes them too, and the tests here compare it with what is
//! read and written.
//!
//! This module decides nothing: the live session's compact forms (a step as a number, a
//! repeated turn explanation as `0`) are chosen by the session and only written here.

pub mod assemble;
pub mod clean;
pub mod prune;
pub mod rules;
pub mod transcript;
#[cfg(test)]
pub(crate) mod typescript;

use crate::error::InputError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_path_to_error::Segment;

/// Reads a JSON document as a `T`. `what` names the document in the error (`request`,
/// `config`, ...).
///
/// One pass, with the path tracked (serde_path_to_error): a plain pass with a tracked second
/// one only on failure would compile every request's deserializer twice (21 KB more of the
/// gzipped module) to save a small share of the parsing time.
pub fn parse<T: DeserializeOwned>(what: &'static str, text: &str) -> Result<T, InputError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let (mut path, e) = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => match de.end() {
            Ok(()) => return Ok(v),
            // What follows the document is not whitespace.
            Err(e) => (Vec::new(), e),
        },
        Err(e) => (e.path().iter().cloned().collect(), e.into_inner()),
    };
    let message = message(&e);
    // An unknown key is named by the message: the path ends at the object that has it.
    if let Some(Segment::Map { key }) = path.last() {
        if message.starts_with(&format!("unknown field `{key}`")) {
            path.pop();
        }
    }
    Err(InputError {
        what,
        path: written(&path),
        message,
    })
}

/// A path as JS would write it: `messages[3].content`.
fn written(path: &[Segment]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } if out.is_empty() => out.push_str(key),
            Segment::Map { key } | Segment::Enum { variant: key } => out.push_str(&format!(".{key}")),
            // Inside a value of any shape (a message): the path so far says where.
            Segment::Unknown => break,
        }
    }
    out
}

/// serde_json's message. A shape error is located by its path: its line and column go.
fn message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(m) if e.is_data() => m.to_string(),
        _ => text,
    }
}

/// A result as JSON text.
pub fn to_json<T: Serialize + ?Sized>(v: &T) -> String {
    // The core's results have string keys only and no fallible `Serialize`: serde_json
    // cannot refuse them.
    serde_json::to_string(v).expect("a result of the core serializes")
}

/// The TypeScript shared by every boundary call.
pub const TYPESCRIPT: &str = r#"
/**
 * JSON text of a `T`: each call takes and returns JSON strings (faster across the boundary
 * than JS objects for this data). `JSON.stringify` a request, `JSON.parse` a result.
 */
export type Json<T> = string;

/** A message as the host sends it (OpenClaw `AgentMessage`, OpenAI chat or Anthropic shape);
 * fields the core does not know pass through unchanged. */
export type Message = { role?: string; content?: unknown; [key: string]: unknown };
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::Value;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Req {
        messages: Vec<Msg>,
        #[serde(default)]
        keep: usize,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Msg {
        content: String,
    }

    fn error(text: &str) -> String {
        parse::<Req>("request", text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_field_and_what_was_expected() {
        assert_eq!(
            error(r#"{"messages": [{"content": "a"}, {"content": 5}]}"#),
            "invalid request: messages[1].content: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            error(r#"{"messages": [], "keep": -1}"#),
            "invalid request: keep: invalid value: integer `-1`, expected usize"
        );
        assert!(
            error(r#"{"messages": [], "kept": 1}"#)
                .starts_with("invalid request: unknown field `kept`, expected `messages` or `keep`"),
            "{}",
            error(r#"{"messages": [], "kept": 1}"#)
        );
        assert_eq!(error(r#"{"keep": 1}"#), "invalid request: missing field `messages`");
        // Syntax errors keep their position.
        assert_eq!(
            error(r#"{"messages": [{"content": "a"}"#),
            "invalid request: messages: EOF while parsing a list at line 1 column 30"
        );
        assert_eq!(
            error(r#"{"messages": []} x"#),
            "invalid request: trailing characters at line 1 column 18"
        );
        assert_eq!(
            error(""),
            "invalid request: EOF while parsing a value at line 1 column 0"
        );
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"b": 1, "a": [1.5, -0, 18446744073709551615, -9223372036854775808, "\u00e9\n"]}"#;
        let v: Value = parse("request", text).unwrap();
        assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
        // Key order is kept (`preserve_order`): a message written back is the host's.
        assert_eq!(
            to_json(&v),
            r#"{"b":1,"a":[1.5,-0.0,18446744073709551615,-9223372036854775808,"é\n"]}"#
        );
    }
}

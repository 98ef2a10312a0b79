//! Plan steps: what the model sees, as instructions over the host's own message array.
//!
//! Each step either keeps an input message unchanged (`{"source": i}`), replaces it with
//! an edited copy (`{"source": i, "message": {...}}`), or inserts a new message
//! (`{"message": {...}}`). The JS layer applies the plan by reusing the host's objects for
//! unchanged messages, so they stay byte-identical.

use serde::Serialize;
use serde_json::Value;
use std::rc::Rc;

/// One output position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// The input message this position comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<usize>,
    /// The replacement (or inserted) message; absent when the input is kept as is. Shared:
    /// a plan is rendered more than once while folding, and a copy costs a reference count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Rc<Value>>,
    /// For a live session's caller that keeps replacements (see
    /// `reuse` of a delta request): `true` when this step's replacement is the
    /// one sent before for the same source (and `message` is left out), `false` when it is
    /// sent for the first time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reuse: Option<bool>,
    /// Part of a recall block: sends again a message the plan sent earlier in folded form, so
    /// its source comes out of order (see `crate::fold::recall`).
    #[serde(skip)]
    pub recall: bool,
}

impl Step {
    /// Keep input message `i` unchanged.
    pub fn keep(i: usize) -> Step {
        Step {
            source: Some(i),
            message: None,
            reuse: None,
            recall: false,
        }
    }

    /// Replace input message `i` with `message`.
    pub fn replace(i: usize, message: Value) -> Step {
        Step {
            source: Some(i),
            message: Some(Rc::new(message)),
            reuse: None,
            recall: false,
        }
    }

    /// The message this step stands for.
    pub fn resolve<'a>(&'a self, input: &'a [Value]) -> &'a Value {
        match (&self.message, self.source) {
            (Some(m), _) => m.as_ref(),
            (None, Some(i)) => &input[i],
            (None, None) => &Value::Null,
        }
    }
}

/// Materializes a plan into messages (used by the gate, tests and native callers).
pub fn apply(steps: &[Step], input: &[Value]) -> Vec<Value> {
    steps.iter().map(|s| s.resolve(input).clone()).collect()
}

/// The identity plan.
pub fn identity(n: usize) -> Vec<Step> {
    (0..n).map(Step::keep).collect()
}

//! The cleaner over structured sessions in the OpenClaw, OpenAI and Anthropic shapes (and
//! mixes of them): the ungated proposal passes the validity gate, is deterministic, and is
//! already clean (see `check_clean`).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use contextfold_fuzz::{check_clean, clean_config, Session};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(cfg) = u8::arbitrary(&mut u) else { return };
    let Ok(complete) = bool::arbitrary(&mut u) else { return };
    let Ok(session) = Session::arbitrary(&mut u) else {
        return;
    };
    let messages = session.render(&mut u);
    check_clean(&messages, &clean_config(cfg), complete);
});

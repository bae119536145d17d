//! Regression tests for what fuzzing and the bad-input catalogue found (issue 7). One module per
//! finding, named after the issue; each test is the minimized input and the behaviour now expected.

mod issue7_apply_short_tool_calls_length;
mod issue7_supplied_lengths_bounded;

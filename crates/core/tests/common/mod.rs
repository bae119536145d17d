//! Support code shared by the integration tests. A test crate made of one file declares `mod common;`;
//! one made of a folder (`tests/<behaviour>/main.rs` with a module per group of rules) declares
//! `#[path = "../common/mod.rs"] mod common;`. The fuzz targets include `invariants.rs` by path, and
//! the rule-by-rule crates `plans.rs` (an editor from JSON options, the results a plan clears).

pub mod invariants;

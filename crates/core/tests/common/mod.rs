//! Support code shared by the integration tests (each test file that needs it declares
//! `mod common;`).

pub mod invariants;

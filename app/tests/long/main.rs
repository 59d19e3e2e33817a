//! The long tests, one binary: each file of this folder is a module (issue #46: one binary
//! links Arrow and Parquet once, not once per file).

#[path = "../common/archive.rs"]
#[allow(dead_code)]
mod archive;
#[path = "../../../tests/common/as_read.rs"]
#[allow(dead_code)]
mod as_read;
#[path = "../../../tests/common/mod.rs"]
mod common;
#[path = "../../../tests/common/roundtrip.rs"]
#[allow(dead_code)]
mod roundtrip;

mod core_perft;
mod hostile_mutation;

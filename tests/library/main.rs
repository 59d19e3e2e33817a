//! The library tests, one binary: each file of this folder is a module (issue #46: one binary
//! links Arrow and Parquet once, not once per file).

#[path = "../common/as_read.rs"]
#[allow(dead_code)]
mod as_read;
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/roundtrip.rs"]
#[allow(dead_code)]
mod roundtrip;

mod analysis;
mod as_read_csa_usi;
mod as_read_jkf;
mod as_read_kif;
mod convert_writes;
mod core_corpus;
mod core_endings;
mod core_props;
mod core_rules;
mod csa_header;
mod decode;
mod formats_csa;
mod formats_jkf;
mod formats_ki2;
mod formats_kif;
mod formats_props;
mod formats_usi;
mod layering;
mod perf_equivalence;
mod props_roundtrip;
mod readers_dialects;
mod readers_line_ends;
mod readers_move_number;
mod resolve;
mod rows_equivalence;
mod validate_endings;
mod validate_lenient;

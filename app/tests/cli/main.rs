//! The application's tests, one binary: the command line, the batch engine over files and
//! archives, conversion, and the hostile inputs of `tests/regressions/`. Each file of this
//! folder is a module (one binary links Arrow and Parquet once, not once per file).

#[path = "../common/archive.rs"]
#[allow(dead_code)]
mod archive;
#[path = "../../../tests/common/as_read.rs"]
#[allow(dead_code)]
mod as_read;
#[path = "../common/cli.rs"]
#[allow(dead_code)]
mod cli_common;
#[path = "../../../tests/common/mod.rs"]
mod common;
#[path = "../../../tests/common/roundtrip.rs"]
#[allow(dead_code)]
mod roundtrip;

mod batch_bytes;
mod batch_chunks;
mod batch_jobs;
mod batch_zip;
mod cli;
mod cli_dialects;
mod cli_docs;
mod cli_show_find;
mod cli_stats;
mod cli_tables;
mod convert_cp932;
mod convert_output;
mod faults;
mod formats_usen;
mod hostile;
mod hostile_archives;
mod hostile_regressions;
mod organiser_rules;
mod readers_inputs;
mod render;
mod server_summary;
mod validate_clock;

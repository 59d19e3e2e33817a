//! The cli tests, one binary: each file of this folder is a module (issue #46: one binary
//! links Arrow and Parquet once, not once per file).

#[path = "../common/archive.rs"]
#[allow(dead_code)]
mod archive;
#[path = "../common/cli.rs"]
#[allow(dead_code)]
mod cli_common;
#[path = "../common/mod.rs"]
mod common;

mod batch_chunks;
mod batch_jobs;
mod cli;
mod cli_dialects;
mod cli_docs;
mod cli_show_find;
mod cli_stats;
mod cli_tables;
mod convert_output;
mod faults;
mod formats_usen;
mod hostile;
mod organiser_rules;
mod readers_inputs;
mod render;
mod server_summary;
mod validate_clock;

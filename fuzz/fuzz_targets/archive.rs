//! Archives: any bytes under a zip, tar or tar.gz name give units and diagnostics, never a
//! panic, within the zip-bomb bound, with relative paths `convert -o` can use safely, and the
//! units read and validate without panicking. The first byte picks the archive kind and a
//! forced input format; the check is `app/tests/common/archive.rs`, shared with the tests.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../app/tests/common/archive.rs"]
#[allow(dead_code)]
mod archive;

fuzz_target!(|data: &[u8]| archive::check_archive(data));

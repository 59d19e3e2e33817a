//! The `kifu` command line (scaffolding until the batch layer lands).

fn main() {
    eprintln!("kifu: not built yet");
    std::process::exit(2);
}

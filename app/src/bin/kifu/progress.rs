//! The progress bar: terminal UI, so it lives in the binary; the library tells it of each unit
//! through [`Observer`].

use std::io;

use kifu_app::batch::Observer;

/// A progress bar on stderr (files, games, games/s, ETA), or nothing.
#[derive(Debug, Clone)]
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    games: u64,
    /// The bar counts bytes (of files whose sizes were known in advance), not files.
    by_bytes: bool,
    files: u64,
}

impl Progress {
    /// A bar over `files` files (a counter when the number is not known) when `enabled`,
    /// else a no-op.
    pub fn new(enabled: bool, files: Option<u64>) -> Progress {
        let template = if files.is_some() {
            "{bar:30} {pos}/{len} files  {msg}  {elapsed_precise} ETA {eta}"
        } else {
            "{spinner} {pos} files  {msg}  {elapsed_precise}"
        };
        Progress::drawn(enabled, files, template, false)
    }

    /// A bar over `bytes` bytes of input (read as units come out, so one big file gets a real
    /// ETA) when `enabled`, else a no-op.
    pub fn with_bytes(enabled: bool, bytes: u64) -> Progress {
        let template = "{bar:30} {bytes}/{total_bytes}  {msg}  {elapsed_precise} ETA {eta}";
        Progress::drawn(enabled, Some(bytes), template, true)
    }

    fn drawn(enabled: bool, len: Option<u64>, template: &str, by_bytes: bool) -> Progress {
        let bar = enabled.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                len,
                indicatif::ProgressDrawTarget::stderr_with_hz(8),
            );
            let style = indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Progress {
            bar,
            games: 0,
            by_bytes,
            files: 0,
        }
    }
}

impl Observer for Progress {
    /// Counts `games` more games read from `bytes` bytes of input and, when `file_done`, one
    /// more file.
    fn unit_done(&mut self, games: u64, bytes: u64, file_done: bool) {
        self.games += games;
        self.files += u64::from(file_done);
        if let Some(bar) = &self.bar {
            if self.by_bytes {
                bar.inc(bytes);
            } else if file_done {
                bar.inc(1);
            }
            let secs = bar.elapsed().as_secs_f64().max(1e-3);
            let files = if self.by_bytes {
                format!("{} files  ", self.files)
            } else {
                String::new()
            };
            bar.set_message(format!(
                "{files}{} games  {:.0} games/s",
                self.games,
                self.games as f64 / secs
            ));
        }
    }

    /// Flushes `out` with the bar hidden, so output lines and the bar do not mix on a terminal.
    /// Without a bar, does nothing (the writer flushes when its buffer fills).
    fn flush(&mut self, out: &mut dyn io::Write) -> io::Result<()> {
        match &self.bar {
            Some(bar) => bar.suspend(|| out.flush()),
            None => Ok(()),
        }
    }

    /// Removes the bar.
    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

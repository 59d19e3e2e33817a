//! Reading ahead on a thread of its own: a `.tar.gz` is inflated while the tar reader and the
//! workers take what was inflated before, instead of the reader thread doing both in turn
//! (inflating was most of its time, and the reader thread is what a second worker waits on).
//!
//! At most [`BLOCKS`] blocks of [`BLOCK`] bytes are inflated and not yet read, so memory stays
//! bounded whatever the archive's size, and the archive's expansion bound (counted by the
//! reader of the blocks) is overrun by at most that much before it stops the reading. When
//! the reader is dropped early (a bound reached, the run stopped), the thread finds nobody to
//! send to and ends after the block it is inflating.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

/// Bytes inflated at a time.
const BLOCK: usize = 256 * 1024;
/// Blocks inflated ahead of the reader, at most (on top of the one being read).
const BLOCKS: usize = 4;

/// A reader over another one that runs on a thread of its own (see the module's header).
pub(super) enum ReadAhead {
    /// Blocks from the thread, the one being read and where.
    Thread {
        blocks: Receiver<io::Result<Vec<u8>>>,
        block: Vec<u8>,
        at: usize,
        thread: Option<JoinHandle<()>>,
    },
    /// No thread could be started: the inner reader, read directly.
    Direct(Box<dyn Read + Send>),
}

impl ReadAhead {
    /// Starts reading `inner` ahead on a new thread.
    pub(super) fn new(inner: impl Read + Send + 'static) -> ReadAhead {
        let (tx, blocks) = sync_channel::<io::Result<Vec<u8>>>(BLOCKS);
        // `inner` goes to the thread through this slot, so that it can be had back if the
        // thread cannot be started.
        let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(inner)));
        let theirs = std::sync::Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name("kifu-inflate".into())
            .spawn(move || {
                let taken = theirs.lock().map(|mut s| s.take()).unwrap_or(None);
                if let Some(mut inner) = taken {
                    pump(&mut inner, |b| tx.send(b).is_ok());
                }
            });
        match spawned {
            Ok(thread) => ReadAhead::Thread {
                blocks,
                block: Vec::new(),
                at: 0,
                thread: Some(thread),
            },
            Err(_) => {
                let inner = slot.lock().map(|mut s| s.take()).unwrap_or(None);
                match inner {
                    Some(inner) => ReadAhead::Direct(Box::new(inner)),
                    None => ReadAhead::Direct(Box::new(io::empty())),
                }
            }
        }
    }
}

/// Reads `inner` to its end in blocks and hands each on to `send` (which says whether
/// anybody still takes them); an error is handed on after the bytes read before it, and ends
/// the reading.
fn pump(inner: &mut dyn Read, mut send: impl FnMut(io::Result<Vec<u8>>) -> bool) {
    loop {
        let mut block = vec![0u8; BLOCK];
        let mut filled = 0;
        let mut failure = None;
        let mut end = false;
        while filled < BLOCK {
            match inner.read(block.get_mut(filled..).unwrap_or_default()) {
                Ok(0) => {
                    end = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        block.truncate(filled);
        if filled > 0 && !send(Ok(block)) {
            return;
        }
        if let Some(e) = failure {
            send(Err(e));
            return;
        }
        if end {
            return;
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (blocks, block, at, thread) = match self {
            ReadAhead::Direct(inner) => return inner.read(buf),
            ReadAhead::Thread {
                blocks,
                block,
                at,
                thread,
            } => (blocks, block, at, thread),
        };
        if buf.is_empty() {
            return Ok(0);
        }
        while *at >= block.len() {
            match blocks.recv() {
                Ok(Ok(next)) => {
                    *block = next;
                    *at = 0;
                }
                Ok(Err(e)) => return Err(e),
                // The thread is done: the end of the input, unless it failed.
                Err(_) => {
                    let failed = thread.take().is_some_and(|t| t.join().is_err());
                    if failed {
                        return Err(io::Error::other("the thread inflating the archive failed"));
                    }
                    return Ok(0);
                }
            }
        }
        let rest = block.get(*at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        *at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives its bytes a few at a time, then fails once, if asked to.
    struct Dribble {
        bytes: Vec<u8>,
        at: usize,
        fail_at_end: bool,
    }

    impl Read for Dribble {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.bytes.len() {
                if self.fail_at_end {
                    self.fail_at_end = false;
                    return Err(io::Error::other("broken"));
                }
                return Ok(0);
            }
            let n = buf.len().min(7).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 31 % 251) as u8).collect()
    }

    #[test]
    fn gives_every_byte_in_order() {
        for n in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5, 9 * BLOCK] {
            let want = bytes(n);
            let mut r = ReadAhead::new(io::Cursor::new(want.clone()));
            let mut got = Vec::new();
            r.read_to_end(&mut got).expect("read");
            assert!(got == want, "{n} bytes");
        }
    }

    #[test]
    fn a_failure_comes_after_the_bytes_before_it() {
        let want = bytes(BLOCK / 2 + 3);
        let mut r = ReadAhead::new(Dribble {
            bytes: want.clone(),
            at: 0,
            fail_at_end: true,
        });
        let mut got = vec![0u8; want.len()];
        r.read_exact(&mut got)
            .expect("the bytes before the failure");
        assert!(got == want);
        let e = r.read(&mut [0u8; 16]).expect_err("then the failure");
        assert_eq!(e.to_string(), "broken");
    }

    #[test]
    fn dropping_it_early_ends_the_thread() {
        // An endless input: the thread must stop when the reader is gone.
        let mut r = ReadAhead::new(io::repeat(1));
        let mut head = [0u8; 10];
        r.read_exact(&mut head).expect("read");
        let thread = match &mut r {
            ReadAhead::Thread { thread, .. } => thread.take().expect("a thread"),
            ReadAhead::Direct(_) => panic!("a thread was expected"),
        };
        drop(r);
        thread.join().expect("the thread ends");
    }
}

//! The engine of [`run`]: a reader thread, a pool of workers and the calling thread putting
//! results back in input order, with the window that bounds the units in flight.

use std::collections::BTreeMap;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use rayon::iter::{ParallelBridge, ParallelIterator};

use super::{Content, Input, Options, Unit, discover};
use kifu::diag::{Code, Diagnostic};

/// The text of a caught panic's payload (what `panic!` was given, when it was a string).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

/// The run's error when reading the inputs themselves panicked (the walk, not a unit's work):
/// the run cannot know what it did not see.
fn reader_panicked(payload: &(dyn std::any::Any + Send)) -> io::Error {
    io::Error::other(format!(
        "internal error: kifu panicked while reading the inputs: {}",
        panic_text(payload)
    ))
}

/// The diagnostic a unit gets in place of its results when kifu failed on it (a bug: no input
/// should make it fail, but a bug must cost one unit, not the run).
fn internal_error(what: &str, payload: &(dyn std::any::Any + Send)) -> Diagnostic {
    Diagnostic::new(
        Code::Internal,
        format!(
            "kifu failed while {what} this input (it panicked: {}); its games are not read. \
             This is a bug: please report it, with the file",
            panic_text(payload)
        ),
    )
}

/// With the `testing` feature, a unit whose bytes start with this marker makes the work on it
/// panic, so that the tests can show what a bug in the work costs.
#[cfg(feature = "testing")]
pub const PANIC_ON_PURPOSE: &[u8] = b"KIFU-TEST-PANIC";

/// `work` on one unit, a panic caught: the unit's content becomes an `internal` diagnostic
/// (the job reports it as it reports an unreadable file) and `work` runs again on it.
/// An error only if that panics too.
fn guarded<R, W: Fn(&Unit) -> R>(work: &W, u: &mut Unit) -> io::Result<R> {
    let first = catch_unwind(AssertUnwindSafe(|| {
        #[cfg(feature = "testing")]
        if let Content::Bytes(b) = &u.content
            && b.starts_with(PANIC_ON_PURPOSE)
        {
            panic!("a panic on purpose (the testing feature's marker)");
        }
        work(u)
    }));
    match first {
        Ok(r) => Ok(r),
        Err(payload) => {
            u.content = Content::Failed(internal_error("reading", payload.as_ref()));
            catch_unwind(AssertUnwindSafe(|| work(u))).map_err(|p| {
                io::Error::other(format!(
                    "internal error: kifu panicked on {}: {}",
                    u.source.path,
                    panic_text(p.as_ref())
                ))
            })
        }
    }
}

/// [`discover::load`] with a panic caught: the unit then stands as one that could not be read.
fn guarded_load(u: Unit, opts: &Options, out: &mut Vec<Unit>) {
    let shell = Unit {
        source: u.source.clone(),
        content: Content::Pending,
        first_line: u.first_line,
        chunk: u.chunk,
        last: u.last,
        encoding: u.encoding,
    };
    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| discover::load(u, opts, out))) {
        out.push(Unit {
            content: Content::Failed(internal_error("loading", payload.as_ref())),
            ..shell
        });
    }
}

/// Stops the window when dropped: however the emitting side leaves (an error, a panic of its
/// own `emit`), the reader and the workers are told to stop rather than wait for it.
struct StopOnDrop<'a>(&'a Window);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Permits of the window (see [`weight`]) per worker thread, on top of [`QUEUE_PERMITS`]:
/// bounds memory when one slow unit holds up the output of those after it.
const WINDOW_PER_JOB: usize = 128;
/// Permits of the units the reader may have ready ahead of the workers.
const QUEUE_PERMITS: usize = 512;
/// Bytes of content that weigh one permit more: a unit weighs one permit and one more for
/// every 16 KiB it holds, so a window of small files (a few kB each, or not read yet) holds
/// hundreds of them and one of 512 KiB chunks about twenty.
const PERMIT_BYTES: usize = 16 * 1024;
/// Groups the reader may have sent and no worker taken yet.
const QUEUE_GROUPS: usize = 16;
/// Small units travel to the workers in groups of up to this many units ...
const GROUP_UNITS: usize = 128;
/// ... or this many bytes: handing each small file to a worker on its own cost a quarter of
/// the run in thread wake-ups and lock contention, and groups of 32 still spent a sixth of
/// the reader's and the emitter's time putting threads to sleep and waking them (on this
/// virtual machine a switch costs tens of microseconds).
const GROUP_BYTES: usize = 64 * 1024;

/// The bytes a unit holds (read, or stored in a zip).
fn held_bytes(u: &Unit) -> usize {
    match &u.content {
        Content::Bytes(b) => b.len(),
        Content::Zipped(z) => z.data.len(),
        Content::Failed(_) | Content::Pending => 0,
    }
}

/// A counting semaphore over the units in flight (read and not yet emitted), which also
/// carries the "stop" signal from the emitting thread to the reader. A reader that had to
/// wait sleeps until half the window is free again, not one permit: on one core,
/// waking it for every unit emitted cost a context switch per small file.
struct Window {
    state: Mutex<WindowState>,
    cond: Condvar,
    /// Free permits a waiting reader waits for.
    low: usize,
    /// All the permits.
    permits: usize,
}

struct WindowState {
    free: usize,
    stopped: bool,
    waiting: bool,
}

impl Window {
    fn new(permits: usize) -> Window {
        Window {
            state: Mutex::new(WindowState {
                free: permits,
                stopped: false,
                waiting: false,
            }),
            cond: Condvar::new(),
            low: (permits / 2).max(1),
            permits,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WindowState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes `n` permits if they are free now: `Some(true)` taken, `Some(false)` stopped,
    /// `None` not free.
    fn try_acquire(&self, n: usize) -> Option<bool> {
        let mut g = self.lock();
        if g.stopped {
            return Some(false);
        }
        if g.free >= n {
            g.free -= n;
            return Some(true);
        }
        None
    }

    /// Takes `n` permits (no more than the window holds), waiting (until half the window, and
    /// at least `n`, is free) if they are not; `false` once the run is stopped.
    fn acquire(&self, n: usize) -> bool {
        let mut g = self.lock();
        if g.free < n && !g.stopped {
            g.waiting = true;
            while (g.free < self.low || g.free < n) && !g.stopped {
                g = self.cond.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            g.waiting = false;
        }
        if g.stopped {
            return false;
        }
        g.free -= n;
        true
    }

    /// Gives back `n` permits.
    fn release(&self, n: usize) {
        let mut g = self.lock();
        g.free += n;
        if g.waiting && g.free >= self.low {
            self.cond.notify_one();
        }
    }

    fn stop(&self) {
        let mut g = self.lock();
        g.stopped = true;
        self.cond.notify_all();
    }

    fn stopped(&self) -> bool {
        self.lock().stopped
    }
}

/// The reader's side of the queue: gathers small units into groups.
struct Grouper {
    tx: mpsc::SyncSender<(u64, usize, Vec<Unit>)>,
    seq: u64,
    group: Vec<Unit>,
    bytes: usize,
    /// The permits the group holds.
    permits: usize,
    /// The most permits a group holds: a share of the window small enough that every
    /// worker has a group while as many more are read (a group of the whole window would
    /// leave the other workers idle until it is emitted).
    max_permits: usize,
}

impl Grouper {
    /// Sends the group held, if any; `false` when nobody receives any more.
    fn send(&mut self) -> bool {
        if self.group.is_empty() {
            return true;
        }
        self.bytes = 0;
        let g = std::mem::take(&mut self.group);
        let permits = std::mem::take(&mut self.permits);
        let sent = self.tx.send((self.seq, permits, g)).is_ok();
        self.seq += 1;
        sent
    }

    /// Adds a unit once the window has room for it; sends the group when it is big enough.
    /// `false` to stop reading.
    fn add(&mut self, u: Unit, window: &Window) -> bool {
        // Never wait for a permit while holding units back: send them first, or the emitter
        // could wait for them while the reader waits for it.
        let bytes = held_bytes(&u);
        let n = (1 + bytes / PERMIT_BYTES).min(window.permits);
        let go = match window.try_acquire(n) {
            Some(go) => go,
            None => self.send() && window.acquire(n),
        };
        if !go {
            return false;
        }
        self.bytes += bytes;
        self.permits += n;
        self.group.push(u);
        if self.group.len() >= GROUP_UNITS
            || self.bytes >= GROUP_BYTES
            || self.permits >= self.max_permits
        {
            return self.send();
        }
        true
    }
}

/// Runs the whole job on the calling thread, unit after unit as the walk reads them: what
/// `-j1` means (one thread, so that `-j1` processes side by side get a core each, and no time
/// goes to handing units between threads), and what an input too small to share is given.
fn sequential<R, W, E>(inputs: &[Input], opts: &Options, work: W, mut emit: E) -> io::Result<()>
where
    W: Fn(&Unit) -> R,
    E: FnMut(&Unit, R) -> io::Result<()>,
{
    let mut failure = None;
    let walked = catch_unwind(AssertUnwindSafe(|| {
        discover::produce_inputs(inputs, opts, false, &mut |mut u| {
            let emitted = guarded(&work, &mut u).and_then(|r| emit(&u, r));
            match emitted {
                Ok(()) => true,
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        })
    }));
    if let Err(payload) = walked {
        return Err(reader_panicked(payload.as_ref()));
    }
    failure.map_or(Ok(()), Err)
}

/// Runs `work` over every unit of `inputs` on `opts.jobs` threads and calls `emit` with each
/// result in input order. Stops early, returning the error, when `emit` fails (for example on a
/// closed pipe).
///
/// A reader thread cuts the inputs into units and hands them on in small groups (a chunk of
/// a big file on its own, up to 128 small files together); the files of a directory are only
/// listed by it and read by the workers, in parallel (a worker that finds one too big to read
/// whole hands it back, and it is cut into chunks, in its turn, by a run of its own over it
/// alone); `jobs` worker threads take a group
/// at a time as they come (so the chunks of one big file are worked on in parallel and a slow
/// unit holds up no other worker); the calling thread puts the results back in input order
/// and emits them. What is read and not yet emitted is bounded by a window of
/// `QUEUE_PERMITS + WINDOW_PER_JOB * jobs` permits (512 + 128 per worker), a unit taking one
/// permit and one more per 16 KiB it holds (or [`Options::window`] units, when given).
///
/// With one job, or inputs of at most one chunk of work ([`discover::CHUNK_BYTES`]), there are no
/// threads: the calling thread reads, works and emits, unit after unit, and a `.tar.gz` is
/// inflated as it is read. The results are the same either way.
///
/// ```no_run
/// use kifu_app::batch::{self, Input, Options};
///
/// let inputs = [Input::Path("games/".into())];
/// let mut games = 0;
/// batch::run(
///     &inputs,
///     &Options::default(),
///     |unit| batch::parse_unit(unit).games.len(),
///     |_unit, n| {
///         games += n;
///         Ok(())
///     },
/// )?;
/// println!("{games} games");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn run<R, W, E>(inputs: &[Input], opts: &Options, work: W, mut emit: E) -> io::Result<()>
where
    R: Send,
    W: Fn(&Unit) -> R + Sync,
    E: FnMut(&Unit, R) -> io::Result<()>,
{
    let jobs = opts.threads();
    if jobs == 1 || discover::at_most_a_chunk(inputs, opts) {
        return sequential(inputs, opts, work, emit);
    }
    // One input at a time, so the last group of one input is not held back while the next
    // (perhaps a slow standard input) is being read.
    let produce = |grouper: &mut Grouper, window: &Window| {
        for input in inputs {
            discover::produce_inputs(std::slice::from_ref(input), opts, true, &mut |u| {
                grouper.add(u, window)
            });
            if window.stopped() || !grouper.send() {
                break;
            }
        }
    };
    run_with(jobs, opts, Box::new(produce), &work, &mut emit)
}

/// What feeds the reader thread of [`run_with`]: it hands units to the [`Grouper`] under the
/// [`Window`]. Boxed, so that the run nested for a big file is the same function.
type Producer<'a> = Box<dyn FnOnce(&mut Grouper, &Window) + Send + 'a>;

/// The units of a group, each with its result (`None`: a file too big to read whole, handed
/// back to be cut in order; an error: kifu failed on the unit even as one not read).
type Done<R> = Vec<(Unit, Option<io::Result<R>>)>;

/// The threads of [`run`] over the units `produce` hands to its [`Grouper`]: a reader thread
/// running `produce`, `jobs` workers, and the calling thread emitting in order. A file a
/// worker found too big to read whole (still [`Content::Pending`] after
/// [`discover::load`]) is cut into chunks here, when its turn comes, by a run of its own over
/// it alone, on as many threads: the workers of this run stop once its window is full.
fn run_with<R, W, E>(
    jobs: usize,
    opts: &Options,
    produce: Producer<'_>,
    work: &W,
    emit: &mut E,
) -> io::Result<()>
where
    R: Send,
    W: Fn(&Unit) -> R + Sync,
    E: FnMut(&Unit, R) -> io::Result<()>,
{
    let window = Window::new(if opts.window > 0 {
        opts.window
    } else {
        QUEUE_PERMITS + WINDOW_PER_JOB * jobs
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("kifu-worker-{i}"))
        .build()
        .map_err(io::Error::other)?;
    let (unit_tx, unit_rx) = mpsc::sync_channel::<(u64, usize, Vec<Unit>)>(QUEUE_GROUPS);
    // Results of a group: its sequence number, the units it took from the window, and each
    // unit with its result (a file read by the worker may, rarely, give several units; a
    // file too big to read whole has no result).
    let (res_tx, res_rx) = mpsc::channel::<(u64, usize, Done<R>)>();
    std::thread::scope(|scope| {
        let window = &window;
        let pool = &pool;
        let reader = scope.spawn(move || {
            let mut grouper = Grouper {
                tx: unit_tx,
                seq: 0,
                group: Vec::new(),
                bytes: 0,
                permits: 0,
                max_permits: (window.permits / (2 * jobs + 2)).max(1),
            };
            produce(&mut grouper, window);
        });
        // The rayon pool's workers take groups as the reader sends them (`par_bridge`), and
        // send their results back tagged with the group's sequence number; this thread puts
        // them back in input order and emits them.
        scope.spawn(move || {
            pool.install(|| {
                unit_rx.into_iter().par_bridge().for_each_with(
                    res_tx,
                    |res_tx, (i, taken, group)| {
                        // After a failed emit, drain the queue so the reader is not left
                        // blocked.
                        if window.stopped() {
                            return;
                        }
                        let mut units = Vec::with_capacity(group.len());
                        for u in group {
                            guarded_load(u, opts, &mut units);
                        }
                        let done: Done<R> = units
                            .into_iter()
                            .map(|mut u| {
                                let r = (!matches!(u.content, Content::Pending))
                                    .then(|| guarded(work, &mut u));
                                (u, r)
                            })
                            .collect();
                        let _ = res_tx.send((i, taken, done));
                    },
                );
            });
        });
        let stop = StopOnDrop(window);
        let mut pending: BTreeMap<u64, (usize, Done<R>)> = BTreeMap::new();
        let mut next = 0u64;
        for (i, taken, done) in res_rx.iter() {
            pending.insert(i, (taken, done));
            while let Some((n, done)) = pending.remove(&next) {
                next += 1;
                for (u, r) in done {
                    let emitted = match r {
                        Some(r) => r.and_then(|r| emit(&u, r)),
                        None => {
                            let produce = |grouper: &mut Grouper, window: &Window| {
                                discover::produce_source(&u, opts, &mut |u| grouper.add(u, window));
                                grouper.send();
                            };
                            run_with(jobs, opts, Box::new(produce), work, emit)
                        }
                    };
                    if let Err(e) = emitted {
                        window.stop();
                        return Err(e);
                    }
                }
                window.release(n);
            }
        }
        drop(stop);
        // The reader's panic (a bug in reading the inputs) ended its queue early: the run
        // did not see every unit, which must not pass for a complete run.
        match reader.join() {
            Ok(()) if pending.is_empty() => Ok(()),
            Ok(()) => Err(io::Error::other(
                "internal error: results of the run were lost (a worker failed)",
            )),
            Err(payload) => Err(reader_panicked(payload.as_ref())),
        }
    })
}

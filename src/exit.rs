//! Exit codes (kselftest's, plus the shell's for signals) and the one
//! stderr line every non-zero exit prints to name its cause.

use core::fmt::{self, Write};

use crate::render::Line;
use crate::sys::out::Out;
use crate::sys::Errno;

pub const PASS: i32 = 0;
/// A check failed, or the kernel broke the run or its set-up (an expired
/// bounded wait counts here: timeouts are a check), or an output the user
/// asked for could not be written (stdout but for a closed pipe; a `--tsv`
/// or `initramfs -o` file, from its creation on: outfile.rs).
pub const FAIL: i32 = 1;
/// A usage error or unusable input.
pub const USAGE: i32 = 2;
/// This kernel or box cannot run it: io_uring disabled or absent, or an
/// opcode missing (kselftest's KSFT_SKIP).
pub const SKIP: i32 = 4;
/// A panic: a bug (Rust's convention).
pub const PANIC: i32 = 101;
/// Something could not be judged: under `compare --bisect` (`git bisect
/// run`'s language) this commit (skip it); under `ab` a row of the table;
/// under `points` a boot, which gave no point (boot-point.sh's 125, which it
/// passes on).
pub const CANNOT_JUDGE: i32 = 125;
/// `points --timed-out`: the boot was stopped by its timeout before its
/// verdict (boot-point.sh's 124).
pub const TIMED_OUT: i32 = 124;
/// `compare --bisect`: the references are unusable or the step's stdout
/// lost a write (stop the bisect).
pub const BISECT_STOP: i32 = 128;
/// SIGINT or SIGTERM ended the run (as the shell reports 128 + SIGINT).
pub const INTERRUPTED: i32 = 130;
/// stdout was closed under a command that had not failed otherwise (as a
/// process killed by SIGPIPE reports).
pub const STDOUT_CLOSED: i32 = 141;

/// Every code and what it means (`--help` lists them).
pub const MEANINGS: [(i32, &str); 10] = [
    (PASS, "pass"),
    (
        FAIL,
        "a check failed (an expired bounded wait counts here), or an output could not be \
         written; ab: a row moved",
    ),
    (
        USAGE,
        "usage error or unusable input; CPU absent or not allowed",
    ),
    (SKIP, "this kernel or box cannot run it (skip)"),
    (PANIC, "a panic (a bug): the message is on stderr"),
    (
        TIMED_OUT,
        "points --timed-out: the boot timed out with no verdict",
    ),
    (
        CANNOT_JUDGE,
        "compare --bisect: the new point cannot be judged (git bisect: skip); ab: \
         no row moved, and a row could not be judged; points: no report came back, or \
         it cannot be a point",
    ),
    (
        BISECT_STOP,
        "compare --bisect: the references or the command line are unusable, or stdout \
         lost a write (stop)",
    ),
    (INTERRUPTED, "interrupted by SIGINT or SIGTERM"),
    (
        STDOUT_CLOSED,
        "stdout was closed under it (as SIGPIPE would)",
    ),
];

/// How a run ended: its exit code and, unless it passed, the cause. The
/// cause is not in the value but in the one slot below: every `?` on a
/// `Result<_, Exit>` (two hundred-odd) moves an Exit, and with its 520-byte
/// cause in it each of those moves was a copy of that size.
pub struct Exit {
    pub code: i32,
    /// The code and the cause already account for a lost stdout write
    /// (`stdout_failed`): `with_stdout` leaves them as they are.
    stdout_told: bool,
    /// The cause is in the slot (`new`, or a `write!` into this Exit);
    /// None: it has none (`printed`).
    caused: Option<slot::Owner>,
}

impl Exit {
    pub fn pass() -> Exit {
        Exit::printed(PASS)
    }

    /// `code` with `cause` as its stderr line. Not inlined: every command's
    /// failures make one (over eighty callers), at most once a run.
    #[inline(never)]
    pub fn new(code: i32, cause: fmt::Arguments<'_>) -> Exit {
        let mut line = Line::new();
        let _ = line.write_fmt(cause);
        Exit {
            code,
            stdout_told: false,
            caused: Some(slot::claim(&line)),
        }
    }

    /// `code`, whose stderr line (if any) the command printed itself.
    pub fn printed(code: i32) -> Exit {
        Exit {
            code,
            stdout_told: false,
            caused: None,
        }
    }

    /// The stderr line that names the cause (empty: none), a copy: whoever
    /// keeps it past making another Exit keeps this copy.
    pub fn cause(&self) -> Line {
        self.caused.map_or(Line::new(), slot::read)
    }

    /// This exit once stdout lost a write with `lost` (the first failed
    /// write's errno; None: every write went out). A lost write is always
    /// told, whatever the verdict was:
    /// - `compare --bisect` (`bisect`): 128, stop the bisect, for any
    ///   errno and any verdict (git reads 0, 1 and 125 as verdicts, and this
    ///   step's record of why is gone);
    /// - a command that passed fails by it: 1 naming the errno, or 141,
    ///   quietly, for a closed pipe (`stdout_failed`);
    /// - a command that had already failed keeps its code and its own
    ///   line, and a second line names the lost write (a closed pipe too:
    ///   the failure's details on stdout never arrived).
    pub fn with_stdout(self, lost: Option<Errno>, bisect: bool) -> Exit {
        let Some(e) = lost.filter(|_| !self.stdout_told) else {
            return self;
        };
        if self.code == PASS && !bisect {
            return stdout_failed(e);
        }
        // The verdict's own line first (if it has one), then the lost write's.
        let verdict = self.report();
        let code = if bisect { BISECT_STOP } else { verdict };
        Exit::new(code, format_args!("stdout: write failed: {e}"))
    }

    /// Marks the lost stdout write as accounted for.
    fn told(mut self) -> Exit {
        self.stdout_told = true;
        self
    }

    /// Writes the cause to stderr unless the run passed; returns the code.
    pub fn report(&self) -> i32 {
        let cause = self.cause();
        if self.code != PASS && !cause.as_bytes().is_empty() {
            fail(self.code, format_args!("{cause}"));
        }
        self.code
    }
}

/// `write!` into an Exit appends to its cause (one printed without a cause
/// gets one).
impl Write for Exit {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut line = self.cause();
        let written = line.write_str(s);
        match self.caused {
            Some(owner) => slot::write(owner, &line),
            None => self.caused = Some(slot::claim(&line)),
        }
        written
    }
}

/// stdout failed with `e`: a closed pipe ends quietly (141, as SIGPIPE
/// would); any other error (a full disk, EIO) loses the output the user
/// asked for, a failure named on stderr.
pub fn stdout_failed(e: Errno) -> Exit {
    match e {
        Errno::EPIPE => Exit::printed(STDOUT_CLOSED),
        _ => Exit::new(FAIL, format_args!("stdout: write failed: {e}")),
    }
    .told()
}

/// Writes `uring-repro: MSG` to stderr and returns `code`.
pub fn fail(code: i32, msg: fmt::Arguments<'_>) -> i32 {
    warn(msg);
    code
}

/// Writes `uring-repro: MSG` to stderr: a warning, which ends nothing.
pub fn warn(msg: fmt::Arguments<'_>) {
    let mut err = Out::new(2);
    let _ = writeln!(err, "uring-repro: {msg}");
    err.flush();
}

/// The one place the cause of an Exit is kept: the latest Exit made with a
/// cause owns it. One is enough: a command makes the Exit it ends by at its
/// first failure and passes it up to be reported, and where an Exit is kept
/// while others are made (a suite's items) its cause is kept as a copy
/// (`Exit::cause`).
#[cfg(not(test))]
mod slot {
    use core::cell::UnsafeCell;

    use crate::render::Line;

    /// Who owns the slot: nothing to tell in the binary.
    #[derive(Clone, Copy)]
    pub struct Owner;

    struct Slot(UnsafeCell<Line>);

    // SAFETY: only the main thread makes an Exit or reads its cause (the
    // binary's one other thread, pollwake's waiter, reports through the
    // atomics it shares with the producer), and `claim`, `read` and `write`
    // copy the line in or out without a reference that outlives them.
    unsafe impl Sync for Slot {}

    static CAUSE: Slot = Slot(UnsafeCell::new(Line::new()));

    /// Puts `line` in the slot, the cause of the Exit being made.
    pub fn claim(line: &Line) -> Owner {
        // SAFETY: one thread, no reference kept (`Slot`'s Sync).
        unsafe { *CAUSE.0.get() = *line };
        Owner
    }

    /// The cause in the slot.
    pub fn read(_: Owner) -> Line {
        // SAFETY: one thread, no reference kept (`Slot`'s Sync).
        unsafe { *CAUSE.0.get() }
    }

    /// Replaces the cause in the slot (its owner's, appended to).
    pub fn write(_: Owner, line: &Line) {
        // SAFETY: one thread, no reference kept (`Slot`'s Sync).
        unsafe { *CAUSE.0.get() = *line }
    }
}

/// Under test the slot is each thread's (tests run in parallel threads),
/// and every Exit with a cause has a number: reading or appending to a
/// cause a later Exit has overwritten fails the test.
#[cfg(test)]
mod slot {
    use core::cell::RefCell;

    use crate::render::Line;

    /// Which Exit owns the slot: the count of Exits with a cause made on
    /// this thread when it was made.
    pub type Owner = u64;

    std::thread_local! {
        static CAUSE: RefCell<(Owner, Line)> = const { RefCell::new((0, Line::new())) };
    }

    /// Puts `line` in the slot, the cause of the Exit being made.
    pub fn claim(line: &Line) -> Owner {
        CAUSE.with_borrow_mut(|(owner, l)| {
            *owner += 1;
            *l = *line;
            *owner
        })
    }

    /// The cause in the slot, which `owner` must still own.
    pub fn read(owner: Owner) -> Line {
        CAUSE.with_borrow(|&(now, l)| {
            assert_eq!(
                now, owner,
                "an Exit's cause was overwritten by a later one's"
            );
            l
        })
    }

    /// Replaces the cause in the slot, which `owner` must still own.
    pub fn write(owner: Owner, line: &Line) {
        CAUSE.with_borrow_mut(|(now, l)| {
            assert_eq!(
                *now, owner,
                "an Exit's cause was overwritten by a later one's"
            );
            *l = *line;
        })
    }
}

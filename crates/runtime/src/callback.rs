//! Host callbacks (`Stream::add_callback`) run on a stream's worker (or a driver thread), in the
//! middle of the stream's work. A runtime call that would wait for that stream from there waits
//! for itself, so, as CUDA says of its callbacks, such calls are not permitted: they return
//! [`Error::NotPermitted`] instead of hanging. What cannot return an error (dropping a buffer,
//! whose free must wait for the streams that used it) is handed to a reaper thread instead.

use std::cell::Cell;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

use crate::{Error, Result};

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f` as a host callback: blocking runtime calls inside it are refused.
pub(crate) fn run(f: impl FnOnce()) {
    DEPTH.set(DEPTH.get() + 1);
    struct Exit;
    impl Drop for Exit {
        fn drop(&mut self) {
            DEPTH.set(DEPTH.get() - 1);
        }
    }
    let _exit = Exit;
    f();
}

/// Whether the calling thread is inside a host callback.
pub(crate) fn active() -> bool {
    DEPTH.get() > 0
}

/// Refuses `what` inside a host callback.
pub(crate) fn forbid(what: &'static str) -> Result<()> {
    if active() {
        return Err(Error::NotPermitted {
            what,
            reason: "inside a host callback, which runs in the middle of a stream's work; \
                     do it after the stream has been synchronized, or queue it as stream work",
        });
    }
    Ok(())
}

type Deferred = Box<dyn FnOnce() + Send>;

/// Runs `f` now, or, inside a host callback, on the reaper thread once the callback returns.
pub(crate) fn now_or_later(f: impl FnOnce() + Send + 'static) {
    if !active() {
        return f();
    }
    static REAPER: OnceLock<Mutex<Sender<Deferred>>> = OnceLock::new();
    let sender = REAPER.get_or_init(|| {
        let (tx, rx) = channel::<Deferred>();
        let spawned = std::thread::Builder::new().name("ferrocm-reaper".into()).spawn(move || {
            for job in rx {
                job();
            }
        });
        if spawned.is_err() {
            // Without a thread the work stays queued forever; nothing was freed yet, so the
            // only cost is memory held until exit.
        }
        Mutex::new(tx)
    });
    let _ = crate::lock(sender).send(Box::new(f));
}

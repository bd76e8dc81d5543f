//! Streams as in-order work queues, and events as generation counters with a timestamp.
//!
//! A stream's queue is drained by a worker thread that exists only while there is work: it is
//! started when work arrives on an idle stream and exits after [`IDLE_EXIT`] without work, so a
//! program may hold thousands of streams without holding thousands of threads. Destroying a
//! stream returns at once; its worker finishes the queued work and exits (as `cuStreamDestroy`).

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ferrocm_backend::BackendError;

/// One unit of queued work. An `Err` is kept and reported by the next synchronize.
pub(crate) type Job = Box<dyn FnOnce() -> Result<(), BackendError> + Send>;

/// How long a worker waits for more work before its thread exits.
const IDLE_EXIT: Duration = Duration::from_millis(250);

/// An entry of a stream's queue.
enum Work {
    Job(Job),
    /// An event record, completed together with the stream's count of done work.
    Marker(Arc<CpuEvent>, u64),
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Work>,
    submitted: u64,
    completed: u64,
    error: Option<BackendError>,
    /// A worker thread is running (or starting) for this queue.
    worker: bool,
    /// The stream was destroyed: the worker exits once the queue is empty.
    destroyed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    cv: Condvar,
    id: u64,
    name: String,
}

/// An ordered asynchronous queue of work.
pub(crate) struct CpuStream {
    pub(crate) device: u32,
    /// Blocking streams synchronize with the device's legacy default stream.
    pub(crate) blocking: bool,
    shared: Arc<Shared>,
}

thread_local! {
    /// The stream whose worker this thread is (0 on other threads).
    static WORKER_OF: Cell<u64> = const { Cell::new(0) };
    /// The queue this thread works for, so a waiting job can tell that its stream was
    /// destroyed (see [`current_stream_destroyed`]).
    static CURRENT: std::cell::RefCell<Option<Arc<Shared>>> = const { std::cell::RefCell::new(None) };
}

/// Whether the stream whose worker runs the calling job has been destroyed (false off a
/// worker). A stream memory wait polls it, so that a wait on a word that never comes does not
/// keep a destroyed stream's thread, or the process's exit through the backend's drop, forever.
pub(crate) fn current_stream_destroyed() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|s| lock(&s.queue).destroyed))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock means a job panicked; the queue's counters are still consistent because
    // they are only updated outside the job, so carrying on is sound.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CpuStream {
    pub(crate) fn new(device: u32, id: u64, blocking: bool) -> CpuStream {
        let name = format!("ferrocm-cpu{device}-stream{id}");
        let shared = Arc::new(Shared { queue: Mutex::new(Queue::default()), cv: Condvar::new(), id, name });
        CpuStream { device, blocking, shared }
    }

    /// Queues a job behind everything already queued.
    pub(crate) fn push(&self, job: Job) -> Result<(), BackendError> {
        self.push_work(Work::Job(job))
    }

    /// Queues an event record.
    pub(crate) fn push_marker(&self, event: Arc<CpuEvent>, generation: u64) -> Result<(), BackendError> {
        self.push_work(Work::Marker(event, generation))
    }

    fn push_work(&self, work: Work) -> Result<(), BackendError> {
        let mut q = lock(&self.shared.queue);
        if !q.worker {
            let shared = Arc::clone(&self.shared);
            std::thread::Builder::new()
                .name(self.shared.name.clone())
                .spawn(move || worker_loop(shared))
                .map_err(|e| BackendError::Os { what: "a stream worker thread", message: e.to_string() })?;
            q.worker = true;
        }
        q.jobs.push_back(work);
        q.submitted += 1;
        self.shared.cv.notify_all();
        Ok(())
    }

    /// Whether the calling thread is this stream's worker (running one of its jobs).
    pub(crate) fn is_current_worker(&self) -> bool {
        WORKER_OF.get() == self.shared.id
    }

    /// Waits for all queued work; returns (and clears) the first error a job reported.
    pub(crate) fn synchronize(&self) -> Result<(), BackendError> {
        if self.is_current_worker() {
            return Err(BackendError::NotPermitted {
                what: "synchronizing a stream",
                reason: "called from a host callback of the same stream, which would wait for itself",
            });
        }
        let mut q = lock(&self.shared.queue);
        while q.completed < q.submitted {
            q = self.shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        q.error.take().map_or(Ok(()), Err)
    }

    /// The number of work items queued so far (a generation to wait for).
    pub(crate) fn submitted(&self) -> u64 {
        lock(&self.shared.queue).submitted
    }

    /// Whether the first `generation` work items have completed.
    pub(crate) fn reached(&self, generation: u64) -> bool {
        lock(&self.shared.queue).completed >= generation
    }

    /// Waits until the first `generation` work items have completed (not taking errors).
    pub(crate) fn wait_for(&self, generation: u64) {
        let mut q = lock(&self.shared.queue);
        while q.completed < generation {
            q = self.shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether all queued work has completed.
    pub(crate) fn idle(&self) -> bool {
        let q = lock(&self.shared.queue);
        q.completed == q.submitted
    }

    /// Marks the stream destroyed: the worker finishes what is queued and exits; nothing waits.
    pub(crate) fn destroy(&self) {
        lock(&self.shared.queue).destroyed = true;
        self.shared.cv.notify_all();
    }
}

fn worker_loop(shared: Arc<Shared>) {
    WORKER_OF.set(shared.id);
    CURRENT.with(|c| *c.borrow_mut() = Some(Arc::clone(&shared)));
    let shared = &*shared;
    loop {
        let work = {
            let mut q = lock(&shared.queue);
            loop {
                if let Some(w) = q.jobs.pop_front() {
                    break w;
                }
                if q.destroyed {
                    q.worker = false;
                    CURRENT.with(|c| c.borrow_mut().take());
                    return;
                }
                let (guard, timeout) =
                    shared.cv.wait_timeout(q, IDLE_EXIT).unwrap_or_else(|e| e.into_inner());
                q = guard;
                if timeout.timed_out() && q.jobs.is_empty() {
                    // Idle: the thread exits; the next push starts a new one.
                    q.worker = false;
                    CURRENT.with(|c| c.borrow_mut().take());
                    return;
                }
            }
        };
        let job = match work {
            Work::Job(job) => job,
            Work::Marker(event, generation) => {
                // The event completes and the stream counts the marker done under one lock, so a
                // thread woken by either sees both: a synchronized stream's events are complete,
                // and a completed event's stream is idle if nothing follows.
                let mut q = lock(&shared.queue);
                event.complete(generation);
                q.completed += 1;
                shared.cv.notify_all();
                continue;
            }
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(BackendError::KernelFailed { kernel: "<host work>".into(), message })
        });
        let mut q = lock(&shared.queue);
        let abandoned = matches!(&result, Err(e) if crate::memop::is_abandoned(e));
        if let Err(e) = result {
            q.error.get_or_insert(e);
        }
        q.completed += 1;
        if abandoned && q.destroyed {
            // A destroyed stream's memory wait was given up: the work queued behind it was
            // ordered after something that did not happen, so it is dropped; event records
            // still complete, so no waiter hangs.
            while let Some(w) = q.jobs.pop_front() {
                if let Work::Marker(event, generation) = w {
                    event.complete(generation);
                }
                q.completed += 1;
            }
        }
        shared.cv.notify_all();
    }
}

#[derive(Default)]
struct EventState {
    recorded: u64,
    completed: u64,
    timestamp: Option<Instant>,
}

/// An event: `recorded` counts records, `completed` the records that have been reached.
pub(crate) struct CpuEvent {
    pub(crate) timing: bool,
    state: Mutex<EventState>,
    cv: Condvar,
}

impl CpuEvent {
    pub(crate) fn new(timing: bool) -> CpuEvent {
        CpuEvent { timing, state: Mutex::default(), cv: Condvar::new() }
    }

    /// Starts a new record; returns the generation the stream job must complete.
    pub(crate) fn begin_record(&self) -> u64 {
        let mut s = lock(&self.state);
        s.recorded += 1;
        s.recorded
    }

    pub(crate) fn complete(&self, generation: u64) {
        let mut s = lock(&self.state);
        if generation > s.completed {
            s.completed = generation;
            s.timestamp = Some(Instant::now());
        }
        self.cv.notify_all();
    }

    /// The generation of the last record (0 if never recorded).
    pub(crate) fn last_record(&self) -> u64 {
        lock(&self.state).recorded
    }

    pub(crate) fn wait_for(&self, generation: u64) {
        let mut s = lock(&self.state);
        while s.completed < generation {
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub(crate) fn query(&self) -> bool {
        let s = lock(&self.state);
        s.completed >= s.recorded
    }

    /// The time the last record completed, if it has.
    pub(crate) fn timestamp(&self) -> Option<Instant> {
        let s = lock(&self.state);
        (s.completed >= s.recorded && s.recorded > 0).then_some(s.timestamp).flatten()
    }
}

//! Streams as in-order work queues, each drained by its own worker thread, and events as
//! generation counters with a timestamp.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

use ferrocm_backend::BackendError;

/// One unit of queued work. An `Err` is kept and reported by the next synchronize.
pub(crate) type Job = Box<dyn FnOnce() -> Result<(), BackendError> + Send>;

/// An entry of a stream's queue.
enum Work {
    Job(Job),
    /// An event record: completed only after the stream counts it done, so a thread woken by
    /// the event already sees the stream idle if nothing follows.
    Marker(Arc<CpuEvent>, u64),
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Work>,
    submitted: u64,
    completed: u64,
    error: Option<BackendError>,
    shutdown: bool,
}

/// An ordered asynchronous queue of work with its worker thread.
pub(crate) struct CpuStream {
    pub(crate) device: u32,
    shared: Arc<(Mutex<Queue>, Condvar)>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock means a job panicked; the queue's counters are still consistent because
    // they are only updated outside the job, so carrying on is sound.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CpuStream {
    pub(crate) fn new(device: u32, name: String) -> std::io::Result<CpuStream> {
        let shared = Arc::new((Mutex::new(Queue::default()), Condvar::new()));
        let worker_shared = Arc::clone(&shared);
        let worker = std::thread::Builder::new().name(name).spawn(move || worker_loop(&worker_shared))?;
        Ok(CpuStream { device, shared, worker: Mutex::new(Some(worker)) })
    }

    /// Queues a job behind everything already queued.
    pub(crate) fn push(&self, job: Job) {
        self.push_work(Work::Job(job));
    }

    /// Queues an event record.
    pub(crate) fn push_marker(&self, event: Arc<CpuEvent>, generation: u64) {
        self.push_work(Work::Marker(event, generation));
    }

    fn push_work(&self, work: Work) {
        let (queue, cv) = &*self.shared;
        let mut q = lock(queue);
        q.jobs.push_back(work);
        q.submitted += 1;
        cv.notify_all();
    }

    /// Waits for all queued work; returns (and clears) the first error a job reported.
    pub(crate) fn synchronize(&self) -> Result<(), BackendError> {
        let (queue, cv) = &*self.shared;
        let mut q = lock(queue);
        while q.completed < q.submitted {
            q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        q.error.take().map_or(Ok(()), Err)
    }

    /// Waits for all queued work without taking its error (freeing memory waits like this).
    pub(crate) fn wait_idle(&self) {
        let (queue, cv) = &*self.shared;
        let mut q = lock(queue);
        while q.completed < q.submitted {
            q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether all queued work has completed.
    pub(crate) fn idle(&self) -> bool {
        let q = lock(&self.shared.0);
        q.completed == q.submitted
    }

    /// Drains the queue and stops the worker.
    pub(crate) fn shutdown(&self) {
        {
            let (queue, cv) = &*self.shared;
            lock(queue).shutdown = true;
            cv.notify_all();
        }
        if let Some(worker) = lock(&self.worker).take() {
            let _ = worker.join();
        }
    }
}

impl Drop for CpuStream {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn worker_loop(shared: &(Mutex<Queue>, Condvar)) {
    let (queue, cv) = shared;
    loop {
        let job = {
            let mut q = lock(queue);
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                if q.shutdown {
                    return;
                }
                q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let job = match job {
            Work::Job(job) => job,
            Work::Marker(event, generation) => {
                let mut q = lock(queue);
                q.completed += 1;
                cv.notify_all();
                drop(q);
                event.complete(generation);
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
        let mut q = lock(queue);
        if let Err(e) = result {
            q.error.get_or_insert(e);
        }
        q.completed += 1;
        cv.notify_all();
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

//! `FERROCM_CCL_DEBUG` output, one line per event, in NCCL's shape:
//! `host:pid:tid [rank] ferrocm-ccl INFO message`.

use crate::config::DebugLevel;

#[derive(Clone, Debug)]
pub(crate) struct Log {
    pub level: DebugLevel,
    prefix: String,
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

impl Log {
    pub fn new(level: DebugLevel, rank: usize) -> Log {
        Log { level, prefix: format!("{}:{}", hostname(), std::process::id()) }.with_rank(rank)
    }

    fn with_rank(mut self, rank: usize) -> Log {
        self.prefix = format!("{}:{{tid}} [{rank}]", self.prefix);
        self
    }

    pub fn enabled(&self, level: DebugLevel) -> bool {
        self.level >= level && level != DebugLevel::None
    }

    fn emit(&self, tag: &str, msg: &str) {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        eprintln!("{} ferrocm-ccl {tag} {msg}", self.prefix.replace("{tid}", &tid.to_string()));
    }

    pub fn info(&self, msg: impl FnOnce() -> String) {
        if self.enabled(DebugLevel::Info) {
            self.emit("INFO", &msg());
        }
    }

    pub fn warn(&self, msg: impl FnOnce() -> String) {
        if self.enabled(DebugLevel::Warn) {
            self.emit("WARN", &msg());
        }
    }

    pub fn trace(&self, msg: impl FnOnce() -> String) {
        if self.enabled(DebugLevel::Trace) {
            self.emit("TRACE", &msg());
        }
    }
}

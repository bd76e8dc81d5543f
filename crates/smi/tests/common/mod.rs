//! Shared by the smi test binaries: the embedded fixtures and a fake `/proc` + `/sys` tree built
//! from them in a scratch directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The fixture files, embedded so the test binaries run from any directory.
pub const FILES: &[(&str, &str)] = &[
    ("proc_stat_a.txt", include_str!("../data/proc_stat_a.txt")),
    ("proc_stat_b.txt", include_str!("../data/proc_stat_b.txt")),
    ("proc_stat_2_6_kernel.txt", include_str!("../data/proc_stat_2_6_kernel.txt")),
    ("meminfo.txt", include_str!("../data/meminfo.txt")),
    ("meminfo_before_3_14.txt", include_str!("../data/meminfo_before_3_14.txt")),
];

pub const INTEL_SERVER: &str = include_str!("../data/intel_server.tree");
pub const AMD_TWO_SOCKETS: &str = include_str!("../data/amd_two_sockets.tree");
pub const ARM_BOARD: &str = include_str!("../data/arm_board.tree");
pub const CONTAINER: &str = include_str!("../data/container.tree");
pub const ACPI_ONLY: &str = include_str!("../data/acpi_only.tree");

pub fn file(name: &str) -> &'static str {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or_else(|| panic!("no fixture {name}"))
}

pub fn require_gpu() -> bool {
    std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// A fake machine: `root/proc` and `root/sys`, removed on drop.
pub struct Tree {
    pub root: PathBuf,
}

impl Tree {
    /// Writes a `.tree` fixture: one file per line, `path<TAB>contents`; `@name` stands for an
    /// embedded fixture file and `\n` for a line break.
    pub fn new(name: &str, tree: &str) -> Tree {
        let root = std::env::temp_dir().join(format!("ferrocm-smi-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for line in tree.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let (path, contents) = line.split_once('\t').unwrap_or_else(|| panic!("bad tree line {line:?}"));
            let contents = match contents.strip_prefix('@') {
                Some(f) => file(f).to_string(),
                None => contents.replace("\\n", "\n") + "\n",
            };
            write_file(&root, path, &contents);
        }
        std::fs::create_dir_all(root.join("proc")).unwrap();
        std::fs::create_dir_all(root.join("sys")).unwrap();
        Tree { root }
    }

    /// Replaces (or adds) one file.
    pub fn write(&self, path: &str, contents: &str) {
        write_file(&self.root, path, contents);
    }

    pub fn proc(&self) -> PathBuf {
        self.root.join("proc")
    }

    pub fn sys(&self) -> PathBuf {
        self.root.join("sys")
    }

    pub fn reader(&self) -> ferrocm_smi::host::HostReader {
        ferrocm_smi::host::HostReader::with_roots(self.proc(), self.sys())
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn write_file(root: &Path, path: &str, contents: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().expect("a file under the root")).expect("fixture directory");
    std::fs::write(p, contents).expect("fixture file");
}

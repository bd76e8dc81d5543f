//! The command-line front end shared by the `ferrocm-hipify` binary and
//! `ferrocm hipify`.
//!
//! Every hipify-clang and hipify-perl option is accepted, with one or two
//! dashes, values as `-o FILE` or `-o=FILE`, and `--` ending the options
//! (after input files, the rest are compiler options as in hipify-clang: their
//! `-D`/`-U` are applied, the others ignored). Options that steer hipify-clang's
//! clang front end cannot apply here; each is reported once on stderr.
//!
//! Files are never left half-written: every output goes to a uniquely named
//! temporary file in the destination directory and is renamed into place. A
//! read-only destination is refused, a destination's permissions are kept, a
//! symbolic link is followed to the file it names, and two inputs that would
//! be written to the same place are refused before anything is written.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::HipifyError;
use crate::stats::Stats;
use crate::tables::{tables, Api};
use crate::translate::{translate_bytes, HeaderStyle, Macro, Options, RuntimeInclude, Translation};

/// Extensions translated when a directory is given.
pub const SOURCE_EXTENSIONS: [&str; 10] = ["cu", "cuh", "cpp", "cxx", "cc", "c", "h", "hpp", "hxx", "inl"];

const HELP: &str = "\
usage: ferrocm hipify [options] [FILE|DIR]... [-- compiler options]

Translates CUDA sources to HIP as hipify-clang does. With no input, reads stdin
and writes stdout; files are written to stdout unless -o, --o-dir or --inplace
says otherwise; directories are walked recursively (.cu .cuh .cpp .cxx .cc .c
.h .hpp .hxx .inl).

output (one or two leading dashes; values as -o FILE or -o=FILE):
  -o FILE                          write the translation of the single input to FILE
  --o-dir DIR                      write translations under DIR (mirrors directory trees)
  --inplace                        rewrite inputs in place, keeping the original as FILE.prehip
  --no-backup                      with --inplace, keep no .prehip copy
  --no-output                      translate but write nothing
  --examine                        same as --no-output --print-stats
  --print-stats                    print statistics to stderr
  --print-stats-csv                write statistics as CSV (to --o-stats or hipify_stats.csv)
  --o-stats FILE                   where --print-stats-csv writes
  -v                               say what is written where
translation:
  --roc                            rocBLAS/rocRAND/rocSPARSE/rocSOLVER/MIOpen instead of hip* libraries
  --miopen                         cuDNN to MIOpen instead of hipDNN
  --use-hip-data-types             with --roc, hipDataType instead of rocblas_datatype
  --hip-kernel-execution-syntax    rewrite <<<...>>> launches into hipLaunchKernelGGL
  --cuda-kernel-execution-syntax   keep <<<...>>> launches (default)
  --skip-excluded-preprocessor-conditional-blocks, --default-preprocessor
                                   translate only the #if groups the preprocessor keeps
                                   (default: every group, as hipify-clang does)
  -D NAME[=VALUE], -U NAME         define or undefine a macro for that #if evaluation
  --amap                           with --default-preprocessor, also rename identifiers
                                   in excluded #if groups
  --hip-header-subdirs             ROCm 7 header paths (hipblas/hipblas.h) instead of HIPIFY's
  --experimental                   translate names experimental in HIP
  --whitelist=A,B                  never translate these identifiers
  --exclude-dirs=A,B               skip these directory names when walking trees
  --exclude-files=A,B              skip these file names when walking trees
  --quiet-warnings                 no unsupported-identifier warnings or notes
  --no-undocumented-features       leave half2 members (h.x) as they are; by default they
                                   become reinterpret_cast<half&>(h.x), as hipify-clang writes
  --no-warnings-on-undocumented-features
                                   no warning at each such rewrite
documentation:
  --md, --csv                      write the mapping tables as Markdown or CSV (into --o-dir or .)
  --doc-format=full|strict|compact, --doc-roc=skip|separate|joint
  --list-tables                    print how many names each table maps
  --help, --version, --versions
clang front-end options (no clang runs here; each is reported and ignored):
  -I DIR, --cuda-path, --cuda-gpu-arch, --clang-resource-directory, --temp-dir,
  --save-temps, --extra-arg(-before) (its -D/-U are applied), -p, --perl, --python,
  --o-hipify-perl-dir, --o-python-map-dir
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arity {
    Flag,
    Value,
}

/// Every option name (without dashes) and whether it takes a value.
const OPTIONS: &[(&str, Arity)] = &[
    ("o", Arity::Value),
    ("o-dir", Arity::Value),
    ("o-stats", Arity::Value),
    ("o-hipify-perl-dir", Arity::Value),
    ("o-python-map-dir", Arity::Value),
    ("temp-dir", Arity::Value),
    ("cuda-path", Arity::Value),
    ("cuda-gpu-arch", Arity::Value),
    ("clang-resource-directory", Arity::Value),
    ("doc-format", Arity::Value),
    ("doc-roc", Arity::Value),
    ("extra-arg", Arity::Value),
    ("extra-arg-before", Arity::Value),
    ("p", Arity::Value),
    ("whitelist", Arity::Value),
    ("exclude-dirs", Arity::Value),
    ("exclude-files", Arity::Value),
    ("I", Arity::Value),
    ("D", Arity::Value),
    ("U", Arity::Value),
    ("inplace", Arity::Flag),
    ("no-backup", Arity::Flag),
    ("no-output", Arity::Flag),
    ("examine", Arity::Flag),
    ("print-stats", Arity::Flag),
    ("print-stats-csv", Arity::Flag),
    ("roc", Arity::Flag),
    ("miopen", Arity::Flag),
    ("use-hip-data-types", Arity::Flag),
    ("experimental", Arity::Flag),
    ("amap", Arity::Flag),
    ("hip-kernel-execution-syntax", Arity::Flag),
    ("cuda-kernel-execution-syntax", Arity::Flag),
    ("skip-excluded-preprocessor-conditional-blocks", Arity::Flag),
    ("default-preprocessor", Arity::Flag),
    ("hip-header-subdirs", Arity::Flag),
    ("quiet-warnings", Arity::Flag),
    ("no-undocumented-features", Arity::Flag),
    ("no-warnings-on-undocumented-features", Arity::Flag),
    ("md", Arity::Flag),
    ("csv", Arity::Flag),
    ("perl", Arity::Flag),
    ("python", Arity::Flag),
    ("save-temps", Arity::Flag),
    ("list-tables", Arity::Flag),
    ("v", Arity::Flag),
    ("help", Arity::Flag),
    ("h", Arity::Flag),
    ("help-list", Arity::Flag),
    ("help-hidden", Arity::Flag),
    ("help-list-hidden", Arity::Flag),
    ("version", Arity::Flag),
    ("versions", Arity::Flag),
];

/// Options that only steer hipify-clang's clang front end or its script
/// generators, with the reason each has no effect here.
const NO_EFFECT: &[(&str, &str)] = &[
    ("I", "headers are not read, so include directories are not searched"),
    ("cuda-path", "no clang or CUDA installation is used"),
    ("cuda-gpu-arch", "no clang or CUDA installation is used"),
    ("clang-resource-directory", "no clang or CUDA installation is used"),
    ("temp-dir", "no temporary files besides the outputs' own are made"),
    ("save-temps", "no temporary files besides the outputs' own are made"),
    ("p", "no compilation database is read; give -D options directly"),
    ("extra-arg", "compiler arguments other than -D and -U have no effect"),
    ("extra-arg-before", "compiler arguments other than -D and -U have no effect"),
    ("perl", "hipify-perl is not generated; ferrocm hipify replaces it"),
    ("python", "the hipify-python map is not generated; ferrocm hipify replaces it"),
    ("o-hipify-perl-dir", "hipify-perl is not generated"),
    ("o-python-map-dir", "the hipify-python map is not generated"),
];

#[derive(Debug, Default)]
struct Args {
    options: Options,
    output: Option<PathBuf>,
    output_dir: Option<PathBuf>,
    stats_file: Option<PathBuf>,
    inplace: bool,
    no_backup: bool,
    no_output: bool,
    print_stats: bool,
    print_stats_csv: bool,
    quiet_warnings: bool,
    verbose: bool,
    list_tables: bool,
    doc_markdown: bool,
    doc_csv: bool,
    doc_roc: bool,
    exclude_dirs: Vec<String>,
    exclude_files: Vec<String>,
    /// Options accepted without effect, each with the reason, in order given.
    no_effect: Vec<(String, &'static str)>,
    help: bool,
    version: bool,
    versions: bool,
    inputs: Vec<PathBuf>,
}

fn split_list(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

/// Applies a compiler argument (after `--` or in `--extra-arg`): `-D`/`-U` are
/// kept, anything else is reported as having no effect.
fn compiler_argument(a: &mut Args, arg: &str, next: &mut dyn FnMut() -> Option<String>) {
    let (kind, rest) = match arg.get(..2) {
        Some(k @ ("-D" | "-U")) => (k, &arg[2..]),
        _ => {
            a.no_effect.push((arg.to_string(), "compiler arguments other than -D and -U have no effect"));
            return;
        }
    };
    let value = if rest.is_empty() { next().unwrap_or_default() } else { rest.to_string() };
    push_macro(a, kind == "-D", &value);
}

fn push_macro(a: &mut Args, define: bool, value: &str) {
    if value.is_empty() {
        return;
    }
    if define {
        let (name, value) = value.split_once('=').unwrap_or((value, "1"));
        a.options.macros.push(Macro::Define { name: name.to_string(), value: value.to_string() });
    } else {
        a.options.macros.push(Macro::Undefine { name: value.to_string() });
    }
}

fn parse_args(args: Vec<OsString>) -> Result<Args, HipifyError> {
    let mut a = Args::default();
    let mut it = args.into_iter().peekable();
    while let Some(arg) = it.next() {
        let Some(s) = arg.to_str().map(str::to_string) else {
            a.inputs.push(PathBuf::from(arg));
            continue;
        };
        if s == "--" {
            // hipify-clang: what follows are compiler options; files given only
            // there are inputs too.
            let rest: Vec<String> = it.by_ref().map(|x| x.to_string_lossy().into_owned()).collect();
            let mut rest = rest.into_iter();
            while let Some(r) = rest.next() {
                if r.starts_with('-') {
                    compiler_argument(&mut a, &r, &mut || rest.next());
                } else if a.inputs.is_empty() {
                    a.inputs.push(PathBuf::from(r));
                }
            }
            break;
        }
        if !s.starts_with('-') || s == "-" {
            a.inputs.push(PathBuf::from(s));
            continue;
        }
        // `-DNAME`, `-UNAME`, `-IDIR`: the value written against the option.
        if !s.starts_with("--")
            && s.len() > 2
            && matches!(&s[..2], "-D" | "-U" | "-I")
            && s.as_bytes()[2] != b'='
        {
            match &s[..2] {
                "-I" => a.no_effect.push((s.clone(), NO_EFFECT[0].1)),
                k => push_macro(&mut a, k == "-D", &s[2..]),
            }
            continue;
        }
        let body = s.trim_start_matches('-');
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(&(name, arity)) = OPTIONS.iter().find(|(n, _)| *n == name) else {
            return Err(HipifyError::UnknownOption { option: s.clone() });
        };
        let value = match (arity, inline) {
            (Arity::Flag, Some(_)) => {
                return Err(HipifyError::BadValue {
                    option: s.clone(),
                    value: s.split_once('=').map_or(String::new(), |(_, v)| v.to_string()),
                    allowed: "no value (it is a flag)",
                })
            }
            (Arity::Flag, None) => String::new(),
            (Arity::Value, Some(v)) if !v.is_empty() => v,
            (Arity::Value, Some(_)) => return Err(HipifyError::MissingValue { option: s.clone() }),
            (Arity::Value, None) => match it.next() {
                Some(v) => v.to_string_lossy().into_owned(),
                None => return Err(HipifyError::MissingValue { option: s.clone() }),
            },
        };
        if let Some((_, why)) = NO_EFFECT.iter().find(|(n, _)| *n == name) {
            if name == "extra-arg" || name == "extra-arg-before" {
                compiler_argument(&mut a, &value, &mut || None);
            } else {
                a.no_effect.push((format!("-{}{name}", if name.len() > 1 { "-" } else { "" }), why));
            }
            continue;
        }
        match name {
            "o" => a.output = Some(PathBuf::from(value)),
            "o-dir" => a.output_dir = Some(PathBuf::from(value)),
            "o-stats" => a.stats_file = Some(PathBuf::from(value)),
            "D" => push_macro(&mut a, true, &value),
            "U" => push_macro(&mut a, false, &value),
            "whitelist" => a.options.keep.extend(split_list(&value)),
            "exclude-dirs" => a.exclude_dirs.extend(split_list(&value)),
            "exclude-files" => a.exclude_files.extend(split_list(&value)),
            "doc-format" => {
                if !matches!(value.as_str(), "full" | "strict" | "compact") {
                    return Err(HipifyError::BadValue {
                        option: s,
                        value,
                        allowed: "full, strict or compact",
                    });
                }
            }
            "doc-roc" => match value.as_str() {
                "skip" => a.doc_roc = false,
                "separate" | "joint" => a.doc_roc = true,
                _ => {
                    return Err(HipifyError::BadValue {
                        option: s,
                        value,
                        allowed: "skip, separate or joint",
                    })
                }
            },
            "inplace" => a.inplace = true,
            "no-backup" => a.no_backup = true,
            "no-output" => a.no_output = true,
            "examine" => {
                a.no_output = true;
                a.print_stats = true;
            }
            "print-stats" => a.print_stats = true,
            "print-stats-csv" => a.print_stats_csv = true,
            "roc" => a.options.roc = true,
            "miopen" => a.options.miopen = true,
            "use-hip-data-types" => a.options.use_hip_data_types = true,
            "experimental" => a.options.experimental = true,
            "amap" => a.options.amap = true,
            "hip-kernel-execution-syntax" => a.options.hip_kernel_execution_syntax = true,
            // hipify-clang: the HIP syntax option overrides this one whatever the order.
            "cuda-kernel-execution-syntax" => {}
            "skip-excluded-preprocessor-conditional-blocks" | "default-preprocessor" => {
                a.options.default_preprocessor = true
            }
            "hip-header-subdirs" => a.options.header_style = HeaderStyle::Subdirectories,
            "quiet-warnings" => a.quiet_warnings = true,
            "no-undocumented-features" => a.options.undocumented_features = false,
            "no-warnings-on-undocumented-features" => a.options.warn_undocumented = false,
            "md" => a.doc_markdown = true,
            "csv" => a.doc_csv = true,
            "list-tables" => a.list_tables = true,
            "v" => a.verbose = true,
            "help" | "h" | "help-list" | "help-hidden" | "help-list-hidden" => a.help = true,
            "version" => a.version = true,
            "versions" => a.versions = true,
            _ => return Err(HipifyError::UnknownOption { option: s }),
        }
    }
    // hipify-clang keeps every `#if` group unless told otherwise, so macros
    // decide nothing then (clang would still expand them; nothing here does).
    if !a.options.default_preprocessor && !a.options.macros.is_empty() {
        a.no_effect.push((
            "-D/-U".to_string(),
            "every #if group is translated unless --default-preprocessor is given",
        ));
    }
    Ok(a)
}

/// Where one translation goes.
#[derive(Debug, Clone)]
enum Sink {
    Stdout,
    /// The destination, symbolic links resolved.
    File(PathBuf),
    /// The input itself (symbolic links resolved).
    InPlace(PathBuf),
    Nowhere,
}

#[derive(Debug)]
struct Job {
    /// `None` for stdin.
    input: Option<PathBuf>,
    sink: Sink,
}

fn has_source_extension(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
}

fn walk(a: &Args, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), HipifyError> {
    let io = |source| HipifyError::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<_> = fs::read_dir(dir).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let ty = e.file_type().map_err(io)?;
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if ty.is_dir() {
            if !a.exclude_dirs.contains(&name) {
                walk(a, &p, out)?;
            }
        } else if ty.is_file() && has_source_extension(&p) && !a.exclude_files.contains(&name) {
            out.push(p);
        }
    }
    Ok(())
}

/// `path` with symbolic links resolved, for a file that may not exist yet.
fn resolve(path: &Path) -> Result<PathBuf, HipifyError> {
    resolve_cached(path, &mut HashMap::new())
}

/// [`resolve`], remembering resolved parent directories: a tree of a thousand
/// outputs has a few dozen directories.
fn resolve_cached(path: &Path, parents: &mut HashMap<PathBuf, PathBuf>) -> Result<PathBuf, HipifyError> {
    let io = |source| HipifyError::Io { path: path.to_path_buf(), source };
    match fs::symlink_metadata(path) {
        Ok(_) => fs::canonicalize(path).map_err(io),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let name = path.file_name().ok_or_else(|| HipifyError::Usage {
                reason: format!("{} does not name a file", path.display()),
            })?;
            let dir = match parents.get(parent) {
                Some(d) => d.clone(),
                None => {
                    let d = fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
                    parents.insert(parent.to_path_buf(), d.clone());
                    d
                }
            };
            Ok(dir.join(name))
        }
        Err(e) => Err(io(e)),
    }
}

fn plan(a: &Args) -> Result<Vec<Job>, HipifyError> {
    let usage = |reason: &str| HipifyError::Usage { reason: reason.to_string() };
    if a.inplace && a.output.is_some() {
        return Err(HipifyError::ConflictingOptions { first: "--inplace", second: "-o" });
    }
    if a.inplace && a.output_dir.is_some() {
        return Err(HipifyError::ConflictingOptions { first: "--inplace", second: "--o-dir" });
    }
    if a.output.is_some() && a.output_dir.is_some() {
        return Err(HipifyError::ConflictingOptions { first: "-o", second: "--o-dir" });
    }
    if a.no_backup && !a.inplace {
        return Err(usage("--no-backup applies to --inplace only"));
    }
    if a.inputs.is_empty() || a.inputs == [PathBuf::from("-")] {
        if a.inplace {
            return Err(usage("--inplace needs input files"));
        }
        let sink = match (&a.output, &a.output_dir, a.no_output) {
            (_, _, true) => Sink::Nowhere,
            (Some(o), _, _) => Sink::File(resolve(o)?),
            (None, Some(_), _) => return Err(usage("--o-dir needs input files (stdin has no name)")),
            (None, None, _) => Sink::Stdout,
        };
        return Ok(vec![Job { input: None, sink }]);
    }
    // Inputs first, so that outputs can be checked against them.
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new(); // (file, path relative to the output dir)
    for input in &a.inputs {
        let meta = fs::metadata(input).map_err(|source| HipifyError::Io { path: input.clone(), source })?;
        if meta.is_dir() {
            if !(a.inplace || a.no_output || a.output_dir.is_some()) {
                return Err(usage(&format!(
                    "{} is a directory: give --inplace, --o-dir DIR or --examine",
                    input.display()
                )));
            }
            let mut found = Vec::new();
            walk(a, input, &mut found)?;
            for f in found {
                let rel = f.strip_prefix(input).unwrap_or(&f).to_path_buf();
                files.push((f, rel));
            }
        } else {
            let rel = PathBuf::from(input.file_name().unwrap_or(input.as_os_str()));
            files.push((input.clone(), rel));
        }
    }
    if a.output.is_some() && files.len() > 1 {
        return Err(usage("-o takes a single input file; use --o-dir for several"));
    }
    let mut inputs: HashMap<PathBuf, PathBuf> = HashMap::new();
    for (f, _) in &files {
        if let Ok(c) = fs::canonicalize(f) {
            inputs.entry(c).or_insert_with(|| f.clone());
        }
    }
    let mut outputs: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut parents = HashMap::new();
    let mut jobs = Vec::with_capacity(files.len());
    for (f, rel) in files {
        let sink = if a.no_output {
            Sink::Nowhere
        } else if a.inplace {
            Sink::InPlace(resolve_cached(&f, &mut parents)?)
        } else if let Some(dir) = &a.output_dir {
            Sink::File(resolve_cached(&dir.join(&rel), &mut parents)?)
        } else if let Some(o) = &a.output {
            Sink::File(resolve(o)?)
        } else {
            Sink::Stdout
        };
        if let Sink::File(out) | Sink::InPlace(out) = &sink {
            if let Some(first) = outputs.insert(out.clone(), f.clone()) {
                return Err(HipifyError::OutputCollision { output: out.clone(), first, second: f });
            }
            if matches!(sink, Sink::File(_)) && inputs.contains_key(out) {
                return Err(HipifyError::OverwritesInput { path: out.clone() });
            }
        }
        jobs.push(Job { input: Some(f), sink });
    }
    Ok(jobs)
}

/// Makes temporary names unique within the process; the process id makes
/// them unique between processes, and `create_new` guarantees it.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` (symbolic links already resolved) through a
/// temporary file in the same directory and a rename, so readers never see a
/// half-written file. An existing destination must be writable and keeps its
/// permissions. `durable` syncs the data before the rename, which in-place
/// rewriting of user sources asks for.
fn write_atomic(path: &Path, bytes: &[u8], durable: bool) -> Result<(), HipifyError> {
    let io = |source| HipifyError::Io { path: path.to_path_buf(), source };
    let existing = match fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    if let Some(m) = &existing {
        if !m.is_file() {
            return Err(HipifyError::Usage { reason: format!("{} is not a regular file", path.display()) });
        }
        if m.permissions().readonly() {
            return Err(HipifyError::ReadOnlyOutput { path: path.to_path_buf() });
        }
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let (tmp, mut file) = loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = OsString::from(".");
        name.push(path.file_name().unwrap_or_default());
        name.push(format!(".hipify-{}-{n}.tmp", std::process::id()));
        let tmp = path.with_file_name(name);
        match fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(e)),
        }
    };
    let result = (|| {
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        if let Some(m) = &existing {
            fs::set_permissions(&tmp, m.permissions())?;
        }
        drop(file);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(io)
}

fn backup_path(p: &Path) -> PathBuf {
    let mut name = p.as_os_str().to_os_string();
    name.push(".prehip");
    PathBuf::from(name)
}

/// Outcome of one job, reported in input order.
struct Done {
    label: String,
    translation: Option<Translation>,
    stdout: Option<Vec<u8>>,
    written: Option<PathBuf>,
    error: Option<HipifyError>,
}

fn run_job(job: &Job, a: &Args) -> Done {
    let label = job.input.as_ref().map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string());
    // hipify-clang compiles every input as CUDA, so every file that uses CUDA
    // gets the runtime header nvcc would have included.
    let mut options = a.options.clone();
    options.runtime_include = RuntimeInclude::ForCuda;
    let mut done = Done { label, translation: None, stdout: None, written: None, error: None };
    let bytes = match &job.input {
        None => {
            let mut buf = Vec::new();
            if let Err(source) = std::io::stdin().read_to_end(&mut buf) {
                done.error = Some(HipifyError::Io { path: PathBuf::from("<stdin>"), source });
                return done;
            }
            buf
        }
        // In place, the current file is translated (never the backup, which
        // would lose edits made since the first run); translating HIP output
        // again changes nothing, so a second run is harmless.
        Some(p) => match fs::read(p) {
            Ok(b) => b,
            Err(source) => {
                done.error = Some(HipifyError::Io { path: p.clone(), source });
                return done;
            }
        },
    };
    let t = match translate_bytes(&bytes, &options) {
        Ok(t) => t,
        Err(e) => {
            done.error = Some(e);
            return done;
        }
    };
    let written = match &job.sink {
        Sink::Stdout => {
            done.stdout = Some(t.output_bytes().to_vec());
            Ok(())
        }
        Sink::File(out) => {
            write_atomic(out, t.text.as_bytes(), false).map(|_| done.written = Some(out.clone()))
        }
        Sink::InPlace(p) if t.output_bytes() != bytes.as_slice() => {
            let backup = backup_path(p);
            // Refuse a read-only file before making its backup.
            let writable = match fs::metadata(p) {
                Ok(m) if m.permissions().readonly() => Err(HipifyError::ReadOnlyOutput { path: p.clone() }),
                Ok(_) => Ok(()),
                Err(source) => Err(HipifyError::Io { path: p.clone(), source }),
            };
            // The first backup is the pristine source; later runs keep it.
            writable
                .and_then(|_| {
                    if a.no_backup || backup.exists() {
                        Ok(())
                    } else {
                        write_atomic(&backup, &bytes, true)
                    }
                })
                .and_then(|_| write_atomic(p, t.output_bytes(), true))
                .map(|_| done.written = Some(p.clone()))
        }
        Sink::InPlace(_) | Sink::Nowhere => Ok(()),
    };
    done.error = written.err();
    done.translation = Some(t);
    done
}

/// What a command line did: its exit code and every error it met.
#[derive(Debug)]
#[non_exhaustive]
pub struct CliOutcome {
    /// 0 on success, 1 when any input failed, 2 on a usage error.
    pub code: i32,
    pub errors: Vec<HipifyError>,
}

/// Runs `ferrocm hipify` with `args` (without the program name) and returns
/// the process exit code: 0 on success, 1 when any input failed, 2 on a usage error.
pub fn cli_main(args: Vec<OsString>) -> i32 {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    cli_run(args, &mut stdout.lock(), &mut stderr.lock()).code
}

/// [`cli_main`] with its output streams given, returning the errors as values.
pub fn cli_run(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> CliOutcome {
    let usage_error = |e: HipifyError, err: &mut dyn Write| {
        let _ = writeln!(err, "hipify: error: {e}");
        CliOutcome { code: 2, errors: vec![e] }
    };
    let a = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return usage_error(e, err),
    };
    if a.help {
        let _ = out.write_all(HELP.as_bytes());
        return CliOutcome { code: 0, errors: Vec::new() };
    }
    if a.version || a.versions {
        let _ = writeln!(out, "ferrocm-hipify {}", env!("CARGO_PKG_VERSION"));
        if a.versions {
            let _ = writeln!(
                out,
                "mapping tables: HIPIFY's CUDA-to-HIP tables (see data/README.md); no clang is used"
            );
        }
        return CliOutcome { code: 0, errors: Vec::new() };
    }
    if a.list_tables {
        let (mut m, mut u) = (0, 0);
        for (api, mapped, unsupported) in crate::tables::table_counts() {
            let _ = writeln!(out, "{:<8} {mapped:>6} mapped {unsupported:>6} unsupported", api.name());
            m += mapped;
            u += unsupported;
        }
        let _ = writeln!(out, "{:<8} {m:>6} mapped {u:>6} unsupported", "total");
        return CliOutcome { code: 0, errors: Vec::new() };
    }
    if !a.quiet_warnings {
        let mut seen: Vec<&str> = Vec::new();
        for (opt, why) in &a.no_effect {
            if !seen.contains(&opt.as_str()) {
                seen.push(opt);
                let _ = writeln!(err, "hipify: note: '{opt}' has no effect: {why}");
            }
        }
    }
    if a.doc_markdown || a.doc_csv {
        let dir = a.output_dir.clone().unwrap_or_else(|| PathBuf::from("."));
        let mut errors = Vec::new();
        for (markdown, on) in [(true, a.doc_markdown), (false, a.doc_csv)] {
            if on {
                if let Err(e) = write_docs(&dir, markdown, a.doc_roc, a.verbose, err) {
                    let _ = writeln!(err, "hipify: error: {e}");
                    errors.push(e);
                }
            }
        }
        if a.inputs.is_empty() || !errors.is_empty() {
            return CliOutcome { code: i32::from(!errors.is_empty()), errors };
        }
    }
    let jobs = match plan(&a) {
        Ok(j) => j,
        // A missing or unreadable input is a failed input, not a usage error.
        Err(e @ HipifyError::Io { .. }) => {
            let _ = writeln!(err, "hipify: error: {e}");
            return CliOutcome { code: 1, errors: vec![e] };
        }
        Err(e) => return usage_error(e, err),
    };
    let done: Vec<Done> = jobs.par_iter().map(|j| run_job(j, &a)).collect();

    let mut total = Stats::default();
    let mut errors = Vec::new();
    for (d, job) in done.into_iter().zip(&jobs) {
        if let Some(text) = &d.stdout {
            let _ = out.write_all(text);
        }
        if let Some(t) = &d.translation {
            if !a.quiet_warnings {
                for w in &t.warnings {
                    let _ = writeln!(err, "{}:{w}", d.label);
                }
            }
            let mut s = t.stats.clone();
            s.files = 1;
            // As hipify-perl does, files without any CUDA reference get no report of their own.
            let any = s.converted() + s.unconverted() + s.kernel_launches > 0;
            if a.print_stats && jobs.len() > 1 && any {
                let _ = err.write_all(s.report(&d.label).as_bytes());
            }
            total.merge(&s);
        }
        if a.verbose {
            if let Some(w) = &d.written {
                let _ = writeln!(err, "hipify: {} -> {}", d.label, w.display());
            }
        }
        if let Some(e) = d.error {
            // An error that names the input already is not prefixed with it again.
            let names_input = matches!(&e, HipifyError::Io { path, .. } if Some(path) == job.input.as_ref());
            if names_input {
                let _ = writeln!(err, "hipify: error: {e}");
            } else {
                let _ = writeln!(err, "hipify: error: {}: {e}", d.label);
            }
            errors.push(e);
        }
    }
    let _ = out.flush();
    if a.print_stats {
        let title = if jobs.len() == 1 {
            jobs[0].input.as_ref().map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string())
        } else {
            format!("{} files in total", total.files)
        };
        let _ = err.write_all(total.report(&title).as_bytes());
    }
    if a.print_stats_csv {
        let path = a.stats_file.clone().unwrap_or_else(|| PathBuf::from("hipify_stats.csv"));
        let title = match (&jobs[..], jobs.first().and_then(|j| j.input.as_ref())) {
            ([_], Some(p)) => p.display().to_string(),
            ([_], None) => "<stdin>".to_string(),
            _ => "total".to_string(),
        };
        if let Err(e) = resolve(&path).and_then(|p| write_atomic(&p, total.csv(&title).as_bytes(), false)) {
            let _ = writeln!(err, "hipify: error: {e}");
            errors.push(e);
        }
    }
    CliOutcome { code: i32::from(!errors.is_empty()), errors }
}

/// Writes the mapping tables as documentation, one file per API, in the
/// manner of hipify-clang's `--md`/`--csv`.
fn write_docs(
    dir: &Path,
    markdown: bool,
    roc: bool,
    verbose: bool,
    err: &mut dyn Write,
) -> Result<(), HipifyError> {
    let t = tables();
    for api in Api::ALL {
        let mut rows: Vec<(&str, &str, &str)> = t
            .idents
            .iter()
            .filter(|(_, e)| e.api == api)
            .map(|(k, e)| (*k, e.hip.unwrap_or(""), e.roc.unwrap_or("")))
            .collect();
        if api == Api::Include {
            rows.extend(t.headers.iter().map(|(k, e)| (*k, e.hip.unwrap_or(""), e.roc.unwrap_or(""))));
        }
        if rows.is_empty() {
            continue;
        }
        rows.sort_unstable();
        let mut text = String::new();
        let title = api.name().to_uppercase();
        if markdown {
            text.push_str(&format!("# {title} API supported by HIP\n\n"));
            text.push_str(if roc {
                "|**CUDA**|**HIP**|**ROC**|\n|:--|:--|:--|\n"
            } else {
                "|**CUDA**|**HIP**|\n|:--|:--|\n"
            });
            for (c, h, r) in rows {
                if roc {
                    text.push_str(&format!("|`{c}`|{}|{}|\n", code(h), code(r)));
                } else {
                    text.push_str(&format!("|`{c}`|{}|\n", code(h)));
                }
            }
        } else {
            text.push_str(if roc { "CUDA,HIP,ROC\n" } else { "CUDA,HIP\n" });
            for (c, h, r) in rows {
                if roc {
                    text.push_str(&format!("{c},{h},{r}\n"));
                } else {
                    text.push_str(&format!("{c},{h}\n"));
                }
            }
        }
        let ext = if markdown { "md" } else { "csv" };
        let path = resolve(&dir.join(format!("{title}_API_supported_by_HIP.{ext}")))?;
        write_atomic(&path, text.as_bytes(), false)?;
        if verbose {
            let _ = writeln!(err, "hipify: wrote {}", path.display());
        }
    }
    Ok(())
}

fn code(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("`{s}`")
    }
}

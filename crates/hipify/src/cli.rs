//! The command-line front end shared by the `ferrocm-hipify` binary and
//! `ferrocm hipify`.
//!
//! Options follow hipify-perl and hipify-clang so existing build scripts keep
//! working: every long option is accepted with one or two dashes, values come
//! as `-o FILE` or `-o=FILE`, and `--` ends the options (after input files,
//! the rest are compiler options as in hipify-clang and are ignored).

use std::ffi::OsString;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::HipifyError;
use crate::stats::Stats;
use crate::translate::{translate_bytes, Options, RuntimeInclude, Translation};

/// Extensions translated when a directory is given.
pub const SOURCE_EXTENSIONS: [&str; 10] = ["cu", "cuh", "cpp", "cxx", "cc", "c", "h", "hpp", "hxx", "inl"];

const HELP: &str = "\
usage: ferrocm hipify [options] [FILE|DIR]... [-- compiler options]

Translates CUDA sources to HIP. With no input, reads stdin and writes stdout;
files are written to stdout unless -o, --o-dir or --inplace says otherwise;
directories are walked recursively (.cu .cuh .cpp .cxx .cc .c .h .hpp .hxx .inl).

options (one or two leading dashes):
  -o FILE, -o=FILE                 write the translation of the single input to FILE
  --o-dir DIR                      write translations under DIR (mirrors directory trees)
  --inplace                        rewrite inputs in place, keeping FILE.prehip as backup
  --no-output                      translate but write nothing
  --examine                        same as --no-output --print-stats
  --print-stats                    print statistics to stderr
  --print-stats-csv                write statistics as CSV (to --o-stats or hipify_stats.csv)
  --o-stats FILE                   where --print-stats-csv writes
  --roc                            use rocBLAS/rocRAND/rocSPARSE instead of hipBLAS/hipRAND/hipSPARSE
  --hip-kernel-execution-syntax    rewrite <<<...>>> launches into hipLaunchKernelGGL
  --cuda-kernel-execution-syntax   keep <<<...>>> launches (default)
  --experimental                   accepted for compatibility
  --amap                           also rename identifiers inside #if 0 blocks
  --quiet-warnings                 do not print unsupported-identifier warnings
  --list-tables                    print how many names each table maps
  --cuda-path, -I, -D, ...         hipify-clang front-end options: accepted and ignored
  --help, --version
";

#[derive(Debug, Default)]
struct Args {
    options: Options,
    output: Option<PathBuf>,
    output_dir: Option<PathBuf>,
    stats_file: Option<PathBuf>,
    inplace: bool,
    no_output: bool,
    print_stats: bool,
    print_stats_csv: bool,
    quiet_warnings: bool,
    list_tables: bool,
    /// Accepted compiler-front-end options that have no effect here.
    ignored: Vec<String>,
    help: bool,
    version: bool,
    inputs: Vec<PathBuf>,
}

fn parse_args(args: Vec<OsString>) -> Result<Args, HipifyError> {
    let mut a = Args::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let Some(s) = arg.to_str() else {
            a.inputs.push(PathBuf::from(arg));
            continue;
        };
        if s == "--" {
            // hipify-clang: what follows the inputs are compiler options.
            if a.inputs.is_empty() {
                a.inputs
                    .extend(it.by_ref().filter(|x| !x.to_string_lossy().starts_with('-')).map(PathBuf::from));
            }
            break;
        }
        if !s.starts_with('-') || s == "-" {
            a.inputs.push(PathBuf::from(s));
            continue;
        }
        let body = s.trim_start_matches('-');
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let value = |it: &mut std::vec::IntoIter<OsString>| -> Result<PathBuf, HipifyError> {
            match inline.clone() {
                Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
                Some(_) => Err(HipifyError::MissingValue { option: s.to_string() }),
                None => it
                    .next()
                    .map(PathBuf::from)
                    .ok_or_else(|| HipifyError::MissingValue { option: s.to_string() }),
            }
        };
        let flag = |a: &mut Args, name: &str| -> bool {
            match name {
                "inplace" => a.inplace = true,
                "no-output" => a.no_output = true,
                "examine" => {
                    a.no_output = true;
                    a.print_stats = true;
                }
                "print-stats" => a.print_stats = true,
                "print-stats-csv" => a.print_stats_csv = true,
                "roc" => a.options.roc = true,
                "experimental" => a.options.experimental = true,
                "amap" => a.options.amap = true,
                "hip-kernel-execution-syntax" => a.options.hip_kernel_execution_syntax = true,
                "cuda-kernel-execution-syntax" => a.options.hip_kernel_execution_syntax = false,
                "quiet-warnings" => a.quiet_warnings = true,
                "list-tables" => a.list_tables = true,
                "help" | "h" => a.help = true,
                "version" => a.version = true,
                _ => return false,
            }
            true
        };
        match name {
            "o" | "output" => a.output = Some(value(&mut it)?),
            "o-dir" => a.output_dir = Some(value(&mut it)?),
            "o-stats" => a.stats_file = Some(value(&mut it)?),
            // hipify-clang options that only steer its clang front end; they do not
            // change what this translator writes, so build scripts may keep them.
            "cuda-path" | "cuda-gpu-arch" | "clang-resource-directory" | "temp-dir" => {
                value(&mut it)?;
                a.ignored.push(s.to_string());
            }
            "save-temps" | "default-preprocessor" if inline.is_none() => a.ignored.push(s.to_string()),
            "I" | "D" | "include" => {
                value(&mut it)?;
                a.ignored.push(s.to_string());
            }
            _ if s.starts_with("-I") || s.starts_with("-D") => a.ignored.push(s.to_string()),
            _ if inline.is_none() && flag(&mut a, name) => {}
            _ => return Err(HipifyError::UnknownOption { option: s.to_string() }),
        }
    }
    Ok(a)
}

/// Where one translation goes.
#[derive(Debug, Clone)]
enum Sink {
    Stdout,
    File(PathBuf),
    InPlace,
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

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), HipifyError> {
    let io = |source| HipifyError::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<_> = fs::read_dir(dir).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let ty = e.file_type().map_err(io)?;
        let p = e.path();
        if ty.is_dir() {
            walk(&p, out)?;
        } else if ty.is_file() && has_source_extension(&p) {
            out.push(p);
        }
    }
    Ok(())
}

fn plan(a: &Args) -> Result<Vec<Job>, HipifyError> {
    let usage = |reason: &str| HipifyError::Usage { reason: reason.to_string() };
    let sink_for = |file: &Path, rel: &Path| -> Sink {
        if a.no_output {
            Sink::Nowhere
        } else if a.inplace {
            Sink::InPlace
        } else if let Some(dir) = &a.output_dir {
            Sink::File(dir.join(rel))
        } else if let Some(o) = &a.output {
            Sink::File(o.clone())
        } else {
            let _ = file;
            Sink::Stdout
        }
    };
    if a.inplace && (a.output.is_some() || a.output_dir.is_some()) {
        return Err(usage("--inplace cannot be combined with -o or --o-dir"));
    }
    if a.inputs.is_empty() || a.inputs == [PathBuf::from("-")] {
        if a.inplace {
            return Err(usage("--inplace needs input files"));
        }
        let sink = match (&a.output, a.no_output) {
            (_, true) => Sink::Nowhere,
            (Some(o), _) => Sink::File(o.clone()),
            (None, _) => Sink::Stdout,
        };
        return Ok(vec![Job { input: None, sink }]);
    }
    let mut jobs = Vec::new();
    for input in &a.inputs {
        if input.is_dir() {
            if !(a.inplace || a.no_output || a.output_dir.is_some()) {
                return Err(usage(&format!(
                    "{} is a directory: give --inplace, --o-dir DIR or --examine",
                    input.display()
                )));
            }
            let mut files = Vec::new();
            walk(input, &mut files)?;
            for f in files {
                let rel = f.strip_prefix(input).unwrap_or(&f).to_path_buf();
                let sink = sink_for(&f, &rel);
                jobs.push(Job { input: Some(f), sink });
            }
        } else {
            let rel = PathBuf::from(input.file_name().unwrap_or(input.as_os_str()));
            jobs.push(Job { input: Some(input.clone()), sink: sink_for(input, &rel) });
        }
    }
    let to_one_file = jobs.iter().filter(|j| matches!(j.sink, Sink::File(_))).count();
    if a.output.is_some() && a.output_dir.is_none() && to_one_file > 1 {
        return Err(usage("-o takes a single input file; use --o-dir for several"));
    }
    Ok(jobs)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a
/// rename, so readers never see a half-written file. `durable` also syncs the
/// data before the rename, which in-place rewriting of user sources asks for.
fn write_atomic(path: &Path, bytes: &[u8], like: Option<&Path>, durable: bool) -> Result<(), HipifyError> {
    let io = |source| HipifyError::Io { path: path.to_path_buf(), source };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".hipify-tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if durable {
            f.sync_all()?;
        }
        if let Some(src) = like {
            if let Ok(meta) = fs::metadata(src) {
                fs::set_permissions(&tmp, meta.permissions())?;
            }
        }
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
    stdout: Option<String>,
    error: Option<HipifyError>,
}

fn run_job(job: &Job, base: &Options) -> Done {
    let label = job.input.as_ref().map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string());
    let mut options = base.clone();
    // nvcc includes cuda_runtime.h implicitly only for .cu files.
    let ext = job.input.as_ref().and_then(|p| p.extension()).and_then(|e| e.to_str());
    options.runtime_include = match ext {
        None | Some("cu" | "cuh") => RuntimeInclude::ForCuda,
        Some(_) => RuntimeInclude::ForDeviceCode,
    };
    let fail =
        |e: HipifyError| Done { label: label.clone(), translation: None, stdout: None, error: Some(e) };
    let bytes = match &job.input {
        None => {
            let mut buf = Vec::new();
            if let Err(source) = std::io::stdin().read_to_end(&mut buf) {
                return fail(HipifyError::Io { path: PathBuf::from("<stdin>"), source });
            }
            buf
        }
        Some(p) => {
            // As hipify-perl does, re-running --inplace translates the pristine backup.
            let from = if matches!(job.sink, Sink::InPlace) && backup_path(p).is_file() {
                backup_path(p)
            } else {
                p.clone()
            };
            match fs::read(&from) {
                Ok(b) => b,
                Err(source) => return fail(HipifyError::Io { path: from, source }),
            }
        }
    };
    let t = match translate_bytes(&bytes, &options) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let mut stdout = None;
    let written = match (&job.sink, &job.input) {
        (Sink::Stdout, _) => {
            stdout = Some(t.text.clone());
            Ok(())
        }
        (Sink::File(out), input) => write_atomic(out, t.text.as_bytes(), input.as_deref(), false),
        (Sink::InPlace, Some(p)) => {
            let current = fs::read(p).unwrap_or_default();
            if current == t.text.as_bytes() {
                Ok(())
            } else {
                let backup = backup_path(p);
                let b = if backup.exists() { Ok(()) } else { write_atomic(&backup, &bytes, Some(p), true) };
                b.and_then(|_| write_atomic(p, t.text.as_bytes(), Some(p), true))
            }
        }
        _ => Ok(()),
    };
    if let Err(e) = written {
        return Done { label, translation: Some(t), stdout: None, error: Some(e) };
    }
    Done { label, translation: Some(t), stdout, error: None }
}

/// Runs `ferrocm hipify` with `args` (without the program name) and returns
/// the process exit code: 0 on success, 1 when any input failed, 2 on a usage error.
pub fn cli_main(args: Vec<OsString>) -> i32 {
    let a = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("hipify: error: {e}");
            return 2;
        }
    };
    if a.help {
        print!("{HELP}");
        return 0;
    }
    if a.version {
        println!("ferrocm-hipify {}", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    if a.list_tables {
        let (mut m, mut u) = (0, 0);
        for (api, mapped, unsupported) in crate::tables::table_counts() {
            println!("{:<8} {mapped:>6} mapped {unsupported:>6} unsupported", api.name());
            m += mapped;
            u += unsupported;
        }
        println!("{:<8} {m:>6} mapped {u:>6} unsupported", "total");
        return 0;
    }
    if !a.ignored.is_empty() && !a.quiet_warnings {
        eprintln!("hipify: note: ignoring compiler options: {}", a.ignored.join(" "));
    }
    let jobs = match plan(&a) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("hipify: error: {e}");
            return 2;
        }
    };
    let done: Vec<Done> = jobs.par_iter().map(|j| run_job(j, &a.options)).collect();

    let mut total = Stats::default();
    let mut failed = false;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for d in &done {
        if let Some(text) = &d.stdout {
            let _ = out.write_all(text.as_bytes());
        }
        if let Some(t) = &d.translation {
            if !a.quiet_warnings {
                for w in &t.warnings {
                    eprintln!("{}:{w}", d.label);
                }
            }
            let mut s = t.stats.clone();
            s.files = 1;
            // As hipify-perl does, files without any CUDA reference get no report of their own.
            let any = s.converted() + s.unconverted() + s.kernel_launches > 0;
            if a.print_stats && done.len() > 1 && any {
                eprint!("{}", s.report(&d.label));
            }
            total.merge(&s);
        }
        if let Some(e) = &d.error {
            failed = true;
            eprintln!("hipify: error: {}: {e}", d.label);
        }
    }
    let _ = out.flush();
    if a.print_stats {
        let title =
            if done.len() == 1 { done[0].label.clone() } else { format!("{} files in total", total.files) };
        eprint!("{}", total.report(&title));
    }
    if a.print_stats_csv {
        let path = a.stats_file.clone().unwrap_or_else(|| PathBuf::from("hipify_stats.csv"));
        let title = if done.len() == 1 { done[0].label.clone() } else { "total".to_string() };
        if let Err(e) = write_atomic(&path, total.csv(&title).as_bytes(), None, false) {
            eprintln!("hipify: error: {e}");
            failed = true;
        }
    }
    i32::from(failed)
}

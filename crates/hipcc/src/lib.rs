//! `ferrocm hipcc` (and the `hipcc` binary): compiles HIP and CUDA-named sources like hipcc,
//! with clang 19 in CUDA mode and ferrocm's own HIP headers, into programs that run on NVIDIA
//! GPUs (no CUDA toolkit anywhere) and on ferrocm's CPU device.
//!
//! Each HIP source takes two clang passes: the device pass emits PTX (`--cuda-device-only`,
//! libclc's math linked in as bitcode, PTX 8.0 features), which is wrapped in ferrocm's
//! container; the host pass embeds the container (`-fcuda-include-gpubinary`) and emits the
//! registration calls `libferrocm_hip` answers. Linking adds `libferrocm_hip.so` with an rpath.
//! `.c` files are plain C, object files and libraries go to the link.
//!
//! Found at run time: clang (`FERROCM_CLANG`, else `clang-19`, else a `clang` of version 19 or
//! later), libclc's NVPTX bitcode (`FERROCM_LIBCLC`, else Debian's `libclc-19` location), the
//! headers (`FERROCM_HIP_INCLUDE`, else written once from this binary to a cache directory) and
//! `libferrocm_hip.so` (`FERROCM_HIP_LIB`, else next to this executable). Each missing piece is
//! an error saying how to get it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The default GPU architecture of the device pass: the driver's JIT compiles it for the GPU
/// present (sm_80 PTX runs on Ampere, Hopper and later).
pub const DEFAULT_ARCH: &str = "sm_80";

/// Why a compilation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HipccError {
    #[error("{0}")]
    Usage(String),
    #[error("{what} not found: {how}")]
    Missing { what: &'static str, how: String },
    #[error("`{option}` is not supported by ferrocm hipcc: {why}")]
    Unsupported { option: String, why: &'static str },
    #[error("{tool} failed on {input} (exit status {status})")]
    Tool { tool: String, input: String, status: i32 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

const USAGE: &str = "\
usage: ferrocm hipcc [options] <inputs>      (also installed as `hipcc`)

Compiles HIP (.hip, .cu, .cpp, .cc, .cxx) and C (.c) sources, and links them with object files
and libraries against libferrocm_hip. The program runs on the GPUs present (NVIDIA, through the
driver) or on the CPU device (FERROCM_BACKEND=cpu, or when there is no GPU).

  -o <file>              output file
  -c                     compile only (one object per source)
  -E                     preprocess only (host side)
  -I<dir> -D<m>[=v] -U<m> -include <file> -isystem <dir>
  -O0 .. -O3, -Os, -g    optimisation and debug information
  -std=<standard>        language standard (default c++17)
  -x <lang>              treat following inputs as hip, cu, c++ or c
  --offload-arch=<arch>  NVIDIA architecture of the device code (default sm_80; AMD gfx targets
                         are accepted and ignored: ferrocm runs HIP on NVIDIA and the CPU)
  --device-only          emit the device code's PTX only (-o names the .ptx)
  -save-temps            keep the PTX next to the output
  -v                     print the commands run
  -L<dir> -l<lib> -Wl,<opts> -shared -fPIC -pthread and warning options pass through

Environment: FERROCM_CLANG, FERROCM_LIBCLC, FERROCM_HIP_INCLUDE, FERROCM_HIP_LIB.
Needs clang 19 and libclc 19 (Debian/Ubuntu: apt-get install clang-19 libclc-19).
";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Hip,
    C,
    /// An object file or library for the linker.
    Link,
}

#[derive(Debug, Default)]
struct Options {
    inputs: Vec<(PathBuf, Lang)>,
    output: Option<PathBuf>,
    compile_only: bool,
    preprocess: bool,
    device_only: bool,
    save_temps: bool,
    verbose: bool,
    std: Option<String>,
    arch: Option<String>,
    /// Flags for both passes and the preprocessor (-I, -D, -O, -g, ...).
    common: Vec<String>,
    /// Flags for the host pass and the link only (-fPIC, warnings, ...).
    host: Vec<String>,
    /// Flags for the link only (-L, -l, -Wl, -shared).
    link: Vec<String>,
}

fn lang_of(path: &Path, forced: Option<Lang>) -> Lang {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "o" | "a" | "so" | "obj" | "lo" => Lang::Link,
        _ if path.to_string_lossy().contains(".so.") => Lang::Link,
        _ => match forced {
            Some(l) => l,
            None => match ext {
                "c" => Lang::C,
                _ => Lang::Hip,
            },
        },
    }
}

fn parse(args: Vec<String>) -> Result<Options, HipccError> {
    let mut o = Options::default();
    let mut forced = None;
    let mut it = args.into_iter();
    let value = |it: &mut std::vec::IntoIter<String>, flag: &str| {
        it.next().ok_or_else(|| HipccError::Usage(format!("`{flag}` needs a value")))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => o.output = Some(PathBuf::from(value(&mut it, "-o")?)),
            "-c" => o.compile_only = true,
            "-E" => o.preprocess = true,
            "-v" | "--verbose" => o.verbose = true,
            "-save-temps" | "--save-temps" => o.save_temps = true,
            "--device-only" | "--cuda-device-only" | "--offload-device-only" | "-ptx" => o.device_only = true,
            "-x" => {
                let l = value(&mut it, "-x")?;
                forced = match l.as_str() {
                    "hip" | "cu" | "cuda" | "c++" | "cpp" => Some(Lang::Hip),
                    "c" => Some(Lang::C),
                    "none" => None,
                    _ => {
                        return Err(HipccError::Usage(format!(
                            "unknown language `{l}` for -x (hip, cu, c++, c)"
                        )))
                    }
                };
            }
            "-I" | "-D" | "-U" | "-include" | "-isystem" => {
                let v = value(&mut it, &a)?;
                o.common.push(a.clone());
                o.common.push(v);
            }
            "-L" | "-l" => {
                let v = value(&mut it, &a)?;
                o.link.push(format!("{a}{v}"));
            }
            "-fgpu-rdc" | "-rdc=true" | "--relocatable-device-code=true" | "-dc" => {
                return Err(HipccError::Unsupported {
                    option: a,
                    why: "device code is compiled per translation unit (no device linking); keep each \
                          kernel and the device functions it calls in one file",
                })
            }
            "-fno-gpu-rdc" | "-rdc=false" | "--hip-link" => {}
            "-shared" | "-rdynamic" | "-static-libstdc++" | "-static-libgcc" => o.link.push(a),
            "-fPIC" | "-fpic" | "-pthread" | "-fopenmp" => {
                o.host.push(a.clone());
                if a == "-pthread" || a == "-fopenmp" {
                    o.link.push(a);
                }
            }
            _ if a.starts_with("--offload-arch=")
                || a.starts_with("--cuda-gpu-arch=")
                || a.starts_with("--amdgpu-target=") =>
            {
                let arch = a.split_once('=').map(|p| p.1).unwrap_or("");
                if arch.starts_with("sm_") {
                    o.arch.get_or_insert_with(|| arch.to_string());
                } else if !arch.starts_with("gfx") && !arch.is_empty() {
                    return Err(HipccError::Usage(format!(
                        "unknown offload architecture `{arch}` (sm_XX, or gfxNNN which is ignored)"
                    )));
                }
            }
            _ if a.starts_with("-std=") => o.std = Some(a[5..].to_string()),
            _ if a.starts_with("-I") || a.starts_with("-D") || a.starts_with("-U") => o.common.push(a),
            _ if a.starts_with("-O") || a == "-g" || a.starts_with("-g") && a.len() <= 3 => o.common.push(a),
            _ if a.starts_with("-L") || a.starts_with("-l") || a.starts_with("-Wl,") => o.link.push(a),
            _ if a.starts_with("-ffp-contract=") || a == "-ffast-math" || a == "-fno-fast-math" => {
                o.common.push(a)
            }
            _ if a.starts_with("-W") || a.starts_with("-f") || a.starts_with("-m") => o.host.push(a),
            _ if a.starts_with('-') => {
                return Err(HipccError::Usage(format!("unknown option `{a}` (see `ferrocm hipcc --help`)")))
            }
            _ => {
                let p = PathBuf::from(&a);
                let l = lang_of(&p, forced);
                o.inputs.push((p, l));
            }
        }
    }
    if o.inputs.is_empty() {
        return Err(HipccError::Usage("no input files".into()));
    }
    let sources = o.inputs.iter().filter(|i| i.1 != Lang::Link).count();
    if (o.compile_only || o.preprocess || o.device_only) && o.output.is_some() && sources > 1 {
        return Err(HipccError::Usage("-o with -c, -E or --device-only needs exactly one source".into()));
    }
    Ok(o)
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// The clang to use: `FERROCM_CLANG`, `clang-19`, or a `clang` reporting version 19 or later.
pub fn find_clang() -> Result<PathBuf, HipccError> {
    if let Some(c) = std::env::var_os("FERROCM_CLANG").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(c);
        return if p.is_file() || which(&p.to_string_lossy()).is_some() {
            Ok(p)
        } else {
            Err(HipccError::Missing {
                what: "clang",
                how: format!("FERROCM_CLANG={} does not exist", p.display()),
            })
        };
    }
    if let Some(p) = which("clang-19")
        .or_else(|| ["/usr/lib/llvm-19/bin/clang"].iter().map(PathBuf::from).find(|p| p.is_file()))
    {
        return Ok(p);
    }
    for name in ["clang-20", "clang-21", "clang"] {
        if let Some(p) = which(name) {
            let out = Command::new(&p).arg("--version").output().ok();
            let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
            let major = text
                .split("version ")
                .nth(1)
                .and_then(|v| v.split('.').next())
                .and_then(|v| v.parse::<u32>().ok())
                .unwrap_or(0);
            if major >= 19 {
                return Ok(p);
            }
        }
    }
    Err(HipccError::Missing {
        what: "clang 19",
        how: "ferrocm hipcc compiles HIP with clang 19 or later (Debian/Ubuntu: `apt-get install clang-19 \
              libclc-19`), or set FERROCM_CLANG to a clang binary"
            .into(),
    })
}

/// libclc's NVPTX bitcode (math on the device).
pub fn find_libclc() -> Result<PathBuf, HipccError> {
    if let Some(c) = std::env::var_os("FERROCM_LIBCLC").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(c);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(HipccError::Missing {
                what: "libclc",
                how: format!("FERROCM_LIBCLC={} does not exist", p.display()),
            })
        };
    }
    let candidates = [
        "/usr/lib/clc/nvptx64--nvidiacl.bc",
        "/usr/share/clc/nvptx64--nvidiacl.bc",
        "/usr/lib/llvm-19/lib/clc/nvptx64--nvidiacl.bc",
        "/usr/local/lib/clc/nvptx64--nvidiacl.bc",
    ];
    candidates.iter().map(PathBuf::from).find(|p| p.is_file()).ok_or(HipccError::Missing {
        what: "libclc's nvptx64--nvidiacl.bc",
        how: "device math comes from libclc (Debian/Ubuntu: `apt-get install libclc-19`), or set FERROCM_LIBCLC".into(),
    })
}

/// The HIP headers: `FERROCM_HIP_INCLUDE`, or the embedded copy written to a cache directory
/// named by its content's hash.
pub fn include_dir() -> Result<PathBuf, HipccError> {
    if let Some(d) = std::env::var_os("FERROCM_HIP_INCLUDE").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    let mut h: u64 = 0xcbf29ce484222325;
    for (p, c) in ferrocm_hip::headers::FILES {
        for b in p.bytes().chain(c.bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join("ferrocm").join(format!("hip-include-{h:016x}"));
    if !dir.join("hip/hip_runtime.h").is_file() {
        let tmp = base.join("ferrocm").join(format!("hip-include-{h:016x}.tmp{}", std::process::id()));
        for (p, c) in ferrocm_hip::headers::FILES {
            let f = tmp.join(p);
            if let Some(parent) = f.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&f, c)?;
        }
        // Another process may have won the race; either copy is the same.
        if std::fs::rename(&tmp, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    Ok(dir)
}

/// The directory holding `libferrocm_hip.so`.
pub fn lib_dir() -> Result<PathBuf, HipccError> {
    if let Some(d) = std::env::var_os("FERROCM_HIP_LIB").filter(|v| !v.is_empty()) {
        let d = PathBuf::from(d);
        return if d.join("libferrocm_hip.so").is_file() {
            Ok(d)
        } else {
            Err(HipccError::Missing {
                what: "libferrocm_hip.so",
                how: format!("FERROCM_HIP_LIB={} does not hold it", d.display()),
            })
        };
    }
    let exe = std::env::current_exe()?;
    let mut candidates = Vec::new();
    if let Some(d) = exe.parent() {
        candidates.push(d.to_path_buf());
        candidates.push(d.join("../lib"));
        // Test binaries live in target/<profile>/deps.
        candidates.push(d.join(".."));
    }
    candidates.into_iter().find(|d| d.join("libferrocm_hip.so").is_file()).map(|d| d.canonicalize().unwrap_or(d)).ok_or(
        HipccError::Missing {
            what: "libferrocm_hip.so",
            how: format!(
                "it is looked for next to {} (build it with `cargo build -p ferrocm-hip`, or set FERROCM_HIP_LIB)",
                exe.display()
            ),
        },
    )
}

/// ferrocm's device-code container around PTX (what `libferrocm_hip` registers).
pub fn container(ptx: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(ptx.len() + 25);
    v.extend_from_slice(b"FRCMPTX\0");
    v.extend_from_slice(&1u32.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&(ptx.len() as u64).to_le_bytes());
    v.extend_from_slice(ptx);
    v.push(0);
    v
}

struct Toolchain {
    clang: PathBuf,
    libclc: PathBuf,
    include: PathBuf,
}

fn run(cmd: &mut Command, verbose: bool, input: &Path) -> Result<(), HipccError> {
    if verbose {
        eprintln!("{cmd:?}");
    }
    let status = cmd.status().map_err(|e| HipccError::Tool {
        tool: format!("{} ({e})", cmd.get_program().to_string_lossy()),
        input: input.display().to_string(),
        status: -1,
    })?;
    if !status.success() {
        return Err(HipccError::Tool {
            tool: cmd.get_program().to_string_lossy().into_owned(),
            input: input.display().to_string(),
            status: status.code().unwrap_or(-1),
        });
    }
    Ok(())
}

fn cuda_flags(t: &Toolchain, o: &Options) -> Vec<String> {
    let mut f = vec![
        "-x".into(),
        "cuda".into(),
        format!("--cuda-gpu-arch={}", o.arch.as_deref().unwrap_or(DEFAULT_ARCH)),
        "-nocudainc".into(),
        "-nocudalib".into(),
        "-Xclang".into(),
        "-target-sdk-version=12.0".into(),
        format!("-std={}", o.std.as_deref().unwrap_or("c++17")),
        // HIP's default: user code contracts `a * b + c` into fma, while libclc's compensated
        // arithmetic (argument reduction of sin/cos) keeps its separate roundings.
        "-ffp-contract=fast-honor-pragmas".into(),
        "-isystem".into(),
        t.include.display().to_string(),
        "-include".into(),
        "hip/hip_runtime.h".into(),
    ];
    f.extend(o.common.iter().cloned());
    f
}

/// Compiles one HIP source: device pass, container, host pass. Returns the object (or PTX).
fn compile_hip(t: &Toolchain, o: &Options, src: &Path, obj: &Path, tmp: &Path) -> Result<(), HipccError> {
    let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("input");
    let ptx = if o.device_only { obj.to_path_buf() } else { tmp.join(format!("{stem}.ptx")) };
    let mut dev = Command::new(&t.clang);
    dev.args(cuda_flags(t, o))
        .args(["--cuda-device-only", "-S", "-Wno-linker-warnings", "-Wno-unknown-cuda-version"])
        .args(["-Xclang", "-target-feature", "-Xclang", "+ptx80"])
        .args(["-Xclang", "-mlink-builtin-bitcode", "-Xclang"])
        .arg(&t.libclc)
        .arg(src)
        .arg("-o")
        .arg(&ptx);
    if !o.common.iter().any(|f| f.starts_with("-O")) {
        dev.arg("-O3");
    }
    run(&mut dev, o.verbose, src)?;
    if o.device_only {
        return Ok(());
    }
    let bin = tmp.join(format!("{stem}.ferrocm-fatbin"));
    std::fs::write(&bin, container(&std::fs::read(&ptx)?))?;
    if o.save_temps {
        let keep = obj.with_extension("ptx");
        std::fs::copy(&ptx, keep)?;
    }
    let mut host = Command::new(&t.clang);
    host.args(cuda_flags(t, o))
        .args(["--cuda-host-only", "-c", "-Wno-unknown-cuda-version"])
        .args(["-Xclang", "-fcuda-include-gpubinary", "-Xclang"])
        .arg(&bin)
        .args(&o.host)
        .arg(src)
        .arg("-o")
        .arg(obj);
    run(&mut host, o.verbose, src)
}

fn compile_c(t: &Toolchain, o: &Options, src: &Path, obj: &Path) -> Result<(), HipccError> {
    let mut c = Command::new(&t.clang);
    c.args(["-x", "c", "-c", "-isystem"])
        .arg(&t.include)
        .args(&o.common)
        .args(&o.host)
        .arg(src)
        .arg("-o")
        .arg(obj);
    run(&mut c, o.verbose, src)
}

fn object_name(src: &Path, dir: &Path) -> PathBuf {
    let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("input");
    dir.join(format!("{stem}.o"))
}

fn drive(args: Vec<String>) -> Result<(), HipccError> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        return Ok(());
    }
    if args.iter().any(|a| a == "--version") {
        println!(
            "ferrocm hipcc {} (HIP 6.2 API, clang 19 CUDA mode, PTX for NVIDIA GPUs and the CPU executor)",
            env!("CARGO_PKG_VERSION")
        );
        return Ok(());
    }
    let o = parse(args)?;
    let needs_clang = o.inputs.iter().any(|i| i.1 != Lang::Link) || !o.compile_only;
    let clang = if needs_clang { find_clang()? } else { PathBuf::from("clang") };
    let t = Toolchain {
        clang,
        libclc: if o.inputs.iter().any(|i| i.1 == Lang::Hip) && !o.preprocess {
            find_libclc()?
        } else {
            PathBuf::new()
        },
        include: include_dir()?,
    };
    if o.preprocess {
        for (src, lang) in o.inputs.iter().filter(|i| i.1 != Lang::Link) {
            let mut c = Command::new(&t.clang);
            if *lang == Lang::Hip {
                c.args(cuda_flags(&t, &o)).arg("--cuda-host-only");
            } else {
                c.args(["-x", "c", "-isystem"]).arg(&t.include).args(&o.common);
            }
            c.arg("-E").arg(src);
            if let Some(out) = &o.output {
                c.arg("-o").arg(out);
            }
            run(&mut c, o.verbose, src)?;
        }
        return Ok(());
    }
    let tmp = std::env::temp_dir().join(format!("ferrocm-hipcc-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&tmp)?;
    let result = build(&t, &o, &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ N.fetch_add(1, Ordering::Relaxed)
}

fn build(t: &Toolchain, o: &Options, tmp: &Path) -> Result<(), HipccError> {
    let mut objects = Vec::new();
    for (src, lang) in &o.inputs {
        match lang {
            Lang::Link => objects.push(src.clone()),
            _ => {
                let obj = if o.compile_only || o.device_only {
                    match &o.output {
                        Some(out) => out.clone(),
                        None => {
                            let name = object_name(src, Path::new("."));
                            if o.device_only {
                                name.with_extension("ptx")
                            } else {
                                name
                            }
                        }
                    }
                } else {
                    object_name(src, tmp)
                };
                if !src.is_file() {
                    return Err(HipccError::Usage(format!("{}: no such file", src.display())));
                }
                match lang {
                    Lang::Hip => compile_hip(t, o, src, &obj, tmp)?,
                    _ if o.device_only => {}
                    _ => compile_c(t, o, src, &obj)?,
                }
                objects.push(obj);
            }
        }
    }
    if o.compile_only || o.device_only {
        return Ok(());
    }
    let lib = lib_dir()?;
    let out = o.output.clone().unwrap_or_else(|| PathBuf::from("a.out"));
    let mut link = Command::new(&t.clang);
    link.arg("--driver-mode=g++")
        .args(&objects)
        .args(&o.host)
        .arg(format!("-L{}", lib.display()))
        .arg("-lferrocm_hip")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(&o.link)
        .arg("-o")
        .arg(&out);
    run(&mut link, o.verbose, &out)
}

/// Runs hipcc with `args` (without the program name); returns the exit code.
pub fn cli_main(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args.into_iter().map(|a| a.to_string_lossy().into_owned()).collect();
    match drive(args) {
        Ok(()) => 0,
        Err(HipccError::Tool { status, .. }) if status > 0 => status,
        Err(e) => {
            eprintln!("hipcc: error: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Options, HipccError> {
        parse(args.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn options_land_where_they_belong() {
        let o = p(&[
            "-O2",
            "-Iinc",
            "-D",
            "N=4",
            "-std=c++20",
            "--offload-arch=gfx90a",
            "--offload-arch=sm_90",
            "-c",
            "k.hip",
            "-o",
            "k.o",
            "-Wall",
            "-lm",
        ])
        .unwrap();
        assert_eq!(o.common, ["-O2", "-Iinc", "-D", "N=4"]);
        assert_eq!(o.std.as_deref(), Some("c++20"));
        assert_eq!(o.arch.as_deref(), Some("sm_90"), "AMD targets are ignored");
        assert!(o.compile_only);
        assert_eq!(o.host, ["-Wall"]);
        assert_eq!(o.link, ["-lm"]);
        assert_eq!(o.inputs, [(PathBuf::from("k.hip"), Lang::Hip)]);
    }

    #[test]
    fn languages_follow_extensions_and_x() {
        let o = p(&["a.cu", "b.cpp", "c.c", "d.o", "-x", "c", "e.inc", "libf.so.1"]).unwrap();
        let langs: Vec<Lang> = o.inputs.iter().map(|i| i.1).collect();
        assert_eq!(langs, [Lang::Hip, Lang::Hip, Lang::C, Lang::Link, Lang::C, Lang::Link]);
    }

    #[test]
    fn bad_command_lines_are_clear_errors() {
        for (args, needle) in [
            (&["-fgpu-rdc", "a.hip"][..], "device linking"),
            (&["--bogus", "a.hip"][..], "unknown option `--bogus`"),
            (&[][..], "no input files"),
            (&["-c", "a.hip", "b.hip", "-o", "x.o"][..], "exactly one source"),
            (&["-x", "fortran", "a.f"][..], "unknown language"),
            (&["--offload-arch=vega", "a.hip"][..], "unknown offload architecture"),
            (&["a.hip", "-o"][..], "needs a value"),
        ] {
            let e = p(args).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(needle), "{args:?}: {e}");
        }
    }

    #[test]
    fn the_container_holds_its_length_and_text() {
        let c = container(b".version 8.0");
        assert_eq!(&c[..8], b"FRCMPTX\0");
        assert_eq!(u32::from_le_bytes(c[8..12].try_into().unwrap()), 1);
        assert_eq!(u64::from_le_bytes(c[16..24].try_into().unwrap()), 12);
        assert_eq!(&c[24..36], b".version 8.0");
        assert_eq!(c[36], 0);
    }
}

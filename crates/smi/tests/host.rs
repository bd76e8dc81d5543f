//! The CPU readers against fixed `/proc` and `/sys` text (known answers worked out by hand in
//! the comments), fake machines built from the `.tree` fixtures, and the live machine checked
//! against `getconf` (glibc's sysconf).

mod common;

use common::{file, Tree};
use ferrocm_smi::host::{
    cpu_temperature, energy_delta, parse_meminfo, parse_millidegrees, parse_proc_stat, CpuTimes, HostReader,
    Sensor,
};
use ferrocm_smi::SmiError;

#[test]
fn proc_stat_counters_and_loads() {
    let a = parse_proc_stat(file("proc_stat_a.txt")).unwrap();
    let b = parse_proc_stat(file("proc_stat_b.txt")).unwrap();
    // cpu0: user 1000 nice 10 system 500 idle 8000 iowait 100 irq 20 softirq 30 steal 0:
    // total 9660, idle + iowait 8100, busy 1560. Guest time (cpu3's 100) is inside user.
    assert_eq!(a.cores[0], (0, CpuTimes { busy: 1560, total: 9660 }));
    assert_eq!(a.cores[3], (3, CpuTimes { busy: 4230, total: 9280 }));
    assert_eq!(a.all, CpuTimes { busy: 9430, total: 37780 });
    assert_eq!(a.cores.iter().map(|c| c.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
    // Between the samples each core ran 100 ticks: cpu0 busy 70 (user 50, system 20), cpu1 idle,
    // cpu2 all user, cpu3 busy 50 (user 25, system 25; the 20 guest ticks are inside user).
    let loads: Vec<f64> = b.cores.iter().zip(&a.cores).map(|(n, o)| n.1.load_since(&o.1).unwrap()).collect();
    assert_eq!(loads, [70.0, 0.0, 100.0, 50.0]);
    assert_eq!(b.all.load_since(&a.all), Some(55.0));
    // No time passed, or counters that went backwards (hot-plug): no load.
    assert_eq!(a.all.load_since(&a.all), None);
    assert_eq!(a.all.load_since(&b.all), None);
}

#[test]
fn proc_stat_of_a_2_6_kernel_has_four_fields() {
    let s = parse_proc_stat(file("proc_stat_2_6_kernel.txt")).unwrap();
    assert_eq!(s.all, CpuTimes { busy: 4705 + 356 + 584, total: 4705 + 356 + 584 + 3699176 });
    assert_eq!(s.cores.len(), 1);
}

#[test]
fn meminfo_in_bytes() {
    let m = parse_meminfo(file("meminfo.txt")).unwrap();
    assert_eq!(m.total, 65799888 * 1024);
    assert_eq!(m.available, 49872604 * 1024);
    assert_eq!(m.used(), (65799888 - 49872604) * 1024);
    assert_eq!((m.swap_total, m.swap_free), (8388604 * 1024, 8120316 * 1024));
    // Before Linux 3.14 there is no MemAvailable: free + buffers + page cache.
    let old = parse_meminfo(file("meminfo_before_3_14.txt")).unwrap();
    assert_eq!(old.available, (512000 + 10000 + 300000) * 1024);
    assert_eq!(old.total, 2048000 * 1024);
}

#[test]
fn temperatures_in_millidegrees() {
    assert_eq!(parse_millidegrees("45000\n"), Some(45.0));
    assert_eq!(parse_millidegrees("-5500"), Some(-5.5));
    // Absent sensors read as nonsense on some boards.
    assert_eq!(parse_millidegrees("-274000"), None);
    assert_eq!(parse_millidegrees("255000"), None);
    assert_eq!(parse_millidegrees("n/a"), None);
}

#[test]
fn cpu_temperature_prefers_package_sensors() {
    let s = |class, chip: &str, label: Option<&str>, celsius| Sensor {
        class,
        chip: chip.into(),
        label: label.map(Into::into),
        celsius,
    };
    let pick = |sensors: &[Sensor]| cpu_temperature(sensors).map(|t| (t.celsius, t.source));
    let core_hotter = [
        s("hwmon", "coretemp", Some("Core 0"), 70.0),
        s("hwmon", "coretemp", Some("Package id 0"), 60.0),
        s("thermal_zone", "x86_pkg_temp", None, 80.0),
    ];
    assert_eq!(pick(&core_hotter), Some((60.0, "hwmon coretemp Package id 0".into())));
    let no_package =
        [s("hwmon", "coretemp", Some("Core 0"), 50.0), s("hwmon", "coretemp", Some("Core 1"), 52.0)];
    assert_eq!(pick(&no_package), Some((52.0, "hwmon coretemp Core 1".into())));
    let zones = [s("thermal_zone", "acpitz", None, 90.0), s("thermal_zone", "x86_pkg_temp", None, 41.0)];
    assert_eq!(pick(&zones), Some((41.0, "thermal_zone x86_pkg_temp".into())));
    assert_eq!(pick(&[s("thermal_zone", "acpitz", None, 30.0)]), Some((30.0, "thermal_zone acpitz".into())));
    // A disk or GPU sensor is not the CPU's.
    assert_eq!(
        pick(&[s("hwmon", "nvme", Some("Composite"), 40.0), s("thermal_zone", "gpu-thermal", None, 50.0)]),
        None
    );
    assert_eq!(pick(&[]), None);
}

#[test]
fn rapl_counters_wrap_at_their_range() {
    assert_eq!(energy_delta(100, 350, 1000), 250);
    assert_eq!(energy_delta(900, 50, 1000), 150);
    assert_eq!(energy_delta(5, 5, 1000), 0);
}

#[test]
fn intel_server() {
    let tree = Tree::new("intel", common::INTEL_SERVER);
    let mut r = tree.reader();
    let first = r.read();
    // The first read compares two samples of the same file: no time passed in /proc/stat.
    assert_eq!(first.load_percent, None);
    assert_eq!(first.power_w, Some(0.0));
    let t = first.temperature.clone().unwrap();
    assert_eq!((t.celsius, t.source.as_str()), (46.0, "hwmon coretemp Package id 0"));
    assert_eq!(first.clock_mhz, Some((2400.0 + 3000.0 + 1200.0 + 3400.0) / 4.0));
    assert_eq!(first.governor.as_deref(), Some("powersave"));
    assert_eq!(first.power_cap_w, Some(125.0));
    assert_eq!(first.load_average, Some([0.52, 0.58, 0.59]));
    assert_eq!(first.memory.unwrap().total, 65799888 * 1024);

    tree.write("proc/stat", file("proc_stat_b.txt"));
    // 3 J more on the package (the core sub-zone is not added again).
    tree.write("sys/class/powercap/intel-rapl:0/energy_uj", "4000000\n");
    tree.write("sys/class/powercap/intel-rapl:0:0/energy_uj", "999999999\n");
    let before = std::time::Instant::now();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let second = r.read();
    let outer = before.elapsed().as_secs_f64();
    assert_eq!(second.load_percent, Some(55.0));
    assert_eq!(second.core_load_percent, vec![(0, 70.0), (1, 0.0), (2, 100.0), (3, 50.0)]);
    // 3 J over the time between the two reads: at least 0.2 s, at most the time measured
    // around the sleep and the read (plus the first read's end, before `before`).
    let w = second.power_w.unwrap();
    assert!(w <= 3.0 / 0.2 && w >= 3.0 / (outer + 1.0), "{w} W");

    let s = r.static_info();
    assert_eq!(s.model.as_deref(), Some("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"));
    assert_eq!((s.logical_cpus, s.sockets, s.max_clock_mhz), (4, Some(1), Some(4100)));
    assert_eq!(s.kernel.as_deref(), Some("6.8.0-test"));
    assert_eq!(s.memory_total, Some(65799888 * 1024));
}

#[test]
fn amd_two_sockets() {
    let tree = Tree::new("amd", common::AMD_TWO_SOCKETS);
    let m = tree.reader().read();
    let t = m.temperature.unwrap();
    // Both packages' Tctl: the hotter one, not the hotter CCD.
    assert_eq!((t.celsius, t.source.as_str()), (63.0, "hwmon k10temp Tctl"));
    // No cpufreq: the mean of /proc/cpuinfo's "cpu MHz".
    assert_eq!(m.clock_mhz, Some((2400.0 + 3700.5) / 2.0));
    assert_eq!((m.power_w, m.power_cap_w, m.governor), (None, None, None));
    assert_eq!(m.memory.unwrap().available, (512000 + 10000 + 300000) * 1024);
    let s = tree.reader().static_info();
    assert_eq!((s.sockets, s.max_clock_mhz, s.kernel), (Some(2), None, None));
}

#[test]
fn arm_board_and_acpi_and_container() {
    let arm = Tree::new("arm", common::ARM_BOARD);
    let t = arm.reader().read().temperature.unwrap();
    assert_eq!((t.celsius, t.source.as_str()), (52.3, "thermal_zone cpu-thermal"));
    let acpi = Tree::new("acpi", common::ACPI_ONLY);
    let t = acpi.reader().read().temperature.unwrap();
    assert_eq!((t.celsius, t.source.as_str()), (33.0, "thermal_zone acpitz"));
    let container = Tree::new("container", common::CONTAINER);
    let m = container.reader().read();
    assert_eq!((m.temperature, m.clock_mhz, m.power_w, m.load_average), (None, None, None, None));
    assert!(m.memory.is_some());
}

#[test]
fn a_machine_without_proc_reads_as_missing_values() {
    let empty = Tree::new("empty", "");
    let mut r = empty.reader();
    let m = r.read();
    assert_eq!((m.load_percent, m.memory, m.temperature), (None, None, None));
    match r.proc_stat() {
        Err(SmiError::HostRead { path, .. }) => assert!(path.ends_with("proc/stat"), "{path}"),
        other => panic!("{other:?}"),
    }
}

fn getconf(name: &str) -> Option<u64> {
    let out = std::process::Command::new("getconf").arg(name).output().ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// This machine's /proc, against glibc's sysconf (which reads sysinfo(2) and
/// /sys/devices/system/cpu/online, not these files).
#[test]
fn live_machine_against_getconf() {
    let pages_before = getconf("_PHYS_PAGES");
    let mut r = HostReader::new();
    let m = r.read();
    let pages_after = getconf("_PHYS_PAGES");
    let load = m.load_percent.expect("a load over 100 ms");
    assert!((0.0..=100.0).contains(&load), "{load}");
    let memory = m.memory.unwrap();
    assert!(memory.used() <= memory.total && memory.available <= memory.total);
    let (Some(before), Some(after), Some(page), Some(cpus)) =
        (pages_before, pages_after, getconf("PAGESIZE"), getconf("_NPROCESSORS_ONLN"))
    else {
        eprintln!("getconf is not available: the live comparison is skipped");
        return;
    };
    // MemTotal is in kB, so it agrees to the kB; on a VM whose memory grows while it runs,
    // MemTotal lies between the two readings around it.
    let (low, high) = (before.min(after) * page / 1024, before.max(after) * page / 1024);
    assert!(
        (low..=high).contains(&(memory.total / 1024)),
        "MemTotal {} kB, sysconf {low}..{high} kB",
        memory.total / 1024
    );
    assert_eq!(r.static_info().logical_cpus as u64, cpus);
    assert_eq!(m.core_load_percent.len() as u64, cpus);
}

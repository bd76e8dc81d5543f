//! `ferrocm info`: what rocminfo shows, for every backend.

use anyhow::Result;
use ferrocm::info::CudaStatus;

#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let info = ferrocm::info::info()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    println!("ferrocm runtime {}", info.runtime_version);
    match &info.cuda {
        CudaStatus { available: true, driver_version: Some(v), library: Some(l), .. } => {
            println!("CUDA driver      {v} ({l})")
        }
        c => println!("CUDA driver      not available: {}", c.reason.as_deref().unwrap_or("unknown")),
    }
    println!("Devices          {}", info.devices.len());
    for d in &info.devices {
        let p = &d.properties;
        let mib = |b: u64| format!("{} MiB", b >> 20);
        let kib = |b: u64| format!("{} KiB", b >> 10);
        println!();
        println!("Device {} [{} {}]", d.index, d.backend, d.ordinal);
        let rows: Vec<(&str, String)> = vec![
            ("Name", p.name.clone()),
            ("Architecture", p.arch.clone()),
            ("Compute capability", format!("{}.{}", p.compute_capability.0, p.compute_capability.1)),
            ("Code target", p.target.to_string()),
            ("Target features", p.target.features.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")),
            ("Compute units", p.compute_units.to_string()),
            ("Warp size", p.warp_size.to_string()),
            ("Max threads per block", p.max_threads_per_block.to_string()),
            ("Max block dims", format!("{:?}", p.max_block_dim)),
            ("Max grid dims", format!("{:?}", p.max_grid_dim)),
            (
                "Shared memory per block",
                format!("{} (opt-in {})", kib(p.shared_mem_per_block), kib(p.shared_mem_per_block_optin)),
            ),
            ("Shared memory per CU", kib(p.shared_mem_per_cu)),
            ("Registers per block / CU", format!("{} / {}", p.registers_per_block, p.registers_per_cu)),
            ("Max threads per CU", p.max_threads_per_cu.to_string()),
            ("Clock", format!("{} MHz", p.clock_khz / 1000)),
            ("Memory clock / bus", format!("{} MHz / {} bit", p.memory_clock_khz / 1000, p.memory_bus_width)),
            ("L2 cache", kib(p.l2_cache_bytes)),
            ("Memory total", mib(p.total_memory)),
            ("Memory free", d.memory_free.map(mib).unwrap_or_else(|| "unknown".into())),
            ("PCI bus id", if p.pci_bus_id.is_empty() { "-".into() } else { p.pci_bus_id.clone() }),
            ("UUID", p.uuid.clone()),
            ("Managed memory", p.managed_memory.to_string()),
            ("Concurrent kernels", p.concurrent_kernels.to_string()),
            ("Async copy engines", p.async_engines.to_string()),
        ];
        for (k, v) in rows {
            println!("  {k:<26}{v}");
        }
    }
    Ok(())
}

//! Initialisation from the launchers people already use: `mpirun` (Open MPI:
//! `OMPI_COMM_WORLD_RANK`, `_SIZE`, `_LOCAL_RANK`), `srun` (Slurm: `SLURM_PROCID`,
//! `SLURM_NTASKS`, `SLURM_LOCALID`) and `torchrun` (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`,
//! `MASTER_ADDR`, `MASTER_PORT`). ferrocm schedules nothing itself.
//!
//! Every rank computes the same [`UniqueId`] from the environment and rank 0 starts its
//! bootstrap root, so nothing has to be passed around. Where the root listens:
//!
//! 1. `FERROCM_CCL_ROOT=host:port`, if set;
//! 2. `MASTER_ADDR` and `MASTER_PORT + 1` (torchrun, or set by hand under mpirun/srun; `+ 1`
//!    because torch's own store already listens on `MASTER_PORT`);
//! 3. under srun, the first host of `SLURM_STEP_NODELIST` (or `SLURM_JOB_NODELIST`) and a port
//!    derived from the job and step ids;
//! 4. under mpirun with every rank on one host, loopback and a port derived from the job id.
//!
//! Otherwise the error says which variable to set.

use std::net::{SocketAddr, ToSocketAddrs};

use ferrocm_runtime::{BackendKind, Device};

use crate::comm::Communicator;
use crate::config::Config;
use crate::id::UniqueId;
use crate::{CclError, Result};

/// Which launcher started the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Launcher {
    Mpirun,
    Srun,
    Torchrun,
}

/// A rank's place in a launched job.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchEnv {
    pub launcher: Launcher,
    pub rank: usize,
    pub size: usize,
    /// The rank's index among the ranks on its host (to pick a device).
    pub local_rank: usize,
    /// Where rank 0 starts the bootstrap root.
    pub root: SocketAddr,
    /// Text that names the job (part of the unique id).
    pub job: String,
}

fn parse<T: std::str::FromStr>(var: &'static str, get: &dyn Fn(&str) -> Option<String>) -> Result<Option<T>> {
    match get(var) {
        None => Ok(None),
        Some(v) => v.trim().parse().map(Some).map_err(|_| CclError::InvalidEnvironment {
            var,
            value: v,
            allowed: "a non-negative integer".into(),
        }),
    }
}

fn port_from(text: &str) -> u16 {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    20000 + (h % 40000) as u16
}

fn resolve(var: &'static str, host: &str, port: u16) -> Result<SocketAddr> {
    (host.trim(), port).to_socket_addrs().ok().and_then(|mut a| a.next()).ok_or_else(|| {
        CclError::InvalidEnvironment {
            var,
            value: host.to_string(),
            allowed: "a host name or address this machine can resolve".into(),
        }
    })
}

/// The first host of a Slurm node list (`node[03-05,9],gpu7` -> `node03`).
pub fn first_slurm_host(list: &str) -> Option<String> {
    let list = list.trim();
    let end = list.find(',').filter(|&c| list.find('[').is_none_or(|b| c < b)).unwrap_or(list.len());
    let first = &list[..end];
    match first.find('[') {
        None => (!first.is_empty()).then(|| first.to_string()),
        Some(b) => {
            let inner = first[b + 1..].split([',', ']']).next()?;
            let start = inner.split('-').next()?;
            Some(format!("{}{start}", &first[..b]))
        }
    }
}

impl LaunchEnv {
    /// Reads the launcher's variables from the process environment.
    pub fn detect() -> Result<LaunchEnv> {
        LaunchEnv::from_vars(&|v| std::env::var(v).ok())
    }

    /// Reads the launcher's variables through `get` (for tests and embedding).
    pub fn from_vars(get: &dyn Fn(&str) -> Option<String>) -> Result<LaunchEnv> {
        let (launcher, rank, size, local, job) =
            if let (Some(r), Some(s)) = (parse::<usize>("RANK", get)?, parse::<usize>("WORLD_SIZE", get)?) {
                let local = parse("LOCAL_RANK", get)?.unwrap_or(0);
                let job = get("TORCHELASTIC_RUN_ID").unwrap_or_else(|| "torchrun".into());
                (Launcher::Torchrun, r, s, local, job)
            } else if let (Some(r), Some(s)) =
                (parse::<usize>("OMPI_COMM_WORLD_RANK", get)?, parse::<usize>("OMPI_COMM_WORLD_SIZE", get)?)
            {
                let local = parse("OMPI_COMM_WORLD_LOCAL_RANK", get)?.unwrap_or(0);
                let job = get("PMIX_NAMESPACE")
                    .or_else(|| get("OMPI_MCA_ess_base_jobid"))
                    .or_else(|| get("OMPI_MCA_orte_ess_jobid"))
                    .unwrap_or_else(|| "mpirun".into());
                (Launcher::Mpirun, r, s, local, job)
            } else if let (Some(r), Some(s)) =
                (parse::<usize>("SLURM_PROCID", get)?, parse::<usize>("SLURM_NTASKS", get)?)
            {
                let local = parse("SLURM_LOCALID", get)?.unwrap_or(0);
                let job = format!(
                    "slurm-{}.{}",
                    get("SLURM_JOB_ID").unwrap_or_default(),
                    get("SLURM_STEP_ID").unwrap_or_default()
                );
                (Launcher::Srun, r, s, local, job)
            } else {
                return Err(CclError::Unavailable {
                    what: "a launcher environment",
                    reason: "none of RANK/WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK/SIZE (mpirun) or \
                         SLURM_PROCID/NTASKS (srun) is set"
                        .into(),
                });
            };
        if size == 0 || rank >= size {
            return Err(CclError::invalid(
                "launcher rank",
                rank,
                format!("ranks of a job of {size} are 0..{size}"),
            ));
        }
        let root = if let Some(r) = get("FERROCM_CCL_ROOT") {
            let (host, port) = r.rsplit_once(':').ok_or_else(|| CclError::InvalidEnvironment {
                var: "FERROCM_CCL_ROOT",
                value: r.clone(),
                allowed: "host:port".into(),
            })?;
            let port: u16 = port.parse().map_err(|_| CclError::InvalidEnvironment {
                var: "FERROCM_CCL_ROOT",
                value: r.clone(),
                allowed: "host:port with a port in 1..65535".into(),
            })?;
            resolve("FERROCM_CCL_ROOT", host.trim_start_matches('[').trim_end_matches(']'), port)?
        } else if let (Some(addr), Some(port)) = (get("MASTER_ADDR"), parse::<u16>("MASTER_PORT", get)?) {
            resolve("MASTER_ADDR", &addr, port.checked_add(1).unwrap_or(port - 1))?
        } else if launcher == Launcher::Srun {
            let list = get("SLURM_STEP_NODELIST").or_else(|| get("SLURM_JOB_NODELIST")).unwrap_or_default();
            let host = first_slurm_host(&list).ok_or_else(|| CclError::InvalidEnvironment {
                var: "SLURM_STEP_NODELIST",
                value: list.clone(),
                allowed: "a Slurm node list (or set FERROCM_CCL_ROOT=host:port)".into(),
            })?;
            resolve("SLURM_STEP_NODELIST", &host, port_from(&job))?
        } else if launcher == Launcher::Mpirun
            && parse::<usize>("OMPI_COMM_WORLD_LOCAL_SIZE", get)?.is_some_and(|l| l == size)
        {
            SocketAddr::from(([127, 0, 0, 1], port_from(&job)))
        } else {
            return Err(CclError::Unavailable {
                what: "the bootstrap root's address",
                reason:
                    "set FERROCM_CCL_ROOT=host:port (a host of rank 0 and a free port), or MASTER_ADDR and \
                         MASTER_PORT"
                        .into(),
            });
        };
        Ok(LaunchEnv { launcher, rank, size, local_rank: local, root, job })
    }

    /// The unique id every rank of the job computes alike.
    pub fn unique_id(&self) -> UniqueId {
        UniqueId::at_address(self.root, &format!("{}/{}", self.job, self.size))
    }

    /// The device for this rank: GPU `local_rank` modulo the GPUs visible, or, without GPUs, CPU
    /// device `local_rank` modulo the CPU devices.
    pub fn device(&self) -> Result<Device> {
        let gpus: Vec<Device> = Device::all()?.into_iter().filter(|d| d.kind() != BackendKind::Cpu).collect();
        if !gpus.is_empty() {
            return Ok(gpus[self.local_rank % gpus.len()].clone());
        }
        let cpus = Device::of_kind(BackendKind::Cpu);
        cpus.get(self.local_rank % cpus.len().max(1))
            .cloned()
            .ok_or_else(|| CclError::Unavailable { what: "a device", reason: "no device is visible".into() })
    }

    /// Joins the job's communicator on [`LaunchEnv::device`] with the environment's settings.
    pub fn init(&self) -> Result<Communicator> {
        Communicator::init_rank_with(
            &self.unique_id(),
            self.size,
            self.rank,
            &self.device()?,
            Config::from_env()?,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let v: Vec<(String, String)> = pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        move |k| v.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone())
    }

    #[test]
    fn torchrun_uses_master_port_plus_one() {
        let e = LaunchEnv::from_vars(&env(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "127.0.0.1"),
            ("MASTER_PORT", "29500"),
        ]))
        .unwrap();
        assert_eq!((e.launcher, e.rank, e.size, e.local_rank), (Launcher::Torchrun, 3, 8, 1));
        assert_eq!(e.root, "127.0.0.1:29501".parse().unwrap());
    }

    #[test]
    fn mpirun_on_one_host_needs_no_address_and_agrees_across_ranks() {
        let vars = |r: &'static str| {
            env(&[
                ("OMPI_COMM_WORLD_RANK", r),
                ("OMPI_COMM_WORLD_SIZE", "2"),
                ("OMPI_COMM_WORLD_LOCAL_RANK", r),
                ("OMPI_COMM_WORLD_LOCAL_SIZE", "2"),
                ("PMIX_NAMESPACE", "prterun-x-1234@1"),
            ])
        };
        let (a, b) = (LaunchEnv::from_vars(&vars("0")).unwrap(), LaunchEnv::from_vars(&vars("1")).unwrap());
        assert_eq!(a.launcher, Launcher::Mpirun);
        assert!(a.root.ip().is_loopback());
        assert_eq!(a.unique_id(), b.unique_id());
        let multi =
            LaunchEnv::from_vars(&env(&[("OMPI_COMM_WORLD_RANK", "0"), ("OMPI_COMM_WORLD_SIZE", "4")]));
        assert!(multi.unwrap_err().to_string().contains("FERROCM_CCL_ROOT"));
    }

    #[test]
    fn srun_takes_the_first_node_of_the_step() {
        assert_eq!(first_slurm_host("node[03-05,9],gpu7").as_deref(), Some("node03"));
        assert_eq!(first_slurm_host("gpu7,node[1-2]").as_deref(), Some("gpu7"));
        assert_eq!(first_slurm_host("localhost").as_deref(), Some("localhost"));
        let e = LaunchEnv::from_vars(&env(&[
            ("SLURM_PROCID", "1"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_LOCALID", "1"),
            ("SLURM_STEP_NODELIST", "localhost"),
            ("SLURM_JOB_ID", "77"),
        ]))
        .unwrap();
        assert_eq!((e.launcher, e.rank, e.local_rank), (Launcher::Srun, 1, 1));
        assert!(e.root.ip().is_loopback());
    }

    #[test]
    fn bad_values_name_the_variable() {
        let e = LaunchEnv::from_vars(&env(&[("RANK", "x"), ("WORLD_SIZE", "2")])).unwrap_err();
        assert!(e.to_string().contains("RANK"), "{e}");
        let e = LaunchEnv::from_vars(&env(&[
            ("RANK", "2"),
            ("WORLD_SIZE", "2"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "1"),
        ]))
        .unwrap_err();
        assert!(e.to_string().contains("0..2"), "{e}");
        assert!(LaunchEnv::from_vars(&env(&[])).unwrap_err().to_string().contains("torchrun"));
    }
}

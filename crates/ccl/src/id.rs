//! The unique id: what one rank creates and every rank needs to join the communicator (NCCL's
//! `ncclUniqueId`, 128 bytes). It names the bootstrap root's TCP address and a random magic
//! number that keeps strangers and stale jobs out.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, UdpSocket};
use std::str::FromStr;

use crate::{CclError, Result};

/// Bytes of a unique id, as NCCL's.
pub const UNIQUE_ID_BYTES: usize = 128;

const TAG: &[u8; 8] = b"FRCMCCL1";

/// Who runs the bootstrap root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RootMode {
    /// [`UniqueId::new`] started it in the creating process; it is listening.
    Listening,
    /// Rank 0 starts it at this address when it initialises (launcher environments, where every
    /// rank computes the same id from the environment).
    RankZero,
}

/// Identifies one communicator being created: made by one rank ([`UniqueId::new`]) and shared
/// with the others out of band (a file, an environment variable, MPI), or computed by every
/// rank from a launcher's environment ([`crate::launcher::LaunchEnv`]). Its text form is
/// hexadecimal ([`fmt::Display`], [`FromStr`]); its binary form has [`UNIQUE_ID_BYTES`] bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId {
    pub(crate) magic: u64,
    pub(crate) root: SocketAddr,
    pub(crate) mode: RootMode,
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UniqueId(root {} {:?}, magic {:016x})", self.root, self.mode, self.magic)
    }
}

pub(crate) fn random_u64() -> u64 {
    let mut v = [0u8; 8];
    // SAFETY: getrandom writes at most `v.len()` bytes into `v`.
    let n = unsafe { libc::getrandom(v.as_mut_ptr() as *mut libc::c_void, v.len(), 0) };
    let r = u64::from_le_bytes(v);
    if n == 8 && r != 0 {
        return r;
    }
    // No entropy source: time and address-space noise are enough to tell jobs apart.
    let t =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    (t as u64 ^ (&v as *const _ as u64).rotate_left(32) ^ std::process::id() as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        | 1
}

/// The address other hosts reach this one at: `FERROCM_CCL_SOCKET_ADDR` if set, else the
/// address of the interface the default route leaves by, else loopback.
pub(crate) fn local_ip() -> Result<IpAddr> {
    if let Ok(v) = std::env::var("FERROCM_CCL_SOCKET_ADDR") {
        return v.trim().parse().map_err(|_| CclError::InvalidEnvironment {
            var: "FERROCM_CCL_SOCKET_ADDR",
            value: v,
            allowed: "an IPv4 or IPv6 address of this host".into(),
        });
    }
    // Connecting a UDP socket sends nothing; it only asks the routing table for the source.
    let routed = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        .and_then(|s| s.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).map(|_| s))
        .and_then(|s| s.local_addr())
        .map(|a| a.ip())
        .ok()
        .filter(|ip| !ip.is_unspecified());
    Ok(routed.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST)))
}

/// Binds a listener on every interface (or the forced address) and returns it with the address
/// peers should connect to.
pub(crate) fn listen(port: u16) -> Result<(TcpListener, SocketAddr)> {
    let ip = local_ip()?;
    let bind_ip: IpAddr = if std::env::var("FERROCM_CCL_SOCKET_ADDR").is_ok() || ip.is_loopback() {
        ip
    } else if ip.is_ipv4() {
        Ipv4Addr::UNSPECIFIED.into()
    } else {
        std::net::Ipv6Addr::UNSPECIFIED.into()
    };
    let l = TcpListener::bind((bind_ip, port))
        .map_err(|e| CclError::bootstrap("listening", format!("{bind_ip}:{port}: {e}")))?;
    let port = l.local_addr().map_err(|e| CclError::bootstrap("listening", e))?.port();
    Ok((l, SocketAddr::new(ip, port)))
}

impl UniqueId {
    /// Creates an id and starts its bootstrap root in this process (a thread listening on TCP,
    /// which serves the communicator until every rank has left it). Pass the id to every rank.
    pub fn new() -> Result<UniqueId> {
        let (listener, addr) = listen(0)?;
        let id = UniqueId { magic: random_u64(), root: addr, mode: RootMode::Listening };
        crate::bootstrap::tcp::spawn_root(listener, id)?;
        Ok(id)
    }

    /// An id whose root rank 0 will start at `root` when it initialises: every rank computes the
    /// same id from the same `root` and `job` (any text naming the job, such as a launcher's job
    /// id), so nothing has to be passed around.
    pub fn at_address(root: SocketAddr, job: &str) -> UniqueId {
        // FNV-1a of the job key: the same on every rank.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in job.bytes().chain(root.to_string().bytes()) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        UniqueId { magic: h | 1, root, mode: RootMode::RankZero }
    }

    /// The bootstrap root's address.
    pub fn root_address(&self) -> SocketAddr {
        self.root
    }

    /// The binary form.
    pub fn to_bytes(&self) -> [u8; UNIQUE_ID_BYTES] {
        let mut b = [0u8; UNIQUE_ID_BYTES];
        b[..8].copy_from_slice(TAG);
        b[8..16].copy_from_slice(&self.magic.to_le_bytes());
        b[16] = match self.mode {
            RootMode::Listening => 1,
            RootMode::RankZero => 2,
        };
        b[18..20].copy_from_slice(&self.root.port().to_le_bytes());
        match self.root.ip() {
            IpAddr::V4(v4) => {
                b[17] = 4;
                b[20..24].copy_from_slice(&v4.octets());
            }
            IpAddr::V6(v6) => {
                b[17] = 6;
                b[20..36].copy_from_slice(&v6.octets());
            }
        }
        b
    }

    /// Parses the binary form.
    pub fn from_bytes(b: &[u8]) -> Result<UniqueId> {
        let bad = |reason: &str| CclError::InvalidUniqueId { reason: reason.into() };
        if b.len() != UNIQUE_ID_BYTES {
            return Err(bad(&format!("{} bytes; a unique id has {UNIQUE_ID_BYTES}", b.len())));
        }
        if &b[..8] != TAG {
            return Err(bad("it does not start with the ferrocm-ccl tag (was it made by UniqueId::new?)"));
        }
        let magic = u64::from_le_bytes(b[8..16].try_into().map_err(|_| bad("magic"))?);
        let mode = match b[16] {
            1 => RootMode::Listening,
            2 => RootMode::RankZero,
            m => return Err(bad(&format!("unknown root mode {m}"))),
        };
        let port = u16::from_le_bytes([b[18], b[19]]);
        let ip: IpAddr = match b[17] {
            4 => Ipv4Addr::new(b[20], b[21], b[22], b[23]).into(),
            6 => {
                let o: [u8; 16] = b[20..36].try_into().map_err(|_| bad("address"))?;
                std::net::Ipv6Addr::from(o).into()
            }
            f => return Err(bad(&format!("unknown address family {f}"))),
        };
        if port == 0 {
            return Err(bad("the root's port is 0"));
        }
        Ok(UniqueId { magic, root: SocketAddr::new(ip, port), mode })
    }
}

impl fmt::Display for UniqueId {
    /// Hexadecimal text of the binary form (256 characters).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.to_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl FromStr for UniqueId {
    type Err = CclError;
    fn from_str(s: &str) -> Result<UniqueId> {
        let s = s.trim();
        if s.len() != 2 * UNIQUE_ID_BYTES || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(CclError::InvalidUniqueId {
                reason: format!(
                    "expected {} hexadecimal digits, got {:?}",
                    2 * UNIQUE_ID_BYTES,
                    truncate(s, 40)
                ),
            });
        }
        let bytes: Vec<u8> =
            (0..UNIQUE_ID_BYTES).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0)).collect();
        UniqueId::from_bytes(&bytes)
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_forms_round_trip() {
        for root in ["127.0.0.1:29500", "[::1]:1234", "10.1.2.3:65535"] {
            let id = UniqueId::at_address(root.parse().unwrap(), "job 7");
            assert_eq!(UniqueId::from_bytes(&id.to_bytes()).unwrap(), id);
            assert_eq!(id.to_string().parse::<UniqueId>().unwrap(), id);
        }
        let a = UniqueId::at_address("127.0.0.1:1".parse().unwrap(), "a");
        let b = UniqueId::at_address("127.0.0.1:1".parse().unwrap(), "b");
        assert_ne!(a.magic, b.magic, "different jobs get different magics");
    }

    #[test]
    fn malformed_ids_are_refused_with_the_reason() {
        let e = "abc".parse::<UniqueId>().unwrap_err();
        assert!(e.to_string().contains("hexadecimal"), "{e}");
        let mut b = UniqueId::at_address("127.0.0.1:9".parse().unwrap(), "x").to_bytes();
        b[0] = b'X';
        assert!(UniqueId::from_bytes(&b).unwrap_err().to_string().contains("tag"));
        assert!(UniqueId::from_bytes(&b[..10]).unwrap_err().to_string().contains("10 bytes"));
    }
}

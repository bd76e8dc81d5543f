//! Ranks of one process: each receiver allocates its FIFOs in its own device's memory (on a CPU
//! device, host memory; the host engine never uses this transport for GPU memory) and the
//! sender writes them through the pointer. The allocation is handed over through a process-wide
//! registry keyed by communicator, receiver and sender, so both sides own it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_runtime::{AsDeviceSlice, BackendKind, DeviceBuffer};

use super::{DirectSender, Link, SetupCtx, Transport};
use crate::config::TransportKind;
use crate::fifo::{Fifo, FifoMemory, HeapFifo, FIFO_BYTES};
use crate::state::lock;
use crate::{CclError, Result};

type Key = (u64, usize, usize);

fn registry() -> &'static Mutex<HashMap<Key, Arc<dyn FifoMemory>>> {
    static R: OnceLock<Mutex<HashMap<Key, Arc<dyn FifoMemory>>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// A FIFO in a CPU device's memory.
struct DeviceFifo(DeviceBuffer<u64>);

impl FifoMemory for DeviceFifo {
    fn base(&self) -> *mut u8 {
        self.0.device_ptr().0 as *mut u8
    }
}

#[derive(Default)]
pub(crate) struct P2p {
    mine: Vec<Key>,
}

impl Transport for P2p {
    fn prepare(&mut self, ctx: &SetupCtx, peers: &[usize]) -> Result<Vec<u8>> {
        for &p in peers {
            let mem: Arc<dyn FifoMemory> = if ctx.device.kind() == BackendKind::Cpu {
                // The CPU backend hands out zero-filled memory, as the FIFO needs.
                let stream = ctx.device.default_stream()?;
                let mut b = ctx.device.alloc::<u64>(FIFO_BYTES / 8)?;
                stream.memset_zero(&mut b)?;
                stream.synchronize()?;
                Arc::new(DeviceFifo(b))
            } else {
                HeapFifo::new()
            };
            let key = (ctx.magic, ctx.rank, p);
            lock(registry()).insert(key, mem);
            self.mine.push(key);
        }
        Ok(Vec::new())
    }

    fn connect(
        &mut self,
        ctx: &SetupCtx,
        peers: &[usize],
        _published: &[Vec<u8>],
    ) -> Result<Vec<(usize, Link)>> {
        let mut links = Vec::new();
        for &p in peers {
            let reg = lock(registry());
            let mine = reg.get(&(ctx.magic, ctx.rank, p)).cloned();
            let theirs = reg.get(&(ctx.magic, p, ctx.rank)).cloned();
            drop(reg);
            let (Some(mine), Some(theirs)) = (mine, theirs) else {
                return Err(CclError::Transport {
                    transport: "p2p",
                    peer: p,
                    reason: "the peer's receive buffer is not registered (is it in this process?)".into(),
                });
            };
            let reader = Fifo::new(mine).reader();
            let sender = DirectSender { writer: Fifo::new(theirs).writer(), peer: p, _keep: None };
            links.push((p, Link { kind: TransportKind::P2p, sender: Box::new(sender), reader }));
        }
        Ok(links)
    }

    fn finish(&mut self, _ctx: &SetupCtx) {
        let mut reg = lock(registry());
        for k in self.mine.drain(..) {
            reg.remove(&k);
        }
    }
}

impl Drop for P2p {
    fn drop(&mut self) {
        let mut reg = lock(registry());
        for k in self.mine.drain(..) {
            reg.remove(&k);
        }
    }
}

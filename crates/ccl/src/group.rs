//! Operations are collected into a [`Group`] and launched together when the group ends, as
//! NCCL's `ncclGroupStart`/`ncclGroupEnd`: sends and receives of one group progress together
//! (so any pattern of matching calls completes), the operations of one communicator become one
//! launch on its stream, and one thread can drive several ranks of a communicator made by
//! [`Communicator::init_all`]. The group is scoped ([`group`]): it borrows the buffers until it
//! has launched, so none can be dropped between the call that names it and the launch that
//! uses it. Every operation of [`Communicator`] is a group of one.

use std::marker::PhantomData;

use ferrocm_runtime::{AsDeviceSlice, AsDeviceSliceMut, Device, KernelArgs, Stream};

use crate::comm::Communicator;
use crate::op::OpKind;
use crate::types::{CclType, DataType, ReduceOp};
use crate::{CclError, Result};

/// A buffer an operation reads, with its element type erased.
pub(crate) trait Buffer {
    fn device(&self) -> &Device;
    fn addr(&self) -> u64;
    fn elems(&self) -> usize;
    fn record_use(&self, stream: &Stream);
    fn push(&self, args: &mut KernelArgs);
    /// Copies the whole buffer into `dst` (at least as many bytes), waiting for the stream.
    fn download(&self, stream: &Stream, dst: &mut [u64]) -> Result<()>;
}

/// A buffer an operation writes.
pub(crate) trait BufferMut: Buffer {
    /// Copies `src` (at least as many bytes) into the whole buffer, waiting for the copy.
    fn upload(&mut self, stream: &Stream, src: &[u64]) -> Result<()>;
    fn as_buffer(&self) -> &dyn Buffer;
}

struct Ro<'a, T, S>(&'a S, PhantomData<T>);
struct Rw<'a, T, S>(&'a mut S, PhantomData<T>);

fn typed_mut<T>(words: &mut [u64], len: usize) -> &mut [T] {
    assert!(words.len() * 8 >= len * std::mem::size_of::<T>(), "staging buffer too small");
    // SAFETY: `words` holds at least `len` elements of `T` (asserted), u64 alignment suits every
    // CCL type, and every bit pattern is a valid number.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut T, len) }
}

fn typed<T>(words: &[u64], len: usize) -> &[T] {
    assert!(words.len() * 8 >= len * std::mem::size_of::<T>(), "staging buffer too small");
    // SAFETY: as in `typed_mut`.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const T, len) }
}

macro_rules! buffer_impl {
    ($ty:ident, $bound:ident) => {
        impl<T: CclType, S: $bound<T>> Buffer for $ty<'_, T, S> {
            fn device(&self) -> &Device {
                self.0.device()
            }
            fn addr(&self) -> u64 {
                self.0.device_ptr().0
            }
            fn elems(&self) -> usize {
                self.0.len()
            }
            fn record_use(&self, stream: &Stream) {
                stream.record_use(&*self.0);
            }
            fn push(&self, args: &mut KernelArgs) {
                args.push_buffer(&*self.0);
            }
            fn download(&self, stream: &Stream, dst: &mut [u64]) -> Result<()> {
                stream.copy_dtoh(&*self.0, typed_mut::<T>(dst, self.0.len()))?;
                Ok(())
            }
        }
    };
}
buffer_impl!(Ro, AsDeviceSlice);
buffer_impl!(Rw, AsDeviceSliceMut);

impl<T: CclType, S: AsDeviceSliceMut<T>> BufferMut for Rw<'_, T, S> {
    fn upload(&mut self, stream: &Stream, src: &[u64]) -> Result<()> {
        let n = self.0.len();
        stream.copy_htod(typed::<T>(src, n), self.0)?;
        Ok(())
    }
    fn as_buffer(&self) -> &dyn Buffer {
        self
    }
}

/// One operation waiting in a group.
pub(crate) struct Item<'a> {
    pub comm: &'a Communicator,
    pub stream: &'a Stream,
    pub kind: OpKind,
    pub dtype: DataType,
    pub redop: ReduceOp,
    pub count: usize,
    pub root: usize,
    pub send: Option<Box<dyn Buffer + 'a>>,
    pub recv: Option<Box<dyn BufferMut + 'a>>,
    pub in_place: bool,
}

impl Item<'_> {
    /// Addresses of the send and receive buffers as the engines see them (for in-place
    /// operations, where this rank's part of the one buffer starts).
    pub fn addresses(&self, rank: usize) -> (u64, u64) {
        let es = self.dtype.size() as u64;
        let block = self.count as u64 * es * rank as u64;
        let recv = self.recv.as_ref().map(|b| b.addr());
        let send = self.send.as_ref().map(|b| b.addr());
        match (self.kind, self.in_place) {
            (OpKind::AllGather, true) => (recv.unwrap_or(0) + block, recv.unwrap_or(0)),
            (OpKind::ReduceScatter, true) => (recv.unwrap_or(0), recv.unwrap_or(0) + block),
            (_, true) => (recv.unwrap_or(0), recv.unwrap_or(0)),
            _ => (send.unwrap_or(0), recv.unwrap_or(0)),
        }
    }
}

/// Operations collected to be launched together; see [`group`].
#[derive(Default)]
pub struct Group<'a> {
    items: Vec<Item<'a>>,
}

/// Runs `f` with a group, then launches every operation it collected (NCCL's group calls).
/// Nothing is launched if `f` returns an error.
///
/// ```ignore
/// ferrocm_ccl::group(|g| {
///     for (comm, stream, buf) in &mut ranks {   // one thread driving every rank of init_all
///         g.all_reduce_in_place(comm, buf, ReduceOp::Sum, stream)?;
///     }
///     Ok(())
/// })?;
/// ```
pub fn group<'a, R>(f: impl FnOnce(&mut Group<'a>) -> Result<R>) -> Result<R> {
    let mut g = Group::default();
    let r = f(&mut g)?;
    crate::comm::launch(g.items)?;
    Ok(r)
}

fn check_len(what: &'static str, len: usize, required: usize) -> Result<()> {
    if len != required {
        return Err(CclError::BufferTooSmall { what, len, required });
    }
    Ok(())
}

fn exact(what: &'static str, len: usize, multiple_of: usize) -> Result<usize> {
    if multiple_of == 0 || !len.is_multiple_of(multiple_of) {
        return Err(CclError::invalid(
            what,
            format!("of {len} elements"),
            format!("its length must be a multiple of the number of ranks ({multiple_of})"),
        ));
    }
    Ok(len / multiple_of)
}

impl<'a> Group<'a> {
    #[allow(clippy::too_many_arguments)]
    fn push<T: CclType>(
        &mut self,
        comm: &'a Communicator,
        stream: &'a Stream,
        kind: OpKind,
        redop: ReduceOp,
        count: usize,
        root: usize,
        send: Option<Box<dyn Buffer + 'a>>,
        recv: Option<Box<dyn BufferMut + 'a>>,
    ) -> Result<()> {
        let in_place = send.is_none() && recv.is_some();
        comm.check_call(stream, kind, root, send.as_deref(), recv.as_deref().map(|r| r.as_buffer()))?;
        self.items.push(Item {
            comm,
            stream,
            kind,
            dtype: T::TYPE,
            redop,
            count,
            root,
            send,
            recv,
            in_place,
        });
        Ok(())
    }

    /// Adds an all-reduce: `recv` on every rank becomes the reduction of every rank's `send`
    /// (equal lengths).
    pub fn all_reduce<T: CclType, S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        send: &'a S,
        recv: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        check_len("receive buffer", recv.len(), send.len())?;
        let count = send.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::AllReduce,
            op,
            count,
            0,
            Some(Box::new(Ro(send, PhantomData))),
            Some(Box::new(Rw(recv, PhantomData))),
        )
    }

    /// Adds an all-reduce in place: `buf` becomes the reduction of every rank's `buf`.
    pub fn all_reduce_in_place<T: CclType, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = buf.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::AllReduce,
            op,
            count,
            0,
            None,
            Some(Box::new(Rw(buf, PhantomData))),
        )
    }

    /// Adds a broadcast: `recv` on every rank becomes the root's `send` (equal lengths; `send`
    /// is read on the root only).
    pub fn broadcast<T: CclType, S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        send: &'a S,
        recv: &'a mut D,
        root: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        check_len("receive buffer", recv.len(), send.len())?;
        let count = recv.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::Broadcast,
            ReduceOp::Sum,
            count,
            root,
            Some(Box::new(Ro(send, PhantomData))),
            Some(Box::new(Rw(recv, PhantomData))),
        )
    }

    /// Adds a broadcast in place: every rank's `buf` becomes the root's.
    pub fn broadcast_in_place<T: CclType, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut D,
        root: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = buf.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::Broadcast,
            ReduceOp::Sum,
            count,
            root,
            None,
            Some(Box::new(Rw(buf, PhantomData))),
        )
    }

    /// Adds a reduce: the root's `recv` becomes the reduction of every rank's `send` (equal
    /// lengths; other ranks' `recv` is not written).
    #[allow(clippy::too_many_arguments)]
    pub fn reduce<T: CclType, S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        send: &'a S,
        recv: &'a mut D,
        op: ReduceOp,
        root: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        check_len("receive buffer", recv.len(), send.len())?;
        let count = send.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::Reduce,
            op,
            count,
            root,
            Some(Box::new(Ro(send, PhantomData))),
            Some(Box::new(Rw(recv, PhantomData))),
        )
    }

    /// Adds a reduce in place: the root's `buf` becomes the reduction of every rank's `buf`;
    /// the others' are left as they are.
    pub fn reduce_in_place<T: CclType, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut D,
        op: ReduceOp,
        root: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = buf.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::Reduce,
            op,
            count,
            root,
            None,
            Some(Box::new(Rw(buf, PhantomData))),
        )
    }

    /// Adds an all-gather: `recv` (n times `send`'s length) becomes every rank's `send`, in
    /// rank order.
    pub fn all_gather<T: CclType, S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        send: &'a S,
        recv: &'a mut D,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = send.len();
        check_len("receive buffer", recv.len(), count.saturating_mul(comm.size()))?;
        self.push::<T>(
            comm,
            stream,
            OpKind::AllGather,
            ReduceOp::Sum,
            count,
            0,
            Some(Box::new(Ro(send, PhantomData))),
            Some(Box::new(Rw(recv, PhantomData))),
        )
    }

    /// Adds an all-gather in place: this rank's block of `buf` (block `rank` of `size` equal
    /// blocks) is its contribution; `buf` becomes every rank's block in order.
    pub fn all_gather_in_place<T: CclType, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut D,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = exact("all-gather buffer", buf.len(), comm.size())?;
        self.push::<T>(
            comm,
            stream,
            OpKind::AllGather,
            ReduceOp::Sum,
            count,
            0,
            None,
            Some(Box::new(Rw(buf, PhantomData))),
        )
    }

    /// Adds a reduce-scatter: `recv` becomes block `rank` (of `size` blocks of `recv`'s length)
    /// of the reduction of every rank's `send`.
    pub fn reduce_scatter<T: CclType, S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        send: &'a S,
        recv: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = recv.len();
        check_len("send buffer", send.len(), count.saturating_mul(comm.size()))?;
        self.push::<T>(
            comm,
            stream,
            OpKind::ReduceScatter,
            op,
            count,
            0,
            Some(Box::new(Ro(send, PhantomData))),
            Some(Box::new(Rw(recv, PhantomData))),
        )
    }

    /// Adds a reduce-scatter in place: block `rank` of `buf` becomes that block of the
    /// reduction; the other blocks are left as they are.
    pub fn reduce_scatter_in_place<T: CclType, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = exact("reduce-scatter buffer", buf.len(), comm.size())?;
        self.push::<T>(
            comm,
            stream,
            OpKind::ReduceScatter,
            op,
            count,
            0,
            None,
            Some(Box::new(Rw(buf, PhantomData))),
        )
    }

    /// Adds an all-to-all: block `j` of `send` goes to rank `j`, and block `j` of `recv` comes
    /// from rank `j` (`size` equal blocks each).
    pub fn all_to_all<T: CclType, S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        send: &'a S,
        recv: &'a mut D,
        stream: &'a Stream,
    ) -> Result<()> {
        check_len("receive buffer", recv.len(), send.len())?;
        let count = exact("all-to-all buffer", send.len(), comm.size())?;
        self.push::<T>(
            comm,
            stream,
            OpKind::AllToAll,
            ReduceOp::Sum,
            count,
            0,
            Some(Box::new(Ro(send, PhantomData))),
            Some(Box::new(Rw(recv, PhantomData))),
        )
    }

    /// Adds a send of `buf` to `peer` (which must post a matching [`Group::recv`]).
    pub fn send<T: CclType, S: AsDeviceSlice<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a S,
        peer: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = buf.len();
        self.push::<T>(
            comm,
            stream,
            OpKind::Send,
            ReduceOp::Sum,
            count,
            peer,
            Some(Box::new(Ro(buf, PhantomData))),
            None,
        )
    }

    /// Adds a receive into `buf` from `peer` (which must post a matching [`Group::send`] of
    /// the same length and type).
    pub fn recv<T: CclType, D: AsDeviceSliceMut<T>>(
        &mut self,
        comm: &'a Communicator,
        buf: &'a mut D,
        peer: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        let count = buf.len();
        // A receive's only buffer is written, not read: it is not "in place".
        self.items.reserve(1);
        self.push::<T>(
            comm,
            stream,
            OpKind::Recv,
            ReduceOp::Sum,
            count,
            peer,
            None,
            Some(Box::new(Rw(buf, PhantomData))),
        )?;
        if let Some(last) = self.items.last_mut() {
            last.in_place = false;
        }
        Ok(())
    }
}

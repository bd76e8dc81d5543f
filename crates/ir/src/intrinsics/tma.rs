//! The tensor memory accelerator: `cp.async.bulk.tensor` copies of a box of a tensor described by
//! a tensor-map parameter, global to shared memory (completing on an `mbarrier`, optionally
//! multicast to several CTAs of the cluster) and shared to global memory (in bulk groups).
//!
//! Executor semantics, from the PTX ISA and `cuTensorMapEncodeTiled`: the box holds
//! `ceil(box[d] / elementStride[d])` elements along each dimension `d`, taken at coordinates
//! `c[d] + j * elementStride[d]`, laid out densely in shared memory (dimension 0 innermost)
//! from the destination address, which must be 128-byte aligned; the swizzle permutes 16-byte
//! chunks by shared-address bits (`TensorMapSwizzle::apply`). Loads fill elements outside the
//! tensor with zero (or a NaN with the NaN fill) and complete the box's full byte count on the
//! barrier; stores skip elements outside the tensor.
//!
//! The innermost coordinate must sit a multiple of 16 bytes from the tensor's start (negative
//! coordinates included): an H100 (driver 580.159.04) stopped loads and stores whose innermost
//! coordinate was 8, 10, 100 or 300 bytes in with `CUDA_ERROR_ILLEGAL_INSTRUCTION`, an
//! nvcc-compiled reference kernel included, while 16-byte multiples (-16 to 128) copied correctly.
//! The executor refuses such a copy rather than perform it.

use ferrocm_backend::tensor_map::{TensorMapDataType, TensorMapDesc, TensorMapInterleave, TensorMapOobFill};

use super::*;

const DIMS: &[&str] = &["1d", "2d", "3d", "4d", "5d"];

/// The rank a call's `dims` immediate stands for.
pub fn rank(call: &Call) -> usize {
    call.imm("dims") as usize + 1
}

fn coords_ok(args: &[Type], from: usize, rank: usize) -> Result<(), String> {
    for (i, t) in args.iter().enumerate().skip(from).take(rank) {
        if *t != Type::Scalar(ScalarType::I32) {
            return Err(format!("coordinate operand {i} is {t}, expected i32"));
        }
    }
    Ok(())
}

fn load_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let rank = c.imm(def, "dims") as usize + 1;
    let multicast = c.imm(def, "multicast") != 0;
    if c.mems[2].elem != ScalarType::U64 {
        return Err(format!(
            "the mbarrier `{}` must be a u64 element, not {}",
            c.mems[2].name, c.mems[2].elem
        ));
    }
    arg_count(c.args, 2 + rank + multicast as usize)?;
    is_index(c.args, 0)?;
    is_index(c.args, 1)?;
    coords_ok(c.args, 2, rank)?;
    if multicast && c.args[2 + rank] != Type::Scalar(ScalarType::U16) {
        return Err(format!("the CTA mask is {}, expected u16", c.args[2 + rank]));
    }
    Ok(None)
}

fn store_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let rank = c.imm(def, "dims") as usize + 1;
    arg_count(c.args, 1 + rank)?;
    is_index(c.args, 0)?;
    coords_ok(c.args, 1, rank)?;
    Ok(None)
}

fn coord_list(from: usize, rank: usize) -> String {
    (from..from + rank).map(|i| format!("$[a{i}]")).collect::<Vec<_>>().join(", ")
}

fn load_ptx(call: &Call, _: &[Type], _: &Function) -> Result<String, String> {
    let rank = rank(call);
    let coords = coord_list(2, rank);
    let base = "cp.async.bulk.tensor.$[w.dims].shared::cluster.global.tile.mbarrier::complete_tx::bytes";
    Ok(if call.imm("multicast") != 0 {
        format!(
            "cvt.u16.u32 $[t.b16.0], $[a{}];\n{base}.multicast::cluster [$[saddr0:a0]], [$[tm1], {{{coords}}}], \
             [$[saddr2:a1]], $[t.b16.0];",
            2 + rank
        )
    } else {
        format!("{base} [$[saddr0:a0]], [$[tm1], {{{coords}}}], [$[saddr2:a1]];")
    })
}

fn store_ptx(call: &Call, _: &[Type], _: &Function) -> Result<String, String> {
    let coords = coord_list(1, rank(call));
    Ok(format!(
        "cp.async.bulk.tensor.$[w.dims].global.shared::cta.tile.bulk_group [$[tm0], {{{coords}}}], [$[saddr1:a0]];"
    ))
}

/// The box a copy moves: elements per dimension, and the bytes of one element.
struct BoxShape {
    counts: [u64; 5],
    esize: u64,
}

impl BoxShape {
    fn of(d: &TensorMapDesc) -> BoxShape {
        let mut counts = [1u64; 5];
        for (i, c) in counts.iter_mut().enumerate().take(d.rank as usize) {
            *c = (d.box_dims[i] as u64).div_ceil(d.element_strides[i].max(1) as u64);
        }
        BoxShape { counts, esize: d.data_type.size() }
    }

    fn elements(&self) -> u64 {
        self.counts.iter().product()
    }

    fn bytes(&self) -> u64 {
        self.elements() * self.esize
    }

    /// The box position of linear element `n` (dimension 0 fastest).
    fn position(&self, mut n: u64) -> [u64; 5] {
        let mut j = [0u64; 5];
        for (d, c) in self.counts.iter().enumerate() {
            j[d] = n % c;
            n /= c;
        }
        j
    }
}

/// The bits an out-of-bounds element reads as.
fn fill_bits(d: &TensorMapDesc) -> u64 {
    match d.oob_fill {
        TensorMapOobFill::Zero => 0,
        _ => match d.data_type {
            TensorMapDataType::F16 | TensorMapDataType::BF16 => 0x7fff,
            TensorMapDataType::F64 => 0x7fff_ffff_ffff_ffff,
            _ => 0x7fff_ffff,
        },
    }
}

/// Checks what the executor can copy and the destination's alignment.
fn check_map(e: &dyn Exec, d: &TensorMapDesc, rank: usize, smem: u64) -> Result<(), String> {
    if d.rank as usize != rank {
        return Err(e.fault(&format!("a {rank}d TMA copy was given a tensor map of rank {}", d.rank)));
    }
    if d.interleave != TensorMapInterleave::None {
        return Err(e.fault("interleaved tensor maps are not supported by the CPU executor"));
    }
    if !smem.is_multiple_of(128) {
        return Err(e.fault(&format!(
            "the shared memory of a TMA copy at address {smem:#x} is not 128-byte aligned"
        )));
    }
    Ok(())
}

/// The innermost coordinate's byte offset must be a multiple of 16 (see the module docs).
fn check_inner_coordinate(e: &dyn Exec, d: &TensorMapDesc, c0: i64) -> Result<(), String> {
    let esize = d.data_type.size() as i64;
    if (c0 * esize).rem_euclid(16) != 0 {
        return Err(e.fault(&format!(
            "the innermost TMA coordinate {c0} lies {} bytes from the tensor's start, not a multiple \
             of 16 (the GPU stops the kernel with an illegal instruction)",
            c0 * esize
        )));
    }
    Ok(())
}

/// The global coordinates of box position `j` from the box origin `c`.
fn coords_of(d: &TensorMapDesc, c: &[i64; 5], j: &[u64; 5]) -> [i64; 5] {
    let mut g = [0i64; 5];
    for k in 0..d.rank as usize {
        g[k] = c[k] + j[k] as i64 * d.element_strides[k].max(1) as i64;
    }
    g
}

fn load_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let rank = rank(call);
    let multicast = call.imm("multicast") != 0;
    let d = e.tensor_map(1)?;
    let shape = BoxShape::of(&d);
    let dst_elem = e.func().mem(call.mems[0]).elem.size() as u64;
    let regs: Vec<Lanes> = (0..2 + rank + multicast as usize).map(|i| e.arg(i)[0]).collect();
    let (t0, t1) = (e.arg_type(0), e.arg_type(1));
    each_lane(e.active(), |lane| {
        let di = index_value(t0, regs[0][lane]);
        let dst = e.shared_addr(0, lane, di)?;
        // The whole box must lie inside the destination array.
        e.shared_addr(0, lane, di + (shape.bytes().div_ceil(dst_elem) as i128 - 1))?;
        let bar = e.shared_addr(2, lane, index_value(t1, regs[1][lane]))?;
        check_map(e, &d, rank, dst)?;
        let mut c = [0i64; 5];
        for (k, ck) in c.iter_mut().enumerate().take(rank) {
            *ck = regs[2 + k][lane] as u32 as i32 as i64;
        }
        check_inner_coordinate(e, &d, c[0])?;
        let ranks: Vec<u32> = if multicast {
            let mask = regs[2 + rank][lane] as u16;
            let size = e.cluster_size();
            if mask == 0 || (size < 16 && mask >> size != 0) {
                return Err(e.fault(&format!(
                    "TMA multicast mask {mask:#06x} names CTAs outside the cluster of {size}"
                )));
            }
            (0..16).filter(|r| mask >> r & 1 != 0).collect()
        } else {
            vec![e.cta_rank()]
        };
        let fill = fill_bits(&d);
        for n in 0..shape.elements() {
            let j = shape.position(n);
            let g = coords_of(&d, &c, &j);
            let v = match d.element_offset(&g) {
                Some(off) => e.tensor_read(1, d.global_address.0 + off, shape.esize as u32)?,
                None => fill,
            };
            let at = d.swizzle.apply(dst + n * shape.esize);
            for &r in &ranks {
                e.shared_write(r, at, shape.esize as u32, v)?;
            }
        }
        for &r in &ranks {
            e.mbarrier(r, bar, MbarrierOp::CompleteTx { bytes: shape.bytes() as u32 }, lane)?;
        }
        Ok(())
    })?;
    Ok(Flow::Next)
}

fn store_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let rank = rank(call);
    let d = e.tensor_map(0)?;
    let shape = BoxShape::of(&d);
    let src_elem = e.func().mem(call.mems[1]).elem.size() as u64;
    let regs: Vec<Lanes> = (0..1 + rank).map(|i| e.arg(i)[0]).collect();
    let t0 = e.arg_type(0);
    each_lane(e.active(), |lane| {
        let si = index_value(t0, regs[0][lane]);
        let src = e.shared_addr(1, lane, si)?;
        e.shared_addr(1, lane, si + (shape.bytes().div_ceil(src_elem) as i128 - 1))?;
        check_map(e, &d, rank, src)?;
        let mut c = [0i64; 5];
        for (k, ck) in c.iter_mut().enumerate().take(rank) {
            *ck = regs[1 + k][lane] as u32 as i32 as i64;
        }
        check_inner_coordinate(e, &d, c[0])?;
        let own = e.cta_rank();
        for n in 0..shape.elements() {
            let g = coords_of(&d, &c, &shape.position(n));
            if let Some(off) = d.element_offset(&g) {
                let v = e.shared_read(own, d.swizzle.apply(src + n * shape.esize), shape.esize as u32)?;
                e.tensor_write(0, d.global_address.0 + off, shape.esize as u32, v)?;
            }
        }
        Ok(())
    })?;
    Ok(Flow::Next)
}

fn multicast_feature(imms: &[i64]) -> Option<Feature> {
    (imms.get(1) == Some(&1)).then_some(Feature::TmaMulticast)
}

/// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes[.multicast::cluster]`.
pub static LOAD: Def = Def {
    name: "tma.load",
    doc: "copies a box of the tensor (operands: destination index, mbarrier index, one i32 coordinate per \
          dimension[, u16 CTA mask]) to shared memory and completes its bytes on the mbarrier",
    imms: &[
        Imm { name: "dims", kind: ImmKind::Word(DIMS) },
        Imm { name: "multicast", kind: ImmKind::Flag("multicast") },
    ],
    mems: &[MemRule::Shared, MemRule::TensorMap, MemRule::Shared],
    vars: 0,
    sig: load_sig,
    effects: Effects::WRITE,
    feature: Some(Feature::Tma),
    extra_feature: multicast_feature,
    ptx_version: (8, 0),
    ptx: load_ptx,
    ptx_globals: &[],
    exec: load_exec,
};

/// `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group`.
pub static STORE: Def = Def {
    name: "tma.store",
    doc: "copies a box from shared memory (operands: source index, one i32 coordinate per dimension) to the \
          tensor, skipping elements outside it; complete after a bulk.wait covering its group",
    imms: &[Imm { name: "dims", kind: ImmKind::Word(DIMS) }],
    mems: &[MemRule::TensorMap, MemRule::Shared],
    vars: 0,
    sig: store_sig,
    effects: Effects::WRITE,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: store_ptx,
    ptx_globals: &[],
    exec: store_exec,
};

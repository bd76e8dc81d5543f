//! Warpgroup matrix multiply-accumulate (`wgmma`, sm_90a) and `setmaxnreg`.
//!
//! `wgmma.mma_async` computes `D = A B^T + (scale_d ? D : 0)` for a 64xN tile (N a multiple of 8
//! up to 256) over K = 16 (f16, bf16), 8 (tf32) or 32 (e4m3, e5m2), with f32 accumulators held
//! in place in a variable of N/2 f32 per thread. A comes from shared memory (a 64-bit matrix
//! descriptor) or from registers (4 u32 per thread); B from shared memory. The executor follows
//! the PTX ISA ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
//!
//! - Descriptor: start address, leading-dimension byte offset (LBO) and stride-dimension byte
//!   offset (SBO), each `>> 4` in bits 0-13, 16-29 and 32-45; base offset in bits 49-51 (the
//!   executor supports 0); layout in bits 62-63 (0: none, 1: 128-byte, 2: 64-byte, 3: 32-byte
//!   swizzle).
//! - Canonical layouts in 16-byte chunks (W = 1, 8, 4, 2 chunks per swizzle row, T elements per
//!   chunk). K-major (A: M x K, B: N x K, the default): row `r` of the 8-row group `r / 8` at
//!   `(r % 8) * 16 W + (r / 8) * SBO`; K chunk `c` at `c * LBO` without swizzle, `c * 16` with.
//!   MN-major (transposed, 16-bit types only): MN chunk `c` at `c * SBO` without swizzle, else
//!   `(c % W) * 16 + (c / W) * LBO`; K row `k` at `(k % 8) * 16 W + (k / 8) * (LBO or SBO)`.
//!   The swizzle then XORs address bits 4.. with bits 7.. (the pattern TMA writes).
//! - Fragments: warp `w` of the warpgroup holds rows `16 (w % 4) ..`; lane `l` (g = l / 4,
//!   t = l % 4) holds `D[16w + g + 8 [v >= 2]][8i + 2t + v % 2]` in element `4i + v`; A from
//!   registers follows the `mma.m16n8k16` A layout for 16-bit types, `(g + 8 [j odd], t + 4 [j >=
//!   2])` for tf32 and `(g + 8 [j odd], 4t + byte + 16 [j >= 2])` for 8-bit types.
//!
//! The executor runs the product when the instruction issues (one valid schedule of an
//! asynchronous operation); products are exact in f32 for 16- and 8-bit inputs and are summed
//! in f32 in K order, so results may differ from the tensor cores' summation in the last bits.

use super::*;

const TYPES: &[&str] = &["f16", "bf16", "tf32", "e4m3", "e5m2"];
const F16: i64 = 0;
const BF16: i64 = 1;
const TF32: i64 = 2;

/// K of one `wgmma` for input type `t` (an index into the type words).
pub fn k_of(t: i64) -> u32 {
    match t {
        F16 | BF16 => 16,
        TF32 => 8,
        _ => 32,
    }
}

/// Bytes of one element of input type `t`.
fn esize(t: i64) -> u32 {
    match t {
        F16 | BF16 => 2,
        TF32 => 4,
        _ => 1,
    }
}

fn mma_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let n = c.imm(def, "n");
    let (at, bt) = (c.imm(def, "atype"), c.imm(def, "btype"));
    let regs = c.imm(def, "rs") != 0;
    if n % 8 != 0 {
        return Err(format!("N is {n}; it must be a multiple of 8 from 8 to 256"));
    }
    let fp8 = |t| t >= 3;
    if at != bt && !(fp8(at) && fp8(bt)) {
        return Err(format!(
            "A is {} but B is {}; only e4m3 and e5m2 mix",
            TYPES[at as usize], TYPES[bt as usize]
        ));
    }
    if (c.imm(def, "ta") != 0 || c.imm(def, "tb") != 0) && at > BF16 {
        return Err(format!("{} operands cannot be transposed (only f16 and bf16)", TYPES[at as usize]));
    }
    if regs && c.imm(def, "ta") != 0 {
        return Err("A from registers cannot be transposed".into());
    }
    let acc = Type::Vector(ScalarType::F32, (n / 2) as u8);
    if c.vars[0] != acc {
        return Err(format!("the accumulator is {}, expected {acc} (N/2 f32 per thread)", c.vars[0]));
    }
    let a = if regs { Type::Vector(ScalarType::U32, 4) } else { U64 };
    args_are(c.args, &[a, U64, BOOL])?;
    Ok(None)
}

fn mma_ptx(call: &Call, _: &[Type], _: &Function) -> Result<String, String> {
    let (at, n) = (call.imm("atype"), call.imm("n"));
    let k = k_of(at);
    let neg = |f: &str| if call.imm(f) != 0 { "-1" } else { "1" };
    let mut operands = format!("$[v0], $[a0], $[a1], $[a2], {}, {}", neg("na"), neg("nb"));
    if at <= BF16 {
        if call.imm("rs") == 0 {
            operands.push_str(&format!(", {}", call.imm("ta")));
        }
        operands.push_str(&format!(", {}", call.imm("tb")));
    }
    Ok(format!("wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.$[w.atype].$[w.btype] {operands};"))
}

/// An e4m3 value (1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no infinities).
pub fn e4m3_to_f32(b: u8) -> f32 {
    let s = if b & 0x80 != 0 { -1.0f32 } else { 1.0 };
    let (e, m) = ((b >> 3) & 0xf, b & 7);
    if e == 0xf && m == 7 {
        return f32::NAN;
    }
    if e == 0 {
        s * m as f32 / 8.0 * 2f32.powi(-6)
    } else {
        s * (1.0 + m as f32 / 8.0) * 2f32.powi(e as i32 - 7)
    }
}

/// An e5m2 value (1 sign, 5 exponent bits with bias 15, 2 mantissa bits, IEEE specials).
pub fn e5m2_to_f32(b: u8) -> f32 {
    half::f16::from_bits((b as u16) << 8).to_f32()
}

/// The value of an element of input type `t` from its bits.
fn decode(t: i64, bits: u64) -> f32 {
    match t {
        F16 => half::f16::from_bits(bits as u16).to_f32(),
        BF16 => half::bf16::from_bits(bits as u16).to_f32(),
        // The tensor cores read the top 19 bits of a tf32 operand.
        TF32 => f32::from_bits(bits as u32 & 0xffff_e000),
        3 => e4m3_to_f32(bits as u8),
        _ => e5m2_to_f32(bits as u8),
    }
}

/// A decoded shared-memory matrix descriptor.
struct Desc {
    start: u64,
    lbo: u64,
    sbo: u64,
    /// 16-byte chunks per swizzle row (1: no swizzle).
    w: u64,
}

impl Desc {
    fn new(e: &dyn Exec, bits: u64, what: &str) -> Result<Desc, String> {
        let field = |shift: u32| ((bits >> shift) & 0x3fff) << 4;
        let base_offset = (bits >> 49) & 7;
        if base_offset != 0 {
            return Err(e.fault(&format!(
                "the {what} matrix descriptor {bits:#018x} has base offset {base_offset}; the executor supports \
                 0 (swizzled operands aligned to their pattern)"
            )));
        }
        let w = match bits >> 62 {
            0 => 1,
            1 => 8,
            2 => 4,
            _ => 2,
        };
        Ok(Desc { start: field(0), lbo: field(16), sbo: field(32), w })
    }

    /// The shared address of element (`mn`, `k`) of `esize`-byte elements.
    fn addr(&self, mn: u64, k: u64, esize: u64, k_major: bool) -> u64 {
        let t = 16 / esize;
        let off = if k_major {
            let (chunk, byte) = ((k * esize) / 16, (k * esize) % 16);
            if self.w == 1 {
                (mn % 8) * 16 + (mn / 8) * self.sbo + chunk * self.lbo + byte
            } else {
                (mn % 8) * 16 * self.w + (mn / 8) * self.sbo + chunk * 16 + byte
            }
        } else {
            let (c, byte) = (mn / t, (mn % t) * esize);
            if self.w == 1 {
                c * self.sbo + (k % 8) * 16 + (k / 8) * self.lbo + byte
            } else {
                (c % self.w) * 16
                    + (c / self.w) * self.lbo
                    + (k % 8) * 16 * self.w
                    + (k / 8) * self.sbo
                    + byte
            }
        };
        let a = self.start + off;
        let bits = self.w.trailing_zeros() as u64;
        a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
    }
}

fn mma_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let n = call.imm("n") as usize;
    let (at, bt) = (call.imm("atype"), call.imm("btype"));
    let k = k_of(at) as usize;
    let regs = call.imm("rs") != 0;
    let (ta, tb) = (call.imm("ta") != 0, call.imm("tb") != 0);
    let sa = if call.imm("na") != 0 { -1.0f32 } else { 1.0 };
    let sb = if call.imm("nb") != 0 { -1.0f32 } else { 1.0 };
    let rank = e.cta_rank();
    let wq = (e.warp() % 4) as usize;
    let scale_d = uniform(e, &e.arg(2)[0], "wgmma's scale-d")? & 1 != 0;
    let b_desc = Desc::new(e, uniform(e, &e.arg(1)[0], "wgmma's B descriptor")?, "B")?;
    // A: this warp's 16 rows.
    let mut a = vec![[0f32; 32]; 16];
    if regs {
        let ar = e.arg(0).to_vec();
        for l in 0..32 {
            let (g, t) = (l / 4, l % 4);
            for (j, reg) in ar.iter().enumerate() {
                let bits = reg[l];
                match at {
                    F16 | BF16 => {
                        for h in 0..2 {
                            let i = 2 * j + h;
                            let row = g + if i % 4 >= 2 { 8 } else { 0 };
                            let col = 2 * t + (i & 1) + if i >= 4 { 8 } else { 0 };
                            a[row][col] = decode(at, bits >> (16 * h));
                        }
                    }
                    TF32 => a[g + 8 * (j % 2)][t + 4 * (j / 2)] = decode(at, bits),
                    _ => {
                        for byte in 0..4 {
                            a[g + 8 * (j % 2)][4 * t + byte + 16 * (j / 2)] = decode(at, bits >> (8 * byte));
                        }
                    }
                }
            }
        }
    } else {
        let d = Desc::new(e, uniform(e, &e.arg(0)[0], "wgmma's A descriptor")?, "A")?;
        let es = esize(at) as u64;
        for (r, row) in a.iter_mut().enumerate() {
            for (kk, x) in row.iter_mut().enumerate().take(k) {
                let addr = d.addr((16 * wq + r) as u64, kk as u64, es, !ta);
                *x = decode(at, e.shared_read(rank, addr, es as u32)?);
            }
        }
    }
    let es = esize(bt) as u64;
    let mut b = vec![[0f32; 32]; n];
    for (col, row) in b.iter_mut().enumerate() {
        for (kk, x) in row.iter_mut().enumerate().take(k) {
            let addr = b_desc.addr(col as u64, kk as u64, es, !tb);
            *x = decode(bt, e.shared_read(rank, addr, es as u32)?);
        }
    }
    let acc = e.var(0);
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for i in 0..n / 8 {
            for v in 0..4 {
                let row = g + if v >= 2 { 8 } else { 0 };
                let col = 8 * i + 2 * t + (v & 1);
                let reg = &mut acc[4 * i + v];
                let mut sum = if scale_d { f32::from_bits(reg[l] as u32) } else { 0.0 };
                for kk in 0..k {
                    sum += (sa * a[row][kk]) * (sb * b[col][kk]);
                }
                reg[l] = sum.to_bits() as u64;
            }
        }
    }
    Ok(Flow::Next)
}

/// `wgmma.mma_async.sync.aligned.m64nNkK.f32.atype.btype`.
pub static MMA: Def = Def {
    name: "wgmma.mma",
    doc: "warpgroup D = A B^T (+ D if scale-d) on a 64xN tile, asynchronously; variable: the f32 \
          accumulators (N/2 per thread); operands: A (descriptor, or 4 u32 with rs), B descriptor, scale-d",
    imms: &[
        Imm { name: "n", kind: ImmKind::Num { prefix: "n", min: 8, max: 256 } },
        Imm { name: "atype", kind: ImmKind::Word(TYPES) },
        Imm { name: "btype", kind: ImmKind::Word(TYPES) },
        Imm { name: "rs", kind: ImmKind::Flag("rs") },
        Imm { name: "ta", kind: ImmKind::Flag("ta") },
        Imm { name: "tb", kind: ImmKind::Flag("tb") },
        Imm { name: "na", kind: ImmKind::Flag("na") },
        Imm { name: "nb", kind: ImmKind::Flag("nb") },
    ],
    mems: &[],
    vars: 1,
    sig: mma_sig,
    effects: Effects::READ.converged(Converged::Warpgroup),
    feature: Some(Feature::Wgmma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: mma_ptx,
    ptx_globals: &[],
    exec: mma_exec,
};

macro_rules! wg_sync {
    ($id:ident, $name:expr, $doc:expr, $ptx:expr) => {
        #[doc = $doc]
        pub static $id: Def = Def {
            name: $name,
            doc: $doc,
            imms: &[],
            mems: &[],
            vars: 0,
            sig: sig_none,
            effects: Effects::SYNC.converged(Converged::Warpgroup),
            feature: Some(Feature::Wgmma),
            extra_feature: no_extra,
            ptx_version: (8, 0),
            ptx: ptx_text!($ptx),
            ptx_globals: &[],
            // The executor completes each wgmma when it issues.
            exec: |_, _| Ok(Flow::Next),
        };
    };
}

wg_sync!(
    FENCE,
    "wgmma.fence",
    "orders register and shared-memory accesses before the following wgmma operations read them",
    "wgmma.fence.sync.aligned;"
);
wg_sync!(
    COMMIT,
    "wgmma.commit",
    "closes the group of wgmma operations issued since the last commit",
    "wgmma.commit_group.sync.aligned;"
);

/// `wgmma.wait_group.sync.aligned N`.
pub static WAIT: Def = Def {
    name: "wgmma.wait",
    doc: "waits until at most N committed wgmma groups are pending (their accumulators are then readable)",
    imms: &[Imm { name: "pending", kind: ImmKind::Num { prefix: "", min: 0, max: 7 } }],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC.converged(Converged::Warpgroup),
    feature: Some(Feature::Wgmma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("wgmma.wait_group.sync.aligned $[i.pending];"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Next),
};

fn setmaxnreg_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let n = c.imm(def, "regs");
    if n % 8 != 0 {
        return Err(format!("the register count is {n}; it must be a multiple of 8 from 24 to 256"));
    }
    sig_none(def, c)
}

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 N`.
pub static SETMAXNREG: Def = Def {
    name: "setmaxnreg",
    doc:
        "raises (inc) or lowers (dec) the registers per thread of the warpgroup to N (24 to 256, a multiple \
          of 8), moving registers between warpgroups",
    imms: &[
        Imm { name: "dir", kind: ImmKind::Word(&["inc", "dec"]) },
        Imm { name: "regs", kind: ImmKind::Num { prefix: "", min: 24, max: 256 } },
    ],
    mems: &[],
    vars: 0,
    sig: setmaxnreg_sig,
    effects: Effects::SYNC.converged(Converged::Warpgroup),
    feature: Some(Feature::SetMaxNReg),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("setmaxnreg.$[w.dir].sync.aligned.u32 $[i.regs];"),
    ptx_globals: &[],
    // Registers are not a resource on the executor.
    exec: |_, _| Ok(Flow::Next),
};

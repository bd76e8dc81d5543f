//! Warp-level tensor-core intrinsics: `mma.sync` (sm_80; the f64 m16n8k16 shape sm_90) and the shared-memory matrix moves
//! `ldmatrix` (sm_80) and `stmatrix` (sm_90).

use super::*;

/// An f16 or bf16 value's bits as f32.
pub fn half_to_f32(bf16: bool, bits: u64) -> f32 {
    if bf16 {
        half::bf16::from_bits(bits as u16).to_f32()
    } else {
        half::f16::from_bits(bits as u16).to_f32()
    }
}

fn mma_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let f32x4 = Type::Vector(ScalarType::F32, 4);
    args_are(c.args, &[Type::Vector(ScalarType::U32, 4), Type::Vector(ScalarType::U32, 2), f32x4])?;
    Ok(Some(f32x4))
}

/// `d = a * b + c` on one 16x8x16 tile, the fragments laid out as PTX documents them: lane
/// `l` (group `g = l / 4`, thread `t = l % 4`) holds A elements (row `g + 8 [i % 4 >= 2]`, column
/// `2t + i % 2 + 8 [i >= 4]`) for i in 0..8 packed two per register, B elements (row
/// `2t + i % 2 + 8 [i >= 2]`, column `g`) for i in 0..4, and C/D elements (row `g + 8 [i >= 2]`,
/// column `2t + i % 2`).
fn mma_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let bf16 = call.imm("elem") == 1;
    let (a, b, c) = (e.arg(0).to_vec(), e.arg(1).to_vec(), e.arg(2).to_vec());
    let mut am = [[0f32; 16]; 16];
    let mut bm = [[0f32; 8]; 16];
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for i in 0..8 {
            let bits = a[i / 2][l] >> (16 * (i % 2));
            let row = if i % 4 < 2 { g } else { g + 8 };
            let col = t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
            am[row][col] = half_to_f32(bf16, bits);
        }
        for i in 0..4 {
            let bits = b[i / 2][l] >> (16 * (i % 2));
            let row = t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 };
            bm[row][g] = half_to_f32(bf16, bits);
        }
    }
    for i in 0..4 {
        let mut d = [0u64; 32];
        for (l, out) in d.iter_mut().enumerate() {
            let (g, t) = (l / 4, l % 4);
            let row = g + if i >= 2 { 8 } else { 0 };
            let col = t * 2 + (i & 1);
            let mut acc = f32::from_bits(c[i][l] as u32);
            for (k, arow) in am[row].iter().enumerate() {
                acc += arow * bm[k][col];
            }
            *out = acc.to_bits() as u64;
        }
        e.set_result(i, d);
    }
    Ok(Flow::Next)
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`.
pub static MMA: Def = Def {
    name: "mma.m16n8k16",
    doc: "one warp-wide tensor-core step d = a b + c on a 16x8x16 tile (a: 4 u32 of packed halves, b: 2, \
          c and d: 4 f32 per lane)",
    imms: &[Imm { name: "elem", kind: ImmKind::Word(&["f16", "bf16"]) }],
    mems: &[],
    vars: 0,
    sig: mma_sig,
    effects: Effects::WARP,
    feature: Some(Feature::MmaSync),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: |_, _, _| {
        Ok("mma.sync.aligned.m16n8k16.row.col.f32.$[w.elem].$[w.elem].f32 $[d], $[a0], $[a1], $[a2];".into())
    },
    ptx_globals: &[],
    exec: mma_exec,
};

fn dmma_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let f64s = Type::Scalar(ScalarType::F64);
    let f64x2 = Type::Vector(ScalarType::F64, 2);
    args_are(c.args, &[f64s, f64s, f64x2])?;
    Ok(Some(f64x2))
}

/// `d = a * b + c` on one 8x8x4 f64 tile, the fragments laid out as PTX documents them: lane
/// `l` (group `g = l / 4`, thread `t = l % 4`) holds A element (row `g`, column `t`), B element
/// (row `t`, column `g`) and C/D elements (row `g`, columns `2t`, `2t + 1`). Each output is
/// `c` plus the four products added in k order with fused multiply-adds (the tensor core
/// rounds once per step at most as finely; results agree to the last bits, not bitwise).
fn dmma_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let (a, b, c) = (e.arg(0).to_vec(), e.arg(1).to_vec(), e.arg(2).to_vec());
    let mut am = [[0f64; 4]; 8];
    let mut bm = [[0f64; 8]; 4];
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        am[g][t] = f64::from_bits(a[0][l]);
        bm[t][g] = f64::from_bits(b[0][l]);
    }
    for i in 0..2 {
        let mut d = [0u64; 32];
        for (l, out) in d.iter_mut().enumerate() {
            let (g, t) = (l / 4, l % 4);
            let col = 2 * t + i;
            let mut acc = f64::from_bits(c[i][l]);
            for (k, arow) in am[g].iter().enumerate() {
                acc = arow.mul_add(bm[k][col], acc);
            }
            *out = acc.to_bits();
        }
        e.set_result(i, d);
    }
    Ok(Flow::Next)
}

/// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64` (the FP64 tensor core, sm_80+).
pub static DMMA: Def = Def {
    name: "mma.m8n8k4",
    doc: "one warp-wide FP64 tensor-core step d = a b + c on an 8x8x4 tile (a, b: one f64 per lane, c and \
          d: 2 f64 per lane)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: dmma_sig,
    effects: Effects::WARP,
    feature: Some(Feature::MmaSync),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: |_, _, _| Ok("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 $[d], {$[a0]}, {$[a1]}, $[a2];".into()),
    ptx_globals: &[],
    exec: dmma_exec,
};

fn dmma16_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let f64x4 = Type::Vector(ScalarType::F64, 4);
    args_are(c.args, &[Type::Vector(ScalarType::F64, 8), f64x4, f64x4])?;
    Ok(Some(f64x4))
}

fn dmma8_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let f64x4 = Type::Vector(ScalarType::F64, 4);
    args_are(c.args, &[f64x4, Type::Vector(ScalarType::F64, 2), f64x4])?;
    Ok(Some(f64x4))
}

/// Where fragment element `i` of lane `l` sits in each operand of `mma.m16n8k16.f64`, as the
/// PTX ISA lays them out ("Matrix Fragments for mma.m16n8k16", `.f64`; group `g = l / 4`,
/// thread `t = l % 4`): `(row, column)` of A (16 x 16, `i` in 0..8), of B (16 x 8, `i` in 0..4)
/// and of C/D (16 x 8, `i` in 0..4). `mma.m16n8k8.f64` ("Matrix Fragments for mma.m16n8k8",
/// `.f64`) places its A (16 x 8, `i` in 0..4), B (8 x 8, `i` in 0..2) and C/D by the same
/// formulas: its fragments are the first half of the 16-deep shape's.
pub fn dmma16_a_pos(l: usize, i: usize) -> (usize, usize) {
    (l / 4 + 8 * (i % 2), l % 4 + 4 * (i / 2))
}
/// See [`dmma16_a_pos`].
pub fn dmma16_b_pos(l: usize, i: usize) -> (usize, usize) {
    (l % 4 + 4 * i, l / 4)
}
/// See [`dmma16_a_pos`].
pub fn dmma16_c_pos(l: usize, i: usize) -> (usize, usize) {
    (l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2)
}

/// `d = a * b + c` on one 16x8x`K` f64 tile (`K` 16 or 8), the fragments at
/// [`dmma16_a_pos`], [`dmma16_b_pos`] and [`dmma16_c_pos`]. Each output is `c` plus the `K`
/// products added in k order (k = 0 first) with fused multiply-adds. The tensor core's internal
/// order is unspecified: results agree with the GPU to the last bits of a `K`-term sum, not
/// bitwise.
fn dmma_m16_exec<const K: usize>(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let (a, b, c) = (e.arg(0).to_vec(), e.arg(1).to_vec(), e.arg(2).to_vec());
    let mut am = [[0f64; K]; 16];
    let mut bm = [[0f64; 8]; K];
    for l in 0..32 {
        for (i, reg) in a.iter().enumerate() {
            let (row, col) = dmma16_a_pos(l, i);
            am[row][col] = f64::from_bits(reg[l]);
        }
        for (i, reg) in b.iter().enumerate() {
            let (row, col) = dmma16_b_pos(l, i);
            bm[row][col] = f64::from_bits(reg[l]);
        }
    }
    for (i, creg) in c.iter().enumerate() {
        let mut d = [0u64; 32];
        for (l, out) in d.iter_mut().enumerate() {
            let (row, col) = dmma16_c_pos(l, i);
            let mut acc = f64::from_bits(creg[l]);
            for (k, arow) in am[row].iter().enumerate() {
                acc = arow.mul_add(bm[k][col], acc);
            }
            *out = acc.to_bits();
        }
        e.set_result(i, d);
    }
    Ok(Flow::Next)
}

/// `mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64` (SASS `DMMA.16x8x16`, sm_90+).
pub static DMMA16: Def = Def {
    name: "mma.m16n8k16.f64",
    doc: "one warp-wide FP64 tensor-core step d = a b + c on a 16x8x16 tile (a: 8 f64 per lane, b: 4, c \
          and d: 4)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: dmma16_sig,
    effects: Effects::WARP,
    feature: Some(Feature::MmaF64M16),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |_, _, _| Ok("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 $[d], $[a0], $[a1], $[a2];".into()),
    ptx_globals: &[],
    exec: dmma_m16_exec::<16>,
};

/// `mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64` (SASS `DMMA.16x8x8`, sm_90+): half the
/// depth of [`DMMA16`], so half the fragment registers per step.
pub static DMMA8: Def = Def {
    name: "mma.m16n8k8.f64",
    doc: "one warp-wide FP64 tensor-core step d = a b + c on a 16x8x8 tile (a: 4 f64 per lane, b: 2, c \
          and d: 4)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: dmma8_sig,
    effects: Effects::WARP,
    feature: Some(Feature::MmaF64M16),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |_, _, _| Ok("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 $[d], $[a0], $[a1], $[a2];".into()),
    ptx_globals: &[],
    exec: dmma_m16_exec::<8>,
};

/// The register type of `num` 32-bit matrix registers.
fn matrix_regs(num: i64) -> Type {
    if num == 1 {
        U32
    } else {
        Type::Vector(ScalarType::U32, num as u8)
    }
}

fn check_matrix_mem(def: &Def, c: &SigCtx) -> Result<i64, String> {
    let num = c.imm(def, "num");
    if ![1, 2, 4].contains(&num) {
        return Err(format!("moves 1, 2 or 4 matrices, not {num}"));
    }
    if c.mems[0].elem.size() != 2 {
        return Err(format!("moves 16-bit elements, but `{}` holds {}", c.mems[0].name, c.mems[0].elem));
    }
    Ok(num)
}

fn ldmatrix_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let num = check_matrix_mem(def, c)?;
    arg_count(c.args, 1)?;
    is_index(c.args, 0)?;
    Ok(Some(matrix_regs(num)))
}

fn stmatrix_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let num = check_matrix_mem(def, c)?;
    arg_count(c.args, 2)?;
    is_index(c.args, 0)?;
    if c.args[1] != matrix_regs(num) {
        return Err(format!("the matrix registers are {}, expected {}", c.args[1], matrix_regs(num)));
    }
    Ok(None)
}

/// The element index where row `lane % 8` of matrix `lane / 8` starts, checked to be 16-byte
/// aligned.
fn row_start(e: &dyn Exec, call: &Call, lane: usize, what: &str) -> Result<i128, String> {
    let index = index_value(e.arg_type(0), e.arg(0)[0][lane]);
    if index % 8 != 0 {
        return Err(e.fault(&format!(
            "{what} row start {index} of `{}` (lane {lane}) is not 16-byte aligned",
            e.func().mem(call.mems[0]).name
        )));
    }
    Ok(index)
}

/// Lane `l` of matrix register `m` holds row `l / 4`, columns `2 (l % 4)` and `+1` of matrix `m`
/// (transposed: row and column swapped); lane `8m + r` gives the start of row `r` of matrix `m`.
fn fragment_pos(lane: usize, half: usize, trans: bool) -> (usize, usize) {
    let (r, c) = (lane / 4, 2 * (lane % 4) + half);
    if trans {
        (c, r)
    } else {
        (r, c)
    }
}

fn ldmatrix_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let (num, trans) = (call.imm("num") as usize, call.imm("trans") != 0);
    // Every lane's row address is read, as on the GPU where the whole warp takes part.
    let mut rows = [[0u16; 8]; 32];
    for (lane, row) in rows.iter_mut().enumerate().take(num * 8) {
        let start = row_start(e, call, lane, "ldmatrix")?;
        for (k, v) in row.iter_mut().enumerate() {
            *v = e.read(0, lane, start + k as i128)? as u16;
        }
    }
    for m in 0..num {
        let mut d = [0u64; 32];
        for (lane, out) in d.iter_mut().enumerate() {
            let mut bits = 0u64;
            for half in 0..2 {
                let (r, c) = fragment_pos(lane, half, trans);
                bits |= (rows[m * 8 + r][c] as u64) << (16 * half);
            }
            *out = bits;
        }
        e.set_result(m, d);
    }
    Ok(Flow::Next)
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`.
pub static LDMATRIX: Def = Def {
    name: "ldmatrix",
    doc: "loads 1, 2 or 4 8x8 matrices of 16-bit elements from shared memory into mma fragments; lane 8m+r \
          gives the element index of row r of matrix m",
    imms: &[
        Imm { name: "num", kind: ImmKind::Num { prefix: "x", min: 1, max: 4 } },
        Imm { name: "trans", kind: ImmKind::Flag("trans") },
    ],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: ldmatrix_sig,
    effects: Effects::READ.converged(Converged::Warp),
    feature: Some(Feature::LdMatrix),
    extra_feature: no_extra,
    ptx_version: (6, 5),
    ptx: |call, _, _| {
        let t = if call.imm("trans") != 0 { ".trans" } else { "" };
        let d = if call.imm("num") == 1 { "{$[d]}" } else { "$[d]" };
        Ok(format!("ldmatrix.sync.aligned.m8n8.x$[i.num]{t}.shared.b16 {d}, [$[saddr0:a0]];"))
    },
    ptx_globals: &[],
    exec: ldmatrix_exec,
};

fn stmatrix_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let (num, trans) = (call.imm("num") as usize, call.imm("trans") != 0);
    let regs = e.arg(1).to_vec();
    let mut rows = [[0u16; 8]; 32];
    for (m, reg) in regs.iter().enumerate().take(num) {
        for lane in 0..32 {
            for half in 0..2 {
                let (r, c) = fragment_pos(lane, half, trans);
                rows[m * 8 + r][c] = (reg[lane] >> (16 * half)) as u16;
            }
        }
    }
    for (lane, row) in rows.iter().enumerate().take(num * 8) {
        let start = row_start(e, call, lane, "stmatrix")?;
        for (k, v) in row.iter().enumerate() {
            e.write(0, lane, start + k as i128, *v as u64)?;
        }
    }
    Ok(Flow::Next)
}

/// `stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`: the inverse of `ldmatrix`.
pub static STMATRIX: Def = Def {
    name: "stmatrix",
    doc: "stores 1, 2 or 4 8x8 matrices of 16-bit elements from mma fragments to shared memory; lane 8m+r \
          gives the element index of row r of matrix m",
    imms: &[
        Imm { name: "num", kind: ImmKind::Num { prefix: "x", min: 1, max: 4 } },
        Imm { name: "trans", kind: ImmKind::Flag("trans") },
    ],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: stmatrix_sig,
    effects: Effects::WRITE.converged(Converged::Warp),
    feature: Some(Feature::StMatrix),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |call, _, _| {
        let t = if call.imm("trans") != 0 { ".trans" } else { "" };
        let a = if call.imm("num") == 1 { "{$[a1]}" } else { "$[a1]" };
        Ok(format!("stmatrix.sync.aligned.m8n8.x$[i.num]{t}.shared.b16 [$[saddr0:a0]], {a};"))
    },
    ptx_globals: &[],
    exec: stmatrix_exec,
};

//! Tensor maps on every backend: valid maps encode, and each driver rule (and the buffer's
//! extent) is enforced with an error that names it, on the CPU exactly as on a GPU.

mod common;

use ferrocm_runtime::{
    Error, TensorMap, TensorMapDataType, TensorMapDesc, TensorMapOobFill, TensorMapSwizzle, TiledLayout,
};

fn rule_error(r: ferrocm_runtime::Result<TensorMap<'_>>, needle: &str) -> common::TestResult {
    match r {
        Err(Error::InvalidTensorMap { rule }) if rule.contains(needle) => Ok(()),
        Err(e) => Err(format!("expected a tensor-map rule containing {needle:?}, got {e}").into()),
        Ok(m) => Err(format!("expected an error containing {needle:?}, got a map {m:?}").into()),
    }
}

conformance! {
    valid_maps_encode(device) {
        let stream = device.create_stream()?;
        // A 1000 x 300 bf16 matrix with rows padded to 1024 elements, 64 x 128 boxes, 128B swizzle.
        let buf = stream.alloc_zeroed::<half::bf16>(1024 * 300)?;
        let layout = TiledLayout::new(&[1000, 300], &[64, 128])
            .with_strides(&[2048])
            .with_swizzle(TensorMapSwizzle::B128);
        let map = TensorMap::tiled(&buf, &layout)?;
        let d = map.desc();
        assert_eq!(d.data_type, TensorMapDataType::BF16);
        assert_eq!((d.rank, d.global_dims[..2].to_vec(), d.global_strides[0]), (2, vec![1000, 300], 2048));
        assert_eq!(d.global_address, ferrocm_runtime::AsDeviceSlice::device_ptr(&buf));
        assert_ne!(map.bytes().0, [0u8; 128], "the encoding is empty");
        if device.kind() == ferrocm_runtime::BackendKind::Cpu {
            assert_eq!(TensorMapDesc::from_cpu_bytes(&map.bytes().0).as_ref(), Some(d));
        }
        // Dense strides are derived: 5 dimensions of f32, the largest rank.
        let cube = stream.alloc_zeroed::<f32>(4 * 4 * 4 * 4 * 8)?;
        let m5 = TensorMap::tiled(&cube, &TiledLayout::new(&[8, 4, 4, 4, 4], &[4, 2, 2, 2, 2]))?;
        assert_eq!(m5.desc().global_strides, [32, 128, 512, 2048]);
        // An f32 tensor described as tf32, with NaN fill.
        let t = TensorMap::tiled(&cube, &TiledLayout::new(&[8, 64], &[8, 8]).tf32().with_oob_fill(TensorMapOobFill::NanRequestZeroFma))?;
        assert_eq!(t.desc().data_type, TensorMapDataType::TF32);
        Ok(())
    }

    rule_violations_are_named(device) {
        let stream = device.create_stream()?;
        let buf = stream.alloc_zeroed::<f32>(64 * 64)?;
        let base = || TiledLayout::new(&[64, 64], &[16, 16]);
        rule_error(TensorMap::tiled(&buf, &TiledLayout::new(&[], &[])), "rank 0")?;
        rule_error(TensorMap::tiled(&buf, &TiledLayout::new(&[2; 6], &[1; 6])), "rank 6")?;
        rule_error(TensorMap::tiled(&buf, &base().with_strides(&[250])), "multiples of 16")?;
        rule_error(TensorMap::tiled(&buf, &base().with_strides(&[128])), "less than the 256 bytes")?;
        rule_error(TensorMap::tiled(&buf, &TiledLayout::new(&[64, 64], &[16, 300])), "from 1 to 256")?;
        rule_error(TensorMap::tiled(&buf, &TiledLayout::new(&[64, 64], &[2, 16])), "multiple of 16 bytes")?;
        rule_error(
            TensorMap::tiled(&buf, &TiledLayout::new(&[64, 64], &[64, 1]).with_swizzle(TensorMapSwizzle::B64)),
            "more than the 64-byte swizzle span",
        )?;
        rule_error(TensorMap::tiled(&buf, &base().with_element_strides(&[1, 9])), "element strides must be from 1 to 8")?;
        rule_error(TensorMap::tiled(&buf, &TiledLayout::new(&[64, 64], &[16])), "1 box dimensions given")?;
        // The tensor must fit in the view: 65 rows of 64 f32 do not fit in 64 rows.
        rule_error(TensorMap::tiled(&buf, &TiledLayout::new(&[64, 65], &[16, 16])), "the buffer view holds 16384")?;
        // A misaligned view (4 bytes in) breaks the 16-byte address rule.
        let view = buf.slice(1..)?;
        rule_error(TensorMap::tiled(&view, &TiledLayout::new(&[16, 16], &[16, 16])), "not 16-byte aligned")?;
        let ints = stream.alloc_zeroed::<u32>(64)?;
        rule_error(
            TensorMap::tiled(&ints, &TiledLayout::new(&[64], &[16]).with_oob_fill(TensorMapOobFill::NanRequestZeroFma)),
            "only for floating-point",
        )?;
        rule_error(TensorMap::tiled(&ints, &TiledLayout::new(&[64], &[16]).tf32()), "tf32 applies only to f32")?;
        Ok(())
    }
}

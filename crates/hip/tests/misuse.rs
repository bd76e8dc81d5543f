//! Misuse of the C ABI, case by case: each call must return HIP's error code (and record it as
//! the thread's last error), never crash, and leave every byte of memory it was given as it was.
//! The cases call the exported functions directly, as a C program would.

use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};

use ferrocm_hip::device::*;
use ferrocm_hip::error::HipError;
use ferrocm_hip::memory::*;
use ferrocm_hip::module::*;
use ferrocm_hip::stream::*;

/// A kernel for the module cases: `fill(p, v, n)` stores `v` to `p[tid]` for `tid < n`.
const FILL_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64
.visible .entry fill(.param .u64 p, .param .u32 v, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %tid.x;
    setp.ge.u32 %p1, %r3, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
DONE:
    ret;
}
\0";

/// Memory the cases may point at: 64 device bytes and 64 host bytes, both filled with 0xA5, which
/// must read back unchanged after every case.
struct Fixture {
    dev: *mut c_void,
    host: Vec<u8>,
    module: *mut c_void,
    fill: *mut c_void,
}

const SENTINEL: u8 = 0xA5;

fn ok(e: HipError) {
    assert_eq!(
        e,
        HipError::hipSuccess,
        "{}",
        unsafe { std::ffi::CStr::from_ptr(ferrocmHipGetLastErrorMessage()) }.to_string_lossy()
    );
}

impl Fixture {
    fn new() -> Fixture {
        let mut dev = null_mut();
        unsafe {
            ok(hipMalloc(&mut dev, 64));
            ok(hipMemset(dev, SENTINEL as c_int, 64));
        }
        let (mut module, mut fill) = (null_mut(), null_mut());
        unsafe {
            ok(hipModuleLoadData(&mut module, FILL_PTX.as_ptr() as *const c_void));
            ok(hipModuleGetFunction(&mut fill, module, c"fill".as_ptr()));
        }
        Fixture { dev, host: vec![SENTINEL; 64], module, fill }
    }

    fn untouched(&self) -> bool {
        let mut back = [0u8; 64];
        unsafe { ok(hipMemcpy(back.as_mut_ptr() as *mut c_void, self.dev, 64, 2)) };
        back.iter().all(|&b| b == SENTINEL) && self.host.iter().all(|&b| b == SENTINEL)
    }
}

struct Case {
    name: &'static str,
    want: HipError,
    call: fn(&mut Fixture) -> HipError,
}

fn check(case: &Case, f: &mut Fixture) {
    let _ = hipGetLastError();
    let got = (case.call)(f);
    assert_eq!(got, case.want, "{}: got {:?}", case.name, got.name());
    assert_eq!(hipGetLastError(), case.want, "{}: the last error records the failure", case.name);
    assert_eq!(hipGetLastError(), HipError::hipSuccess, "{}: hipGetLastError resets it", case.name);
    assert!(f.untouched(), "{}: memory was written", case.name);
}

const BOGUS: *mut c_void = 0x5eed_0000 as *mut c_void;

/// `HIP_LAUNCH_PARAM_BUFFER_POINTER`, `_SIZE` and `_END`: small integers cast to pointers.
fn launch_param(key: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(key)
}

fn cases() -> Vec<Case> {
    use HipError as H;
    vec![
        Case {
            name: "hipMalloc into null",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipMalloc(null_mut(), 16) },
        },
        Case {
            name: "copy past the end of the allocation",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                hipMemcpy((f.dev as usize + 8) as *mut c_void, f.host.as_ptr() as *const c_void, 64, 1)
            },
        },
        Case {
            name: "copy of an unknown kind",
            want: H::hipErrorInvalidMemcpyDirection,
            call: |f| unsafe { hipMemcpy(f.dev, f.host.as_ptr() as *const c_void, 8, 9) },
        },
        Case {
            name: "host-to-device copy into host memory",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipMemcpy(f.host.as_mut_ptr() as *mut c_void, f.dev, 8, 1) },
        },
        Case {
            name: "device-to-host copy from host memory",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                hipMemcpy(f.host.as_mut_ptr() as *mut c_void, f.host.as_ptr() as *const c_void, 8, 2)
            },
        },
        Case {
            name: "copy to null",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipMemcpy(null_mut(), f.dev, 8, 2) },
        },
        Case {
            name: "async copy on an unknown stream",
            want: H::hipErrorInvalidHandle,
            call: |f| unsafe { hipMemcpyAsync(f.dev, f.host.as_ptr() as *const c_void, 8, 1, BOGUS) },
        },
        Case {
            name: "memset of host memory",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipMemset(f.host.as_mut_ptr() as *mut c_void, 0, 8) },
        },
        Case {
            name: "memset past the end",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipMemset((f.dev as usize + 60) as *mut c_void, 0, 8) },
        },
        Case {
            name: "32-bit fill past the end",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipMemsetD32(f.dev, 0x1234, 17) },
        },
        Case {
            name: "2D copy with the width over the pitch",
            want: H::hipErrorInvalidPitchValue,
            call: |f| unsafe { hipMemcpy2D(f.dev, 8, f.host.as_ptr() as *const c_void, 16, 12, 2, 1) },
        },
        Case {
            name: "free of an unknown pointer",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipFree(BOGUS) },
        },
        Case {
            name: "free of an interior pointer",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipFree((f.dev as usize + 4) as *mut c_void) },
        },
        Case {
            name: "hipHostFree of device memory",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipHostFree(f.dev) },
        },
        Case {
            name: "managed memory with unknown flags",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipMallocManaged(&mut null_mut(), 16, 7) },
        },
        Case {
            name: "pinned memory with unknown flags",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipHostMalloc(&mut null_mut(), 16, 0x100) },
        },
        Case {
            name: "a negative device",
            want: H::hipErrorInvalidDevice,
            call: |_| unsafe { hipSetDevice(-1) },
        },
        Case {
            name: "a device past the last",
            want: H::hipErrorInvalidDevice,
            call: |_| unsafe { hipSetDevice(1000) },
        },
        Case {
            name: "properties into null",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipGetDeviceProperties(null_mut(), 0) },
        },
        Case {
            name: "an unknown attribute",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipDeviceGetAttribute(&mut 0, 5000, 0) },
        },
        Case {
            name: "a stream with unknown flags",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipStreamCreateWithFlags(&mut null_mut(), 0x80) },
        },
        Case {
            name: "destroying an unknown stream",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe { hipStreamDestroy(BOGUS) },
        },
        Case {
            name: "destroying the null stream",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe { hipStreamDestroy(null_mut()) },
        },
        Case {
            name: "synchronizing an unknown stream",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe { hipStreamSynchronize(BOGUS) },
        },
        Case {
            name: "waiting with flags",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipStreamWaitEvent(null_mut(), BOGUS, 1) },
        },
        Case {
            name: "a stream wait on a misaligned word",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                hipStreamWaitValue32(null_mut(), (f.dev as usize + 2) as *mut c_void, 0, 0, u32::MAX)
            },
        },
        Case {
            name: "a stream wait with unknown flags",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipStreamWaitValue32(null_mut(), f.dev, 0, 4, u32::MAX) },
        },
        Case {
            name: "a stream wait with a partial mask",
            want: H::hipErrorNotSupported,
            call: |f| unsafe { hipStreamWaitValue64(null_mut(), f.dev, 0, 0, 0xff) },
        },
        Case {
            name: "a stream write to host memory",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipStreamWriteValue32(null_mut(), f.host.as_mut_ptr() as *mut c_void, 7, 0) },
        },
        Case {
            name: "a stream write past the end of the allocation",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                hipStreamWriteValue64(null_mut(), (f.dev as usize + 64) as *mut c_void, 7, 0)
            },
        },
        Case {
            name: "a stream write to freed memory",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe {
                let mut p = null_mut();
                ok(hipMalloc(&mut p, 64));
                ok(hipFree(p));
                hipStreamWriteValue32(null_mut(), p, 7, 0)
            },
        },
        Case {
            name: "a stream write with flags",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe { hipStreamWriteValue32(null_mut(), f.dev, 7, 1) },
        },
        Case {
            name: "recording an unknown event",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe { hipEventRecord(BOGUS, null_mut()) },
        },
        Case {
            name: "an event with unknown flags",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipEventCreateWithFlags(&mut null_mut(), 0x40) },
        },
        Case {
            name: "timing events never recorded",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe {
                let (mut a, mut b) = (null_mut(), null_mut());
                ok(hipEventCreate(&mut a));
                ok(hipEventCreate(&mut b));
                let r = hipEventElapsedTime(&mut 0.0, a, b);
                // Successful calls leave the last error as it is.
                ok(hipEventDestroy(a));
                ok(hipEventDestroy(b));
                r
            },
        },
        Case {
            name: "timing into null",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipEventElapsedTime(null_mut(), BOGUS, BOGUS) },
        },
        Case {
            name: "a copy to an unregistered symbol",
            want: H::hipErrorInvalidSymbol,
            call: |f| unsafe {
                hipMemcpyToSymbol(f.host.as_ptr() as *const c_void, f.host.as_ptr() as *const c_void, 4, 0, 1)
            },
        },
        Case {
            name: "launching something that is not a kernel",
            want: H::hipErrorInvalidDeviceFunction,
            call: |f| unsafe {
                hipLaunchKernel(
                    f.host.as_ptr() as *const c_void,
                    CDim3 { x: 1, y: 1, z: 1 },
                    CDim3 { x: 1, y: 1, z: 1 },
                    null_mut(),
                    0,
                    null_mut(),
                )
            },
        },
        Case {
            name: "a module image that is not PTX",
            want: H::hipErrorInvalidImage,
            call: |_| unsafe {
                hipModuleLoadData(&mut null_mut(), c"\x7fELF garbage".as_ptr() as *const c_void)
            },
        },
        Case {
            name: "a null module image",
            want: H::hipErrorInvalidValue,
            call: |_| unsafe { hipModuleLoadData(&mut null_mut(), null()) },
        },
        Case {
            name: "a function of an unknown module",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe { hipModuleGetFunction(&mut null_mut(), BOGUS, c"fill".as_ptr()) },
        },
        Case {
            name: "a kernel the module lacks",
            want: H::hipErrorNotFound,
            call: |f| unsafe { hipModuleGetFunction(&mut null_mut(), f.module, c"nope".as_ptr()) },
        },
        Case {
            name: "launching an unknown function",
            want: H::hipErrorInvalidHandle,
            call: |_| unsafe {
                hipModuleLaunchKernel(BOGUS, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut())
            },
        },
        Case {
            name: "a launch without its arguments",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                hipModuleLaunchKernel(f.fill, 1, 1, 1, 16, 1, 1, 0, null_mut(), null_mut(), null_mut())
            },
        },
        Case {
            name: "a launch with a null argument",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                let n = 16u32;
                let mut args = [&f.dev as *const _ as *mut c_void, null_mut(), &n as *const _ as *mut c_void];
                hipModuleLaunchKernel(f.fill, 1, 1, 1, 16, 1, 1, 0, null_mut(), args.as_mut_ptr(), null_mut())
            },
        },
        Case {
            name: "a packed argument buffer that is too short",
            want: H::hipErrorInvalidValue,
            call: |f| unsafe {
                let buf = [0u8; 12];
                let mut size = buf.len();
                let mut extra = [
                    launch_param(1),
                    buf.as_ptr() as *mut c_void,
                    launch_param(2),
                    &mut size as *mut _ as *mut c_void,
                    launch_param(3),
                ];
                hipModuleLaunchKernel(
                    f.fill,
                    1,
                    1,
                    1,
                    16,
                    1,
                    1,
                    0,
                    null_mut(),
                    null_mut(),
                    extra.as_mut_ptr(),
                )
            },
        },
        Case {
            name: "a block over the device's limit",
            want: H::hipErrorInvalidConfiguration,
            call: |f| unsafe {
                let (v, n) = (7u32, 16u32);
                let mut args = [
                    &f.dev as *const _ as *mut c_void,
                    &v as *const _ as *mut c_void,
                    &n as *const _ as *mut c_void,
                ];
                hipModuleLaunchKernel(
                    f.fill,
                    1,
                    1,
                    1,
                    2048,
                    1,
                    1,
                    0,
                    null_mut(),
                    args.as_mut_ptr(),
                    null_mut(),
                )
            },
        },
        Case {
            name: "an empty grid",
            want: H::hipErrorInvalidConfiguration,
            call: |f| unsafe {
                let (v, n) = (7u32, 16u32);
                let mut args = [
                    &f.dev as *const _ as *mut c_void,
                    &v as *const _ as *mut c_void,
                    &n as *const _ as *mut c_void,
                ];
                hipModuleLaunchKernel(f.fill, 0, 1, 1, 16, 1, 1, 0, null_mut(), args.as_mut_ptr(), null_mut())
            },
        },
        Case {
            name: "peer access to itself",
            want: H::hipErrorPeerAccessUnsupported,
            call: |_| unsafe { hipDeviceEnablePeerAccess(0, 0) },
        },
        Case {
            name: "a peer copy naming a device that does not exist",
            want: H::hipErrorInvalidDevice,
            call: |f| unsafe { hipMemcpyPeer(f.dev, 0, f.dev, 99, 8) },
        },
        Case {
            name: "an attribute for something that is not a kernel",
            want: H::hipErrorInvalidDeviceFunction,
            call: |f| unsafe { hipFuncSetAttribute(f.host.as_ptr() as *const c_void, 8, 1024) },
        },
        Case {
            name: "the old launch API without hipConfigureCall",
            want: H::hipErrorMissingConfiguration,
            call: |_| unsafe {
                let (mut g, mut b, mut s, mut st) =
                    (CDim3 { x: 9, y: 9, z: 9 }, CDim3::default(), 1usize, BOGUS);
                let r = __cudaPopCallConfiguration(&mut g, &mut b, &mut s, &mut st);
                assert_eq!(r, HipError::hipErrorMissingConfiguration);
                assert_eq!(
                    (g, s, st),
                    (CDim3::default(), 0, null_mut()),
                    "an empty configuration, which launches refuse"
                );
                hipLaunchByPtr(BOGUS)
            },
        },
    ]
}

#[test]
fn every_misuse_is_an_error_that_writes_nothing() {
    let mut f = Fixture::new();
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    for case in &cases {
        check(case, &mut f);
    }
    // The fixture's kernel does run with proper arguments (the cases above were refused, not
    // broken).
    let (v, n) = (7u32, 16u32);
    let mut args =
        [&f.dev as *const _ as *mut c_void, &v as *const _ as *mut c_void, &n as *const _ as *mut c_void];
    unsafe {
        ok(hipModuleLaunchKernel(f.fill, 1, 1, 1, 32, 1, 1, 0, null_mut(), args.as_mut_ptr(), null_mut()));
        let mut back = [0u32; 16];
        ok(hipMemcpy(back.as_mut_ptr() as *mut c_void, f.dev, 64, 2));
        assert_eq!(back, [7; 16]);
        ok(hipModuleUnload(f.module));
        ok(hipFree(f.dev));
    }
}

//! `hipStreamWaitValue*` and `hipStreamWriteValue*` through the C ABI, as a C program calls
//! them: a stream waiting on a word holds its later work until another stream writes the word.

use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::Duration;

use ferrocm_hip::error::HipError;
use ferrocm_hip::memory::*;
use ferrocm_hip::stream::*;

fn ok(e: HipError) {
    assert_eq!(e, HipError::hipSuccess);
}

#[test]
fn a_wait_holds_a_stream_until_another_stream_writes_the_word() {
    unsafe {
        let mut words = null_mut();
        ok(hipMalloc(&mut words, 32));
        ok(hipMemset(words, 0, 32));
        let (flag32, out32) = (words, (words as usize + 4) as *mut c_void);
        let (flag64, out64) = ((words as usize + 8) as *mut c_void, (words as usize + 16) as *mut c_void);
        let (mut a, mut b) = (null_mut(), null_mut());
        ok(hipStreamCreate(&mut a));
        ok(hipStreamCreate(&mut b));
        // b: wait for flag32 >= 3 (cyclic), then flag64 == 2^40, then write both outputs.
        ok(hipStreamWaitValue32(b, flag32, 3, 0, u32::MAX));
        ok(hipStreamWaitValue64(b, flag64, 1 << 40, 1, u64::MAX));
        ok(hipStreamWriteValue32(b, out32, 0xdead_beef, 0));
        ok(hipStreamWriteValue64(b, out64, u64::MAX - 1, 0));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(hipStreamQuery(b), HipError::hipErrorNotReady, "b went past an unmet wait");
        ok(hipStreamWriteValue32(a, flag32, 2, 0));
        ok(hipStreamWriteValue64(a, flag64, 1 << 40, 0));
        ok(hipStreamSynchronize(a));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(hipStreamQuery(b), HipError::hipErrorNotReady, "2 >= 3 must not hold");
        ok(hipStreamWriteValue32(a, flag32, 3, 0));
        ok(hipStreamSynchronize(b));
        let mut back = [0u8; 32];
        ok(hipMemcpy(back.as_mut_ptr() as *mut c_void, words, 32, 2));
        assert_eq!(u32::from_le_bytes(back[4..8].try_into().unwrap()), 0xdead_beef);
        assert_eq!(u64::from_le_bytes(back[16..24].try_into().unwrap()), u64::MAX - 1);
        ok(hipStreamDestroy(a));
        ok(hipStreamDestroy(b));
        ok(hipFree(words));
    }
}

//! Streams (flags, priorities, callbacks, waits) and events.
//!
//! HIP's semantics: the null stream (0, or `hipStreamLegacy`) is the current device's legacy
//! default stream, which synchronises with every blocking stream of the device; streams made
//! with `hipStreamNonBlocking` do not. `hipStreamPerThread` is the thread's own stream. Inside a
//! stream callback, calls that would wait for the stream fail with `hipErrorIllegalState`
//! instead of deadlocking.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use ferrocm_runtime::{Event, EventFlags, StreamFlags, StreamWord, WaitCondition};

use crate::device::hip_api;
use crate::error::{out, Failure, HipError, HipResult};
use crate::state::{hip, lock, new_handle, EventEntry, StreamEntry};

type StreamCallback = unsafe extern "C" fn(stream: *mut c_void, status: HipError, user: *mut c_void);
type HostFn = unsafe extern "C" fn(user: *mut c_void);

/// The user's data pointer, carried to the thread that runs the callback.
struct UserData(*mut c_void);
// SAFETY: HIP hands the pointer to the callback on another thread by design; the user owns what
// it points to.
unsafe impl Send for UserData {}

fn create(stream: *mut *mut c_void, flags: c_uint, priority: c_int) -> HipResult<()> {
    if stream.is_null() {
        return Err(Failure::invalid("stream is a null pointer"));
    }
    if flags & !1 != 0 {
        return Err(Failure::invalid(format!(
            "unknown stream flags {flags:#x} (hipStreamDefault or hipStreamNonBlocking)"
        )));
    }
    let h = hip()?;
    let d = h.current_device()?;
    let priority = priority.clamp(-5, 0);
    let s = d.create_stream_with(StreamFlags { non_blocking: flags & 1 != 0, priority })?;
    let handle = new_handle();
    lock(&h.streams)
        .insert(handle, Arc::new(StreamEntry { stream: s, device: h.current(), flags, priority }));
    // SAFETY: non-null out-parameter.
    unsafe { out(stream, "stream", handle as *mut c_void) }
}

/// HIP's wait flags (`hipStreamWaitValueGte` 0, `Eq` 1, `And` 2, `Nor` 3).
fn wait_condition(flags: c_uint) -> HipResult<WaitCondition> {
    Ok(match flags {
        0 => WaitCondition::Geq,
        1 => WaitCondition::Eq,
        2 => WaitCondition::And,
        3 => WaitCondition::Nor,
        _ => {
            return Err(Failure::invalid(format!(
                "unknown wait flags {flags:#x} (hipStreamWaitValueGte, Eq, And or Nor: 0 to 3)"
            )))
        }
    })
}

fn entry(handle: u64) -> HipResult<Option<Arc<StreamEntry>>> {
    if handle <= 2 {
        return Ok(None);
    }
    lock(&hip()?.streams)
        .get(&handle)
        .cloned()
        .map(Some)
        .ok_or_else(|| Failure::new(HipError::hipErrorInvalidHandle, format!("unknown stream {handle:#x}")))
}

hip_api! {
    /// `hipStreamCreate`: a blocking stream on the current device.
    fn hipStreamCreate(stream: *mut *mut c_void) {
        create(stream, 0, 0)
    }

    /// `hipStreamCreateWithFlags`.
    fn hipStreamCreateWithFlags(stream: *mut *mut c_void, flags: c_uint) {
        create(stream, flags, 0)
    }

    /// `hipStreamCreateWithPriority`: lower is higher priority, clamped to [-5, 0].
    fn hipStreamCreateWithPriority(stream: *mut *mut c_void, flags: c_uint, priority: c_int) {
        create(stream, flags, priority)
    }

    /// `hipStreamDestroy`: returns at once; queued work still completes.
    fn hipStreamDestroy(stream: *mut c_void) {
        let handle = stream as u64;
        if handle <= 2 {
            return Err(Failure::new(HipError::hipErrorInvalidHandle, "the default streams cannot be destroyed"));
        }
        let removed = lock(&hip()?.streams).remove(&handle);
        match removed {
            Some(_) => Ok(()),
            None => Err(Failure::new(HipError::hipErrorInvalidHandle, format!("unknown stream {handle:#x}"))),
        }
    }

    /// `hipStreamSynchronize`.
    fn hipStreamSynchronize(stream: *mut c_void) {
        Ok(hip()?.stream(stream as u64)?.synchronize()?)
    }

    /// `hipStreamQuery`: `hipErrorNotReady` while work is pending.
    fn hipStreamQuery(stream: *mut c_void) {
        if hip()?.stream(stream as u64)?.query()? {
            Ok(())
        } else {
            Err(Failure::new(HipError::hipErrorNotReady, "the stream has work pending"))
        }
    }

    /// `hipStreamWaitEvent`: later work on `stream` waits for the event's last record.
    fn hipStreamWaitEvent(stream: *mut c_void, event: *mut c_void, flags: c_uint) {
        if flags != 0 {
            return Err(Failure::invalid("hipStreamWaitEvent flags must be 0"));
        }
        let h = hip()?;
        let s = h.stream(stream as u64)?;
        let e = h.event(event as u64)?;
        Ok(s.wait_event(&e.event)?)
    }

    /// `hipStreamWaitValue32`: later work on the stream waits until the 32-bit word at `ptr`
    /// meets `flags` (`hipStreamWaitValueGte`, `Eq`, `And`, `Nor`) against `value`. `ptr` is an
    /// aligned word of device memory of the stream's device. Only the full mask (`0xFFFFFFFF`,
    /// the default) is supported; `Gte` compares cyclically as CUDA's `GEQ` does (the same as a
    /// plain `>=` for values less than 2^31 apart).
    fn hipStreamWaitValue32(stream: *mut c_void, ptr: *mut c_void, value: u32, flags: c_uint, mask: u32) {
        if mask != u32::MAX {
            return Err(Failure::new(HipError::hipErrorNotSupported, format!("mask {mask:#x}: only the full mask 0xffffffff is supported")));
        }
        let s = hip()?.stream(stream as u64)?;
        Ok(s.wait_value_raw(ptr as u64, StreamWord::U32(value), wait_condition(flags)?)?)
    }

    /// `hipStreamWaitValue64`: as `hipStreamWaitValue32` on a 64-bit word (full mask only).
    fn hipStreamWaitValue64(stream: *mut c_void, ptr: *mut c_void, value: u64, flags: c_uint, mask: u64) {
        if mask != u64::MAX {
            return Err(Failure::new(HipError::hipErrorNotSupported, format!("mask {mask:#x}: only the full mask is supported")));
        }
        let s = hip()?.stream(stream as u64)?;
        Ok(s.wait_value_raw(ptr as u64, StreamWord::U64(value), wait_condition(flags)?)?)
    }

    /// `hipStreamWriteValue32`: writes `value` to the 32-bit word at `ptr` after the stream's
    /// earlier work. `flags` must be 0.
    fn hipStreamWriteValue32(stream: *mut c_void, ptr: *mut c_void, value: u32, flags: c_uint) {
        if flags != 0 {
            return Err(Failure::invalid(format!("hipStreamWriteValue32 flags {flags:#x} must be 0")));
        }
        let s = hip()?.stream(stream as u64)?;
        Ok(s.write_value_raw(ptr as u64, StreamWord::U32(value))?)
    }

    /// `hipStreamWriteValue64`: as `hipStreamWriteValue32` on a 64-bit word.
    fn hipStreamWriteValue64(stream: *mut c_void, ptr: *mut c_void, value: u64, flags: c_uint) {
        if flags != 0 {
            return Err(Failure::invalid(format!("hipStreamWriteValue64 flags {flags:#x} must be 0")));
        }
        let s = hip()?.stream(stream as u64)?;
        Ok(s.write_value_raw(ptr as u64, StreamWord::U64(value))?)
    }

    /// `hipStreamGetFlags`.
    fn hipStreamGetFlags(stream: *mut c_void, flags: *mut c_uint) {
        let f = entry(stream as u64)?.map(|e| e.flags).unwrap_or(0);
        unsafe { out(flags, "flags", f) }
    }

    /// `hipStreamGetPriority`.
    fn hipStreamGetPriority(stream: *mut c_void, priority: *mut c_int) {
        let p = entry(stream as u64)?.map(|e| e.priority).unwrap_or(0);
        unsafe { out(priority, "priority", p) }
    }

    /// `hipStreamGetDevice`.
    fn hipStreamGetDevice(stream: *mut c_void, device: *mut c_int) {
        let d = match entry(stream as u64)? {
            Some(e) => e.device,
            None => hip()?.current(),
        };
        unsafe { out(device, "device", d as c_int) }
    }

    /// `hipStreamAddCallback`: `callback(stream, hipSuccess, user)` after the stream's earlier work.
    fn hipStreamAddCallback(stream: *mut c_void, callback: Option<StreamCallback>, user: *mut c_void, flags: c_uint) {
        let Some(cb) = callback else { return Err(Failure::invalid("callback is a null function pointer")) };
        if flags != 0 {
            return Err(Failure::invalid("hipStreamAddCallback flags must be 0"));
        }
        let s = hip()?.stream(stream as u64)?;
        let (handle, user) = (UserData(stream), UserData(user));
        s.add_callback(move || {
            let (handle, user) = (handle, user);
            // SAFETY: the user's callback, called as HIP calls it.
            unsafe { cb(handle.0, HipError::hipSuccess, user.0) }
        })?;
        Ok(())
    }

    /// `hipLaunchHostFunc`: `f(user)` after the stream's earlier work.
    fn hipLaunchHostFunc(stream: *mut c_void, f: Option<HostFn>, user: *mut c_void) {
        let Some(f) = f else { return Err(Failure::invalid("fn is a null function pointer")) };
        let s = hip()?.stream(stream as u64)?;
        let user = UserData(user);
        s.add_callback(move || {
            let user = user;
            // SAFETY: the user's function, called as HIP calls it.
            unsafe { f(user.0) }
        })?;
        Ok(())
    }

    /// `hipEventCreate`: a timing event on the current device.
    fn hipEventCreate(event: *mut *mut c_void) {
        create_event(event, 0)
    }

    /// `hipEventCreateWithFlags`: `hipEventBlockingSync`, `hipEventDisableTiming`.
    fn hipEventCreateWithFlags(event: *mut *mut c_void, flags: c_uint) {
        create_event(event, flags)
    }

    /// `hipEventRecord`: marks the current end of `stream`.
    fn hipEventRecord(event: *mut c_void, stream: *mut c_void) {
        let h = hip()?;
        let e = h.event(event as u64)?;
        let s = h.stream(stream as u64)?;
        e.event.record(&s).map_err(|err| match err {
            ferrocm_runtime::Error::DeviceMismatch { .. } => {
                Failure::invalid("the event and the stream belong to different devices")
            }
            other => other.into(),
        })?;
        e.recorded.store(true, Ordering::Release);
        Ok(())
    }

    /// `hipEventDestroy`.
    fn hipEventDestroy(event: *mut c_void) {
        let removed = lock(&hip()?.events).remove(&(event as u64));
        match removed {
            Some(_) => Ok(()),
            None => Err(Failure::new(HipError::hipErrorInvalidHandle, format!("unknown event {:#x}", event as u64))),
        }
    }

    /// `hipEventSynchronize`: waits for the recorded point (at once if never recorded).
    fn hipEventSynchronize(event: *mut c_void) {
        Ok(hip()?.event(event as u64)?.event.synchronize()?)
    }

    /// `hipEventQuery`: `hipErrorNotReady` until the recorded point is reached.
    fn hipEventQuery(event: *mut c_void) {
        if hip()?.event(event as u64)?.event.query()? {
            Ok(())
        } else {
            Err(Failure::new(HipError::hipErrorNotReady, "the event has not been reached"))
        }
    }

    /// `hipEventElapsedTime`: milliseconds between two recorded, completed timing events.
    fn hipEventElapsedTime(ms: *mut f32, start: *mut c_void, stop: *mut c_void) {
        if ms.is_null() {
            return Err(Failure::invalid("ms is a null pointer"));
        }
        let h = hip()?;
        let (a, b) = (h.event(start as u64)?, h.event(stop as u64)?);
        for e in [&a, &b] {
            if e.flags & 2 != 0 {
                return Err(Failure::new(HipError::hipErrorInvalidHandle, "an event was created with hipEventDisableTiming"));
            }
            if !e.recorded.load(Ordering::Acquire) {
                return Err(Failure::new(HipError::hipErrorInvalidHandle, "an event has not been recorded"));
            }
        }
        let t = a.event.elapsed_ms(&b.event)?;
        unsafe { out(ms, "ms", t) }
    }
}

fn create_event(event: *mut *mut c_void, flags: c_uint) -> HipResult<()> {
    if event.is_null() {
        return Err(Failure::invalid("event is a null pointer"));
    }
    if flags & !0x7 != 0 {
        return Err(Failure::invalid(format!("unknown event flags {flags:#x}")));
    }
    if flags & 0x4 != 0 && flags & 0x2 == 0 {
        return Err(Failure::invalid("an interprocess event must disable timing"));
    }
    let h = hip()?;
    let d = h.current_device()?;
    let e = Event::with_flags(&d, EventFlags { timing: flags & 2 == 0, blocking_sync: flags & 1 != 0 })?;
    let handle = new_handle();
    lock(&h.events).insert(
        handle,
        Arc::new(EventEntry { event: e, device: h.current(), flags, recorded: false.into() }),
    );
    // SAFETY: non-null out-parameter.
    unsafe { out(event, "event", handle as *mut c_void) }
}

use std::sync::Arc;

use ferrocm_backend::{EventFlags, EventHandle};

use crate::device::Device;
use crate::stream::Stream;
use crate::{Error, Result};

struct EventInner {
    device: Device,
    handle: EventHandle,
}

impl Drop for EventInner {
    fn drop(&mut self) {
        let (device, handle) = (self.device.clone(), self.handle);
        crate::callback::now_or_later(move || {
            // SAFETY: the handle came from `event_create` and this is its last owner.
            let _ = unsafe { device.inner.backend.event_destroy(handle) };
        });
    }
}

/// A marker in a stream: wait for it, query it, or time the work between two of them.
#[derive(Clone)]
pub struct Event {
    inner: Arc<EventInner>,
}

impl Event {
    /// A timing event on `device`.
    pub fn new(device: &Device) -> Result<Event> {
        Event::with_flags(device, EventFlags::default())
    }

    /// An event with explicit flags.
    pub fn with_flags(device: &Device, flags: EventFlags) -> Result<Event> {
        let _t = crate::trace::api("Event::create");
        crate::callback::forbid("creating an event")?;
        let handle =
            device.inner.backend.event_create(device.ordinal(), flags).map_err(|e| device.error(e))?;
        Ok(Event { inner: Arc::new(EventInner { device: device.clone(), handle }) })
    }

    /// The device the event belongs to.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    pub(crate) fn handle(&self) -> EventHandle {
        self.inner.handle
    }

    /// Records the event at the current end of `stream`.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        let _t = crate::trace::api("Event::record");
        let _op = stream.op("recording an event", crate::graph::InCapture::Refused)?;
        stream.same_device("event", self.device())?;
        // SAFETY: event and stream are live while `self` and `stream` are.
        unsafe { self.device().inner.backend.event_record(self.inner.handle, stream.handle()) }
            .map_err(|e| self.device().error(e))
    }

    /// Blocks until the recorded point is reached.
    pub fn synchronize(&self) -> Result<()> {
        let _t = crate::trace::api("Event::synchronize");
        crate::callback::forbid("synchronizing an event")?;
        // SAFETY: the event is live while `self` is.
        unsafe { self.device().inner.backend.event_synchronize(self.inner.handle) }
            .map_err(|e| self.device().error(e))
    }

    /// Whether the recorded point has been reached (true if never recorded).
    pub fn query(&self) -> Result<bool> {
        let _t = crate::trace::api("Event::query");
        crate::callback::forbid("querying an event")?;
        // SAFETY: the event is live while `self` is.
        unsafe { self.device().inner.backend.event_query(self.inner.handle) }
            .map_err(|e| self.device().error(e))
    }

    /// Milliseconds from this event to `end`; both must be recorded and complete.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        let _t = crate::trace::api("Event::elapsed_ms");
        if end.device() != self.device() {
            return Err(Error::DeviceMismatch {
                what: "end event",
                expected: self.device().index(),
                actual: end.device().index(),
            });
        }
        crate::callback::forbid("timing events")?;
        // SAFETY: both events are live while `self` and `end` are.
        unsafe { self.device().inner.backend.event_elapsed_ms(self.inner.handle, end.inner.handle) }.map_err(
            |e| match e {
                ferrocm_backend::BackendError::EventNotReady { reason } => Error::EventNotReady { reason },
                e => self.device().error(e),
            },
        )
    }
}
